"""The review questions in PostgreSQL that follow their memories: asked about the memory that
stands for one merged away or superseded, and put with the memory stated last second when one
is stated again (the rules: ``domain.hygiene.moved_question`` and ``reordered_question``)."""

from __future__ import annotations

import uuid
from datetime import datetime

import psycopg

from aria_mem.adapters.postgres import rows
from aria_mem.adapters.postgres.connection import Row
from aria_mem.adapters.postgres.locks import QUESTION_ORDER, lock_questions
from aria_mem.domain import hygiene as rule
from aria_mem.domain.hygiene import ReviewItem, ReviewKind
from aria_mem.domain.models import Memory


def move_questions(
    conn: psycopg.Connection[Row], gone: Memory, holder: Memory, said_at: datetime, merged: bool
) -> None:
    """Open questions about ``gone``, now ``merged`` into ``holder`` or superseded by it (whose
    fact was last stated ``said_at``), are asked about ``holder``
    (``domain.hygiene.moved_question``), so none waits on a memory that is no longer active;
    one that would be asked twice, or has nothing left to ask, is closed. The likely changes
    already asked about ``holder`` are put in the order that gives (``reordered_question``).
    The questions about both are locked in one statement (``locks``; the callers lock them
    before anything else already)."""
    lock_questions(conn, [gone.id, holder.id])
    for item, other in _asked_about(conn, gone.id):
        moved = rule.moved_question(item, holder, other, said_at=said_at, merged=merged)
        _put(conn, item, moved)
    reorder_questions(conn, holder, said_at)


def reorder_questions(conn: psycopg.Connection[Row], said: Memory, said_at: datetime) -> None:
    """The likely changes asked about ``said``, stated again ``said_at``, in that order."""
    for item, other in _asked_about(conn, said.id):
        reordered = rule.reordered_question(item, said, other, said_at=said_at)
        if reordered is not None:
            _put(conn, item, reordered)


def _asked_about(
    conn: psycopg.Connection[Row], memory_id: uuid.UUID
) -> list[tuple[ReviewItem, Memory | None]]:
    """The open questions naming ``memory_id``, each with its other memory; locked, so two
    merges at once cannot move one twice."""
    found = conn.execute(
        "SELECT * FROM review_items WHERE memory_id = %(m)s OR other_id = %(m)s"
        f" ORDER BY {QUESTION_ORDER} FOR UPDATE",
        {"m": memory_id},
    ).fetchall()
    asked = []
    for row in found:
        item = review_item(row)
        other_id = rule.other_of(item, memory_id)
        other = None
        if other_id is not None:
            read = conn.execute(f"SELECT {rows.MEMORY} FROM memories WHERE id = %s", (other_id,))
            other = rows.memory(got) if (got := read.fetchone()) else None
        asked.append((item, other))
    return asked


def _put(conn: psycopg.Connection[Row], item: ReviewItem, changed: ReviewItem | None) -> None:
    """``item`` made ``changed``, or closed: when there is nothing left to ask, or the same
    question is already asked (one asked meanwhile wins: a savepoint takes the clash)."""
    if changed is not None:
        try:
            with conn.transaction():
                done = conn.execute(
                    "UPDATE review_items SET kind = %(k)s, memory_id = %(m)s,"
                    " other_id = %(o)s, reason = %(r)s WHERE id = %(id)s AND NOT EXISTS"
                    " (SELECT 1 FROM review_items WHERE kind = %(k)s AND memory_id = %(m)s"
                    "  AND other_id = %(o)s AND id <> %(id)s)",
                    {
                        "k": changed.kind.value,
                        "m": changed.memory_id,
                        "o": changed.other_id,
                        "r": changed.reason,
                        "id": item.id,
                    },
                )
            if done.rowcount == 1:
                return
        except psycopg.errors.UniqueViolation:
            pass
    conn.execute("DELETE FROM review_items WHERE id = %s", (item.id,))


def review_item(r: Row) -> ReviewItem:
    return ReviewItem(
        r["id"],
        r["user_id"],
        r["companion_id"],
        ReviewKind(r["kind"]),
        r["memory_id"],
        r["other_id"],
        r["reason"],
        r["created_at"],
    )
