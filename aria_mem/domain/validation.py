"""Checks on what people and files hand us, and the text normalisation that finds duplicates.
(How a memory is written to and read from an export line is ``memory_line``.)

Every check raises ``ValidationError`` with a message that names the field and the fix, so the
CLI can print it as it is.
"""

from __future__ import annotations

import re
import unicodedata
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any, TypeVar

from aria_mem.domain.invisible import has_default_ignorable
from aria_mem.domain.models import (
    Memory,
    MemoryOrder,
    MemoryType,
    NewMemory,
    Stage,
)
from aria_mem.errors import AmbiguousIdError, NotFoundError, ValidationError

T = TypeVar("T")

MAX_TEXT_CHARS = 2000
"""A memory is one fact; anything longer is a document and belongs in knowledge."""

MAX_REASON_CHARS = 2000
"""Why a memory is worth keeping: a sentence or two, never a document."""

MAX_ID_CHARS = 200
MAX_USE_COUNT = 2**31 - 1
"""PostgreSQL's integer."""

MAX_LIMIT = 2**31 - 1
"""The most rows a listing may be asked for: far beyond any store, well inside PostgreSQL's
bigint."""

EARLIEST = datetime(1, 1, 2, tzinfo=UTC)
LATEST = datetime(9999, 12, 30, tzinfo=UTC)
"""Timestamps both PostgreSQL and Python can hold in any time zone: a day inside Python's
range, so that no offset can push one outside it when it is read back."""

_SPACE = re.compile(r"\s+")


def plain_text(name: str, value: str) -> str:
    """Refuse what PostgreSQL's text cannot store (NUL) and what is not Unicode text at all
    (a lone surrogate: invalid UTF-8 that came in through an argument or a JSON escape)."""
    if "\x00" in value:
        raise ValidationError(f"{name} contains a NUL character — remove it")
    if any("\ud800" <= ch <= "\udfff" for ch in value):
        raise ValidationError(
            f"{name} is not valid UTF-8 text (it holds a lone surrogate) — give UTF-8 text"
        )
    return value


def _has_hidden_characters(value: str) -> bool:
    """Control and format characters (bidirectional overrides included), and every other
    character that shows nothing (Hangul fillers, variation selectors, tags ...): an id that
    looks like another must not be a different id."""
    return has_default_ignorable(value) or any(
        unicodedata.category(ch) in ("Cc", "Cf") for ch in value
    )


def timestamp(name: str, value: datetime) -> datetime:
    """An aware timestamp inside the range every layer can hold."""
    if value.tzinfo is None:
        raise ValidationError(f"{name} needs a time zone (e.g. +00:00): {value.isoformat()}")
    if not EARLIEST <= value <= LATEST:
        raise ValidationError(
            f"{name} {value.isoformat()} is outside what can be stored: from "
            f"{EARLIEST.date().isoformat()} to {LATEST.date().isoformat()} (UTC) — give a date "
            "in that range"
        )
    return value


def future(name: str, value: datetime | None, now: datetime) -> datetime | None:
    """An expiry given for a new or edited memory: it must still be ahead."""
    if value is None:
        return None
    timestamp(name, value)
    if value <= now:
        raise ValidationError(
            f"{name} {value.isoformat()} is already past — give a later time, or forget the "
            "memory instead"
        )
    return value


def normalize_text(text: str) -> str:
    """The key that says two texts state the same fact: case, spacing, width and a final
    full stop do not matter."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return _SPACE.sub(" ", folded).strip().rstrip(".!").strip()


def clean_text(text: str) -> str:
    cleaned = plain_text("The memory text", text).strip()
    if not cleaned:
        raise ValidationError("The memory text is empty — give the fact to remember")
    if len(cleaned) > MAX_TEXT_CHARS:
        raise ValidationError(
            f"The memory text is {len(cleaned)} characters; the limit is {MAX_TEXT_CHARS} — "
            "split it into separate facts, or use `aria-mem learn` for documents"
        )
    return cleaned


def unit_interval(name: str, value: Any) -> float:
    """A score between 0 and 1 inclusive."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValidationError(f"{name} must be a number between 0 and 1, got {value!r}")
    number = float(value)
    if not 0.0 <= number <= 1.0:
        raise ValidationError(f"{name} must be between 0 and 1, got {value}")
    return number


def identifier(name: str, value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValidationError(f"{name} must be a non-empty string, got {value!r}")
    if len(value) > MAX_ID_CHARS:
        raise ValidationError(f"{name} is longer than {MAX_ID_CHARS} characters")
    plain_text(name, value)
    if _has_hidden_characters(value):
        raise ValidationError(
            f"{name} {value.encode('unicode_escape').decode()!r} contains control or invisible "
            "characters — use letters, digits and punctuation"
        )
    return value.strip()


MAX_OFFSET = 100_000_000


def limit(value: int | None) -> int | None:
    """How many rows a listing may return: none (all), or 1..MAX_LIMIT."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_LIMIT:
        raise ValidationError(
            f"limit must be a whole number from 1 to {MAX_LIMIT}, got {value!r} — or none "
            "for every row"
        )
    return value


def offset(value: int) -> int:
    """How many rows a listing skips, for paging: 0 to MAX_OFFSET."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_OFFSET:
        raise ValidationError(
            f"offset must be a whole number from 0 to {MAX_OFFSET:,}, got {value!r}"
        )
    return value


def memory_order(value: Any) -> MemoryOrder:
    try:
        return MemoryOrder(str(value).strip().lower())
    except ValueError:
        known = ", ".join(o.value for o in MemoryOrder)
        raise ValidationError(f"Unknown order {value!r} — use one of: {known}") from None


def reason(value: Any) -> str:
    if not isinstance(value, str):
        raise ValidationError(f"reason must be a string, got {value!r}")
    if len(value) > MAX_REASON_CHARS:
        raise ValidationError(
            f"reason is {len(value)} characters; the limit is {MAX_REASON_CHARS} — say in a "
            "sentence why the memory matters"
        )
    return plain_text("reason", value).strip()


def use_count(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_USE_COUNT:
        raise ValidationError(
            f"use_count must be a whole number from 0 to {MAX_USE_COUNT}, got {value!r}"
        )
    return value


MIN_ID_PREFIX = 4
_HEX_ID = frozenset("0123456789abcdef-")


def parse_full_id(text: str) -> uuid.UUID | None:
    """The id, when ``text`` is a whole one (not the first characters of one)."""
    try:
        return uuid.UUID(text.strip())
    except ValueError:
        return None


def no_memory(memory_id: uuid.UUID | str) -> NotFoundError:
    """The one answer for a memory that does not exist and for one of somebody else, so a
    caller cannot tell them apart."""
    return NotFoundError(f"No memory with id {memory_id} — `aria-mem list` shows them")


def moved_by_import(memory_id: uuid.UUID) -> str:
    """Why an import line is refused whose id is a memory of another user or companion: an
    import would move that memory, with its history and the questions about it, to another
    pair (as the stores write by id). No export writes such a line."""
    return (
        f"memory {memory_id} is stored for another user or companion, and an import never moves "
        "a memory between them — give the line a new id to copy it"
    )


def owned_by(memory: Memory, owner: tuple[str, str] | None) -> Memory:
    """``memory``, when no owner is asked for or it is that (user, companion)'s; otherwise
    the answer for a memory that does not exist."""
    if owner is not None and (memory.user_id, memory.companion_id) != owner:
        raise no_memory(memory.id)
    return memory


def only_match(found: Sequence[T], prefix: str, noun: str, where: str) -> T:
    """The one item whose id starts with ``prefix`` (``found`` holds at most two), or a
    refusal saying that none or several do."""
    if not found:
        raise NotFoundError(f"No {noun} with an id starting {prefix!r} — {where} shows them")
    if len(found) > 1:
        raise AmbiguousIdError(f"More than one {noun} id starts with {prefix!r} — give more of it")
    return found[0]


def id_prefix(prefix: str, what: str, where: str) -> str:
    """An id given by its first characters (as lists show them), lower-cased; or a refusal
    that says whether it is not an id at all or too short to pick one."""
    clean = prefix.strip().lower()
    if not clean or any(c not in _HEX_ID for c in clean):
        raise NotFoundError(f"{prefix!r} is not {what} — {where} shows them")
    if len(clean) < MIN_ID_PREFIX:
        raise NotFoundError(
            f"{prefix!r} is too short to pick {what}: give at least {MIN_ID_PREFIX} "
            f"characters of it, as {where} shows"
        )
    return clean


def memory_type(value: Any) -> MemoryType:
    for member in MemoryType:
        if isinstance(value, str) and value.strip().casefold() == member.value.casefold():
            return member
    known = ", ".join(m.value for m in MemoryType)
    raise ValidationError(f"Unknown memory type {value!r} — use one of: {known}")


def stage(value: Any) -> Stage:
    try:
        return Stage(str(value).strip().lower())
    except ValueError:
        known = ", ".join(s.value for s in Stage)
        raise ValidationError(
            f"Unknown relationship stage {value!r} — use one of: {known}"
        ) from None


def new_memory(candidate: NewMemory, now: datetime | None = None) -> NewMemory:
    """Return ``candidate`` with its text cleaned, or raise on the first bad field. Its expiry
    must lie ahead of ``now`` (default: the current time)."""
    return NewMemory(
        id=candidate.id,
        user_id=identifier("user", candidate.user_id),
        companion_id=identifier("companion", candidate.companion_id),
        text=clean_text(candidate.text),
        type=memory_type(candidate.type),
        importance=unit_interval("importance", candidate.importance),
        emotional_significance=unit_interval(
            "emotional significance", candidate.emotional_significance
        ),
        confidence=unit_interval("confidence", candidate.confidence),
        reason=reason(candidate.reason),
        pinned=candidate.pinned,
        held_until_stage=candidate.held_until_stage,
        expires_at=future("expires", candidate.expires_at, now or datetime.now(UTC)),
    )


def iso_timestamp(name: str, value: Any) -> datetime:
    """A required ISO 8601 timestamp from a file line, with its time zone."""
    parsed = optional_iso_timestamp(name, value)
    if parsed is None:
        raise ValidationError(f"{name} is missing")
    return parsed


def optional_iso_timestamp(name: str, value: Any) -> datetime | None:
    """An ISO 8601 timestamp from a file line, or None when the line has none."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise ValidationError(f"{name} must be an ISO 8601 timestamp string, got {value!r}")
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        raise ValidationError(f"{name} is not an ISO 8601 timestamp: {value!r}") from None
    return timestamp(name, parsed)
