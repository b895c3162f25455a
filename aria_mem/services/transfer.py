"""Import: every line of a JSON Lines file validated before anything is stored, and no line,
however it is made, able to break the store.

Bounded: only regular files are read (``/dev/zero`` or a pipe would never end), a line may hold
at most ``MAX_LINE_BYTES`` (a memory line is a few hundred bytes, a chat turn a few KB), and
JSON nested too deeply is a bad line like any other. Without ``skip_invalid`` one bad line
stops the import before anything is stored, and the store runs it as one transaction, so a
line only PostgreSQL finds fault with also leaves nothing behind. With ``skip_invalid`` every
line that cannot be stored is skipped and reported, whichever layer finds the fault: a batch
PostgreSQL refuses is split in halves until the refused lines stand alone. Lines of another
kind (stages, conversations, knowledge) are checked the same way and restored by
``services.archive`` once the memories are in.
"""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, BinaryIO

from aria_mem.domain.archive import Archive, event_line
from aria_mem.domain.invisible import json_line
from aria_mem.domain.memory_line import memory_from_record, memory_to_record
from aria_mem.domain.models import Memory, MemoryStatus
from aria_mem.domain.records import ImportResult, SyncReport
from aria_mem.errors import NotFoundError, ServiceError, ValidationError
from aria_mem.ports import MemoryRepository, Store
from aria_mem.private import NotARegularFileError, open_regular
from aria_mem.services.archive import Carried, restore, write_everything_else
from aria_mem.services.indexer import Indexer

log = logging.getLogger(__name__)

MAX_LINE_BYTES = 1024 * 1024
"""Room for the longest chat turn an export holds (``archive.MAX_TURN_CHARS``)."""
MAX_PROBLEMS_SHOWN = 20
EVENT_BATCH = 1000
"""Memories whose history an export reads at a time."""
MAX_LINES = 5_000_000
"""Far more than an export holds (100,000 memories and every chat turn); an endless stream
(`yes | aria-mem import -`) must end."""
MAX_INVALID_LINES = 100_000
"""With --skip-invalid, past this many bad lines the input is not an export at all."""
MAX_SKIPPED_BYTES = 64 * MAX_LINE_BYTES
"""How far `--skip-invalid` reads to find the end of an over-long line."""


@dataclass(frozen=True)
class ParsedLine:
    number: int
    memory: Memory


@dataclass
class ParsedFile:
    lines: list[ParsedLine] = field(default_factory=list)
    archive: Archive = field(default_factory=Archive)
    """Stages, conversations and knowledge (lines with a ``kind``)."""
    problems: list[str] = field(default_factory=list)
    repeated: int = 0
    """Lines that repeat an earlier line word for word (harmless, imported once)."""


MAX_PROBLEMS_READ = 1000
"""Without skip_invalid, reading stops at this many bad lines (nothing is imported)."""


def _refuse(path: str, problems: Sequence[str]) -> ValidationError:
    """One bad line is said on one line; several are listed, one per line."""
    if len(problems) == 1:
        return ValidationError(
            f"{path} {problems[0]}; nothing was imported — fix the line, or import the valid "
            "lines only (skip_invalid)",
            option="skip_invalid",
        )
    shown = "\n  ".join(problems[:MAX_PROBLEMS_SHOWN])
    extra = len(problems) - MAX_PROBLEMS_SHOWN
    more = f"\n  … and {extra} more" if extra > 0 else ""
    return ValidationError(
        f"{path} has {len(problems)} invalid line(s); nothing was imported:\n  {shown}{more}"
        "\nFix them, or import the valid lines only (skip_invalid)",
        option="skip_invalid",
    )


def _open_regular(path: Path) -> BinaryIO:
    try:
        return open_regular(path)
    except NotARegularFileError as exc:
        raise ValidationError(
            f"{path} is not a regular file — give a JSON Lines file as `aria-mem export` writes it"
        ) from exc
    except OSError as exc:
        raise ValidationError(f"Cannot read {path}: {exc.strerror}") from exc


def _parse_line(raw: bytes, archive: Archive) -> Memory | None:
    """The memory on the line, or None when it was another kind (taken by ``archive``)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValidationError(f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    try:
        record = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValidationError(f"not valid JSON ({exc.msg})") from None
    except RecursionError:
        raise ValidationError("JSON nested too deeply to be a memory") from None
    if isinstance(record, dict) and "kind" in record:
        archive.add(record)
        return None
    return memory_from_record(record)


def read_lines(path: Path, *, skip_invalid: bool) -> ParsedFile:
    """Validate every line; raise on the first problems unless ``skip_invalid``."""
    with _open_regular(path) as handle:
        return read_stream(handle, str(path), skip_invalid=skip_invalid)


def read_stream(handle: IO[bytes], name: str, *, skip_invalid: bool) -> ParsedFile:
    """``read_lines`` over an open stream (a pipe: stdin); ``name`` is what errors call it."""
    parsed = ParsedFile()
    first_seen: dict[uuid.UUID, ParsedLine] = {}
    number = 0
    while raw := handle.readline(MAX_LINE_BYTES + 1):
        number += 1
        if number > MAX_LINES or len(parsed.problems) > MAX_INVALID_LINES:
            raise ValidationError(
                f"{name} has more than {MAX_LINES:,} lines or {MAX_INVALID_LINES:,} invalid "
                "ones; nothing was imported — give a JSON Lines file as `aria-mem export` "
                "writes it (split a larger one)"
            )
        if len(raw) > MAX_LINE_BYTES:
            parsed.problems.append(
                f"line {number}: longer than {MAX_LINE_BYTES // 1024:,} KB — a memory "
                "takes a few hundred bytes, a chat turn a few KB"
            )
            if not skip_invalid:
                break  # nothing will be imported: do not read the rest of an endless line
            _skip_to_line_end(handle, raw, name, number)
            continue
        if not raw.strip():
            continue
        try:
            memory = _parse_line(raw, parsed.archive)
        except ValidationError as exc:
            parsed.problems.append(f"line {number}: {exc}")
            if not skip_invalid and len(parsed.problems) >= MAX_PROBLEMS_READ:
                break  # nothing will be imported; an endless pipe of garbage must end too
            continue
        if memory is None:
            continue
        earlier = first_seen.get(memory.id)
        if earlier is not None:
            if earlier.memory == memory:
                parsed.repeated += 1
            else:
                parsed.problems.append(
                    f"line {number}: id {memory.id} is already on line {earlier.number} "
                    "with other contents — give each memory its own id"
                )
            continue
        line = ParsedLine(number, memory)
        first_seen[memory.id] = line
        parsed.lines.append(line)
    if parsed.problems and not skip_invalid:
        raise _refuse(name, parsed.problems)
    return parsed


def _skip_to_line_end(handle: IO[bytes], raw: bytes, name: str, number: int) -> None:
    """Read past the rest of an over-long line, but not forever (stdin from /dev/zero has no
    line end): past MAX_SKIPPED_BYTES the input is not JSON Lines and reading stops."""
    skipped = len(raw)
    while raw and not raw.endswith(b"\n"):
        if skipped > MAX_SKIPPED_BYTES:
            raise ValidationError(
                f"{name}: line {number} runs on past {MAX_SKIPPED_BYTES // 1024 // 1024} MB "
                "without a line end; nothing was imported — give a JSON Lines file as "
                "`aria-mem export` writes it"
            )
        raw = handle.readline(MAX_LINE_BYTES + 1)
        skipped += len(raw)


def import_lines(
    store: MemoryRepository, lines: Sequence[ParsedLine], *, skip_invalid: bool
) -> tuple[ImportResult, dict[uuid.UUID, str]]:
    """Store the lines; what was stored, and the lines the store refused, by memory id (only
    with ``skip_invalid``: otherwise it raises and nothing is stored)."""
    totals = ImportResult(0, 0, 0)
    rejected: dict[uuid.UUID, str] = {}

    def store_part(part: Sequence[ParsedLine]) -> None:
        nonlocal totals
        try:
            result = store.import_memories([line.memory for line in part])
        except ValidationError as exc:
            if not skip_invalid:
                raise ValidationError(
                    f"{exc}; nothing was imported — fix the line, or import the valid lines only",
                    option="skip_invalid",
                ) from exc
            if len(part) == 1:
                rejected[part[0].memory.id] = f"line {part[0].number}: {exc}"
                return
            half = len(part) // 2
            store_part(part[:half])
            store_part(part[half:])
            return
        totals = totals + result

    if lines:
        store_part(lines)
    return totals, rejected


@dataclass(frozen=True)
class Exported:
    memories: int
    rest: Carried
    """Stages, conversations, turns and knowledge written besides the memories."""


@dataclass(frozen=True)
class Imported:
    stored: ImportResult
    """Memories inserted, updated, merged with a stored duplicate, or left unchanged."""
    lines: int
    """Valid lines read."""
    repeated: int
    """Lines that repeat an earlier one word for word (imported once)."""
    problems: tuple[str, ...]
    """Lines left out (``line N: why``), with skip_invalid."""
    index: SyncReport | None
    """None when indexing was left to the daemon or `sync`."""
    restored: Carried
    """Stages, conversations and knowledge the file held besides memories."""
    pending: int
    """Memories and passages still waiting for the index once the import is done, counted in
    PostgreSQL: every one the import brought when indexing was left out or the model did not
    answer (the indexer gives up at the first batch that fails, so that counting its failures
    would say one batch), plus any that waited before."""


def export_memories(
    stream: IO[str], store: Store, *, user_id: str | None, everything: bool
) -> Exported:
    """Every memory (of ``user_id``, or of everyone), every field, as JSON Lines;
    ``everything`` adds the stages, the conversations and the companions' knowledge."""
    count = 0
    companions: set[str] = set()
    exported: list[uuid.UUID] = []
    for memory in store.memories.iter_all():
        if user_id is not None and memory.user_id != user_id:
            continue
        stream.write(json_line(memory_to_record(memory)) + "\n")
        companions.add(memory.companion_id)
        exported.append(memory.id)
        count += 1
    if not everything:
        return Exported(count, Carried())
    written = write_everything_else(
        stream,
        conversations=store.conversations,
        relationships=store.relationships,
        knowledge=store.knowledge,
        user_id=user_id,
        companions=companions,
    )
    for start in range(0, len(exported), EVENT_BATCH):
        for event in store.hygiene.events(exported[start : start + EVENT_BATCH]):
            stream.write(json_line(event_line(event)) + "\n")
            written.events += 1
    return Exported(count, written)


def import_memories(
    source: Path | IO[bytes],
    store: Store,
    indexer: Indexer | None,
    *,
    skip_invalid: bool,
    progress: Callable[[int], None] | None = None,
    on_start: Callable[[int], None] | None = None,
) -> Imported:
    """Check every line, store the memories (one transaction), restore the rest, then index
    what waits unless ``indexer`` is None, and count what still waits."""
    if isinstance(source, Path):
        parsed = read_lines(source, skip_invalid=skip_invalid)
    else:
        parsed = read_stream(source, "stdin", skip_invalid=skip_invalid)
    name = str(source) if isinstance(source, Path) else "stdin"
    crossed = _crossed_chains(store.memories, parsed.lines)
    if len(crossed) + len(parsed.problems) > MAX_INVALID_LINES:
        raise ValidationError(
            f"{name} has more than {MAX_INVALID_LINES:,} invalid lines; nothing was imported — "
            "give a JSON Lines file as `aria-mem export` writes it"
        )
    if crossed and not skip_invalid:
        raise _refuse(name, list(crossed.values()))
    if crossed:
        parsed.lines = [line for line in parsed.lines if line.number not in crossed]
        parsed.problems.extend(crossed.values())
    stored, rejected = import_lines(store.memories, parsed.lines, skip_invalid=skip_invalid)
    parsed.lines = [line for line in parsed.lines if line.memory.id not in rejected]
    imported = {line.memory.id for line in parsed.lines}
    restored = restore(
        parsed.archive,
        conversations=store.conversations,
        relationships=store.relationships,
        knowledge=store.knowledge,
    )
    events = [e for e in parsed.archive.events if e.memory_id in imported]
    restored.events = store.hygiene.add_events(events)  # a refused line's history is too
    superseded = [
        line.memory.id for line in parsed.lines if line.memory.status is MemoryStatus.SUPERSEDED
    ]
    if superseded:
        _settle_questions(store, superseded)
    report = None
    if indexer is not None and (parsed.lines or restored.sources or restored.stages):
        if on_start is not None:
            on_start(store.queue.pending_count())
        report = indexer.run_pending(progress=progress)
    return Imported(
        stored,
        len(parsed.lines),
        parsed.repeated,
        tuple(parsed.problems + list(rejected.values())),
        report,
        restored,
        _still_pending(store),
    )


def _crossed_chains(memories: MemoryRepository, lines: Sequence[ParsedLine]) -> dict[int, str]:
    """The lines whose ``superseded_by`` names a memory of another user or companion (in the
    file, or stored), by line number, at most one past ``MAX_INVALID_LINES``: such a chain
    would link two pairs' memories, which no export writes."""
    in_file = {line.memory.id: line.memory for line in lines}
    crossed: dict[int, str] = {}
    for line in lines:
        if len(crossed) > MAX_INVALID_LINES:  # bounded: the caller refuses the file
            break
        memory = line.memory
        if memory.superseded_by is None:
            continue
        holder = in_file.get(memory.superseded_by)
        if holder is None:
            try:
                holder = memories.get(memory.superseded_by)
            except NotFoundError:
                continue
        if (holder.user_id, holder.companion_id) != (memory.user_id, memory.companion_id):
            crossed[line.number] = (
                f"line {line.number}: superseded_by names a memory of another user or "
                "companion — give a memory of the same pair, or leave superseded_by out"
            )
    return crossed


def _settle_questions(store: Store, superseded: list[uuid.UUID]) -> None:
    """The open questions about memories the file says were superseded, moved to the memory
    that stands for each, as a merge moves them; the import stands even when this fails (the
    same file imported again puts them right)."""
    try:
        store.hygiene.settle_questions(superseded)
    except ServiceError as exc:
        log.warning("imported, but could not move the questions of superseded memories: %s", exc)


def _still_pending(store: Store) -> int:
    """What waits for the index once the import is committed; the import stands even when
    PostgreSQL cannot say (then 0 is told, and `aria-mem status` counts later)."""
    try:
        return store.queue.pending_count()
    except ServiceError as exc:
        log.warning("imported, but could not count what waits for the index: %s", exc)
        return 0
