"""Forgetting a memory a pass joined into another, in the forget's transaction: the other
memory gets its own wording back (``domain.unjoining``), or the forget is refused."""

from __future__ import annotations

import uuid

import psycopg

from aria_mem.adapters.postgres import rows
from aria_mem.adapters.postgres.connection import Row
from aria_mem.adapters.postgres.questions import HOLD
from aria_mem.domain.hygiene import EventKind, MemoryEvent
from aria_mem.domain.unjoining import JOINED, KEPT_BOTH, own_wording, wording_taken
from aria_mem.domain.validation import normalize_text

_JOINED_INTO = """
SELECT memory_id AS kept FROM memory_events WHERE other_id = %(id)s AND kind = 'edited'
UNION
SELECT other_id FROM consolidations
 WHERE memory_id = %(id)s AND outcome = 'merged' AND undone_at IS NULL
   AND other_id IS NOT NULL AND (reason LIKE %(joined)s OR reason LIKE %(kept_both)s)
"""
"""The memories whose wording took in the memory's words: a join's edit names it (since this
aria-mem records that), or a pass's join of it, not undone, does."""


def give_back_wordings(conn: psycopg.Connection[Row], memory_id: uuid.UUID) -> None:
    """Before ``memory_id`` is deleted: each memory a join gave its words gets its own wording
    back, unchanged otherwise and with nothing recorded; a ``ValidationError`` when that would
    leave the words (the transaction then changes nothing)."""
    found = conn.execute(
        _JOINED_INTO,
        {"id": memory_id, "joined": f"%{JOINED}", "kept_both": f"%{KEPT_BOTH}"},
    ).fetchall()
    for kept in sorted(row["kept"] for row in found):
        if conn.execute(f"SELECT 1 FROM memories WHERE id = %s {HOLD}", (kept,)).fetchone() is None:
            continue
        history = [
            MemoryEvent(r["memory_id"], EventKind(r["kind"]), r["at"], r["other_id"], r["text"])
            for r in conn.execute(
                "SELECT memory_id, kind, at, other_id, text FROM memory_events"
                " WHERE memory_id = %s ORDER BY at, id",
                (kept,),
            )
        ]
        merged_on = conn.execute(
            "SELECT 1 FROM memory_events WHERE other_id = %s AND kind = 'merged'", (kept,)
        ).fetchone()
        own = own_wording(memory_id, kept, history, merged_on is not None)
        try:
            with conn.transaction():
                row = conn.execute(
                    "UPDATE memories SET text = %s, normalized_text = %s, updated_at = now(),"
                    " index_state = 'pending', index_attempts = 0"
                    f" WHERE id = %s RETURNING {rows.MEMORY}",
                    (own, normalize_text(own), kept),
                ).fetchone()
        except psycopg.errors.UniqueViolation:
            raise wording_taken(memory_id, kept) from None
        if row is not None:
            rows.reread_event_dates(conn, rows.memory(row))
