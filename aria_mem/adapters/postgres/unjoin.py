"""Forgetting a memory a pass joined into another, in the forget's transaction: the other
memory gets its own wording back (``domain.unjoining``), or the forget is refused.

Locks: the memories a join gave the forgotten one's words are held before the forgotten one's
row, as a merge holds the memory it keeps before the one it folds; a join's edit holds the
memory whose words it takes in (``hold_joined``), so a forget and a join of one memory never
pass each other unseen."""

from __future__ import annotations

import uuid

import psycopg

from aria_mem.adapters.postgres import rows
from aria_mem.adapters.postgres.connection import Row
from aria_mem.adapters.postgres.questions import HOLD
from aria_mem.domain.hygiene import EventKind, MemoryEvent
from aria_mem.domain.unjoining import (
    CLOCK_SLACK,
    JOINED,
    KEPT_BOTH,
    join_edit,
    own_wording,
    wording_taken,
)
from aria_mem.domain.validation import no_memory, normalize_text

_JOINED_INTO = """
SELECT kept.id AS kept FROM memories gone
  JOIN memory_events e ON e.other_id = gone.id AND e.kind = 'edited'
  JOIN memories kept ON kept.id = e.memory_id
 WHERE gone.id = %(id)s
   AND (kept.user_id, kept.companion_id) = (gone.user_id, gone.companion_id)
UNION
SELECT kept.id FROM memories gone
  JOIN consolidations c ON c.memory_id = gone.id
  JOIN memories kept ON kept.id = c.other_id
 WHERE gone.id = %(id)s AND c.outcome = 'merged' AND c.undone_at IS NULL
   AND (c.reason LIKE %(joined)s OR c.reason LIKE %(kept_both)s)
   AND (kept.user_id, kept.companion_id) = (gone.user_id, gone.companion_id)
"""
"""The memories of the same user and companion whose wording took in the memory's words: a
join's edit names it (since this aria-mem records that), or a pass's join of it, not undone,
does. Another pair's memory is never changed nor named by a forget, whatever an imported
history says."""

_SINCE = """
SELECT EXISTS (SELECT 1 FROM review_items
                WHERE (memory_id = %(kept)s OR other_id = %(kept)s) AND created_at > %(early)s)
    OR EXISTS (SELECT 1 FROM consolidations
                WHERE (memory_id = %(kept)s OR other_id = %(kept)s) AND at > %(early)s
                  AND memory_id <> %(gone)s) AS asked,
       (SELECT last_confirmed_at > %(at)s FROM memories WHERE id = %(kept)s) AS said
"""
"""A question or a pass's action naming the memory made after the join (the join's own action,
which names the forgotten memory first, aside; ``CLOCK_SLACK`` earlier: their times are the
program's), and whether its wording was said again or confirmed since (PostgreSQL's time)."""


def joined_into(conn: psycopg.Connection[Row], memory_id: uuid.UUID) -> list[uuid.UUID]:
    """The memories a join gave ``memory_id``'s words, in lock order."""
    found = conn.execute(
        _JOINED_INTO,
        {"id": memory_id, "joined": f"%{JOINED}", "kept_both": f"%{KEPT_BOTH}"},
    ).fetchall()
    return sorted(row["kept"] for row in found)


def hold(conn: psycopg.Connection[Row], memories: list[uuid.UUID]) -> None:
    """Each memory's row held against other writers, in the order given."""
    for memory_id in memories:
        conn.execute(f"SELECT 1 FROM memories WHERE id = %s {HOLD}", (memory_id,))


def hold_joined(conn: psycopg.Connection[Row], joins: uuid.UUID | None) -> None:
    """In a join's edit: the memory whose words it takes in, held against a forget until the
    edit commits; gone, the join is not made (a forget in between would have missed it)."""
    if joins is None:
        return
    held = conn.execute("SELECT 1 FROM memories WHERE id = %s FOR KEY SHARE", (joins,))
    if held.fetchone() is None:
        raise no_memory(joins)


def wordings_back(conn: psycopg.Connection[Row], memory_id: uuid.UUID) -> dict[uuid.UUID, str]:
    """Before ``memory_id`` is deleted (its row held): each memory a join gave its words, with
    the wording to give it back, each held; a ``ValidationError`` when that would leave the
    words or lose a fact (nothing is changed yet)."""
    given: dict[uuid.UUID, str] = {}
    for kept in joined_into(conn, memory_id):
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
        at = history[join_edit(memory_id, kept, history)].at
        since = conn.execute(
            _SINCE, {"kept": kept, "at": at, "early": at - CLOCK_SLACK, "gone": memory_id}
        ).fetchone()
        given[kept] = own_wording(
            memory_id,
            kept,
            history,
            merged_on=merged_on is not None,
            asked_since=bool(since and since["asked"]),
            said_since=bool(since and since["said"]),
        )
    return given


def give_back(
    conn: psycopg.Connection[Row], forgotten: uuid.UUID, given: dict[uuid.UUID, str]
) -> None:
    """After the forgotten memory's delete: each wording back, unchanged otherwise, recorded
    nowhere, indexed again; a ``ValidationError`` when one is now another memory's."""
    for kept, own in given.items():
        try:
            with conn.transaction():
                row = conn.execute(
                    "UPDATE memories SET text = %s, normalized_text = %s, updated_at = now(),"
                    " index_state = 'pending', index_attempts = 0"
                    f" WHERE id = %s RETURNING {rows.MEMORY}",
                    (own, normalize_text(own), kept),
                ).fetchone()
        except psycopg.errors.UniqueViolation:
            raise wording_taken(forgotten, kept) from None
        if row is not None:
            rows.reread_event_dates(conn, rows.memory(row))
