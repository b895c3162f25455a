"""From rows to records, and the SQL fragments several queries share."""

from __future__ import annotations

import uuid

from aria_mem.adapters.postgres.connection import Row
from aria_mem.domain.models import (
    IndexState,
    Kind,
    KnowledgeItem,
    Memory,
    MemoryStatus,
    MemoryType,
    Stage,
)
from aria_mem.domain.usability import usable_sql
from aria_mem.domain.validation import EARLIEST, LATEST, id_prefix
from aria_mem.errors import NotFoundError

JOIN_RELATIONSHIP = (
    "LEFT JOIN relationships r ON r.user_id = m.user_id AND r.companion_id = m.companion_id"
)
USABLE = usable_sql()
"""``domain.usability``'s rule over ``memories m`` joined with ``JOIN_RELATIONSHIP``."""

TABLES = {Kind.MEMORY: "memories", Kind.KNOWLEDGE: "knowledge_items"}
"""Where each kind of index entry lives."""

TIMESTAMPS = ("expires_at", "created_at", "updated_at", "last_used_at", "last_confirmed_at")
OUT_OF_RANGE = " OR ".join(f"m.{c} < %(earliest)s OR m.{c} > %(latest)s" for c in TIMESTAMPS)
"""True for a row an older aria-mem let in with a timestamp Python cannot hold."""

_MEMORY_COLUMNS = (
    "id",
    "user_id",
    "companion_id",
    "type",
    "text",
    "importance",
    "emotional_significance",
    "confidence",
    "reason",
    "pinned",
    "status",
    "held_until_stage",
    *TIMESTAMPS,
    "use_count",
    "index_state",
    "indexed_model",
    "index_attempts",
    "index_error",
)
_EARLIEST_SQL = f"'{EARLIEST.isoformat()}'::timestamptz"
_LATEST_SQL = f"'{LATEST.isoformat()}'::timestamptz"


def memory_columns(alias: str = "") -> str:
    """The columns a Memory is read from. A timestamp outside what Python can hold (an older
    aria-mem let such rows in) is read as the nearest one it can, so the row can still be
    listed, shown and forgotten instead of breaking every command; `status` counts them.
    Clamped in SQL, so every value still goes through psycopg's fast loader."""
    prefix = f"{alias}." if alias else ""

    def column(name: str) -> str:
        col = prefix + name
        if name not in TIMESTAMPS:
            return col
        return (
            f"CASE WHEN {col} IS NULL THEN NULL"
            f" ELSE greatest(least({col}, {_LATEST_SQL}), {_EARLIEST_SQL}) END AS {name}"
        )

    return ", ".join(column(name) for name in _MEMORY_COLUMNS)


MEMORY = memory_columns()
"""For a query on ``memories`` alone (and RETURNING)."""
MEMORY_M = memory_columns("m")
"""For a query on ``memories m``."""

KNOWLEDGE_SELECT = (
    "SELECT k.id, k.source_id, s.companion_id, s.source, s.title, k.chunk_index, k.text,"
    " k.updated_at FROM knowledge_items k JOIN knowledge_sources s ON s.id = k.source_id"
)


_TYPES = {t.value: t for t in MemoryType}
_STATUSES = {s.value: s for s in MemoryStatus}
_STAGES = {s.value: s for s in Stage}
_INDEX_STATES = {s.value: s for s in IndexState}
"""Each enum by value: a dictionary look-up takes 0.03 us where calling the enum takes 0.5 us,
four times a row, for the ~55 rows a retrieval reads (an unknown value still goes to the enum,
which raises naming it)."""


def memory(row: Row) -> Memory:
    held = row["held_until_stage"]
    return Memory(
        id=row["id"],
        user_id=row["user_id"],
        companion_id=row["companion_id"],
        type=_TYPES.get(row["type"]) or MemoryType(row["type"]),
        text=row["text"],
        importance=float(row["importance"]),
        emotional_significance=float(row["emotional_significance"]),
        confidence=float(row["confidence"]),
        reason=row["reason"],
        pinned=row["pinned"],
        status=_STATUSES.get(row["status"]) or MemoryStatus(row["status"]),
        held_until_stage=(_STAGES.get(held) or Stage(held)) if held else None,
        expires_at=row["expires_at"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        last_used_at=row["last_used_at"],
        last_confirmed_at=row["last_confirmed_at"],
        use_count=row["use_count"],
        index_state=_INDEX_STATES.get(row["index_state"]) or IndexState(row["index_state"]),
        indexed_model=row["indexed_model"],
        index_attempts=row["index_attempts"],
        index_error=row["index_error"],
    )


def knowledge_item(row: Row) -> KnowledgeItem:
    return KnowledgeItem(
        row["id"],
        row["source_id"],
        row["companion_id"],
        row["source"],
        row["title"],
        row["chunk_index"],
        row["text"],
        row["updated_at"],
    )


def no_memory(memory_id: uuid.UUID | str) -> NotFoundError:
    return NotFoundError(f"No memory with id {memory_id} — `aria-mem list` shows them")


def prefix_pattern(prefix: str, what: str, where: str) -> str:
    """A LIKE pattern for an id given by its first characters."""
    return id_prefix(prefix, what, where) + "%"
