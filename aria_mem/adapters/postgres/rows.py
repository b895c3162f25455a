"""From rows to records, and the SQL fragments several queries share."""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import psycopg
from psycopg.rows import tuple_row

from aria_mem.adapters.postgres.connection import Row
from aria_mem.domain.models import (
    MEMORY_FIELDS,
    IndexState,
    Kind,
    KnowledgeItem,
    Memory,
    MemoryStatus,
    MemoryType,
    Stage,
)
from aria_mem.domain.usability import LATER_END_SQL, usable_sql
from aria_mem.domain.validation import EARLIEST, LATEST, id_prefix, only_match
from aria_mem.domain.when import event_dates
from aria_mem.errors import NotFoundError

JOIN_RELATIONSHIP = (
    "LEFT JOIN relationships r ON r.user_id = m.user_id AND r.companion_id = m.companion_id"
)
USABLE = usable_sql()
"""``domain.usability``'s rule over ``memories m`` joined with ``JOIN_RELATIONSHIP``."""

TABLES = {Kind.MEMORY: "memories", Kind.KNOWLEDGE: "knowledge_items"}
"""Where each kind of index entry lives."""

SAID_AGAIN_SET = "last_confirmed_at = now(), " + ", ".join(
    f"{column} = CASE WHEN {LATER_END_SQL} THEN {value} ELSE memories.{column} END"
    for column, value in (
        ("expires_at", "EXCLUDED.expires_at"),
        ("updated_at", "now()"),
        ("index_state", "'pending'"),
        ("index_attempts", "0"),
    )
)
"""What the same words said again change in their row (``INSERT ... ON CONFLICT DO
UPDATE SET``): confirmed; renewed (``domain.usability.renewed_end``) and so indexed again, as
an edit is, when said with a later end."""

TIMESTAMPS = ("expires_at", "created_at", "updated_at", "last_used_at", "last_confirmed_at")
OUT_OF_RANGE = " OR ".join(f"m.{c} < %(earliest)s OR m.{c} > %(latest)s" for c in TIMESTAMPS)
"""True for a row an older aria-mem let in with a timestamp Python cannot hold."""

_MEMORY_COLUMNS = MEMORY_FIELDS
_MEMORY_WIDTH = len(_MEMORY_COLUMNS)
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


def tuples(
    conn: psycopg.Connection[Row], query: str, params: Sequence[Any] | Mapping[str, Any]
) -> list[tuple[Any, ...]]:
    """A read's rows as tuples, for ``memory_at``: the reads of a retrieval take them so.
    Prepared on the connection from its first use (psycopg would wait for the fifth): the
    same few statements serve every turn."""
    return conn.cursor(row_factory=tuple_row).execute(query, params, prepare=True).fetchall()


def memory(row: Row) -> Memory:
    return memory_at([row[name] for name in _MEMORY_COLUMNS])


def memory_at(values: Sequence[Any], start: int = 0) -> Memory:
    """A Memory from a tuple row holding ``memory_columns()`` in order from ``start``. The
    reads of a retrieval take their rows as tuples: a dict per row cost more than the Memory."""
    (
        memory_id,
        user_id,
        companion_id,
        memory_type,
        text,
        importance,
        emotional_significance,
        confidence,
        reason,
        pinned,
        status,
        held,
        expires_at,
        created_at,
        updated_at,
        last_used_at,
        last_confirmed_at,
        use_count,
        index_state,
        indexed_model,
        index_attempts,
        index_error,
        superseded_by,
        event_from,
        event_until,
    ) = values[start : start + _MEMORY_WIDTH]
    return Memory(  # the names every row repeats as one string each, so a result sent whole
        id=memory_id,  # to a program (``api.wire``, pickled) carries each once
        user_id=sys.intern(user_id),
        companion_id=sys.intern(companion_id),
        type=_TYPES.get(memory_type) or MemoryType(memory_type),
        text=text,
        importance=float(importance),
        emotional_significance=float(emotional_significance),
        confidence=float(confidence),
        reason=reason,
        pinned=pinned,
        status=_STATUSES.get(status) or MemoryStatus(status),
        held_until_stage=(_STAGES.get(held) or Stage(held)) if held else None,
        expires_at=expires_at,
        created_at=created_at,
        updated_at=updated_at,
        last_used_at=last_used_at,
        last_confirmed_at=last_confirmed_at,
        use_count=use_count,
        index_state=_INDEX_STATES.get(index_state) or IndexState(index_state),
        indexed_model=indexed_model if indexed_model is None else sys.intern(indexed_model),
        index_attempts=index_attempts,
        index_error=index_error,
        superseded_by=superseded_by,
        event_from=event_from,
        event_until=event_until,
    )


def reread_event_dates(conn: psycopg.Connection[Row], memory: Memory) -> Memory:
    """After its text changed: store the date its new text names, counted from when the
    memory was first said."""
    event_from, event_until = event_dates(memory.text, memory.created_at)
    if (event_from, event_until) == (memory.event_from, memory.event_until):
        return memory
    conn.execute(
        "UPDATE memories SET event_from = %s, event_until = %s WHERE id = %s",
        (event_from, event_until, memory.id),
    )
    return replace(memory, event_from=event_from, event_until=event_until)


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


def prefix_pattern(prefix: str, what: str, where: str) -> str:
    """A LIKE pattern for an id given by its first characters."""
    return id_prefix(prefix, what, where) + "%"


def owned_by_prefix(
    conn: psycopg.Connection[Row],
    table: str,
    prefix: str,
    owner: tuple[str, str] | None,
    *,
    what: str,
    noun: str,
    where: str,
    missing: str,
) -> Row:
    """The one row of ``table`` (one of aria-mem's own, named by the code, with ``user_id``
    and ``companion_id`` columns) whose id starts with ``prefix``, among ``owner``'s rows when
    given; ``missing`` is the refusal when none does."""
    user, companion = owner or (None, None)
    found = conn.execute(
        f"SELECT * FROM {table} WHERE id::text LIKE %s"
        " AND (%s::text IS NULL OR (user_id = %s AND companion_id = %s)) LIMIT 2",
        (prefix_pattern(prefix, what, where), user, user, companion),
    ).fetchall()
    if not found:
        raise NotFoundError(missing)
    return only_match(found, prefix, noun, where)
