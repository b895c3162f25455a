"""The review questions in PostgreSQL that follow their memories: asked about the memory that
stands for one merged away or superseded, and put with the memory stated last second when one
is stated again (the rules: ``domain.hygiene.moved_question`` and ``reordered_question``)."""

from __future__ import annotations

import hashlib
import uuid
from datetime import datetime

import psycopg

from aria_mem.adapters.postgres import rows
from aria_mem.adapters.postgres.connection import Row
from aria_mem.domain import hygiene as rule
from aria_mem.domain.asking import as_it_stands
from aria_mem.domain.hygiene import EventKind, ReviewItem, ReviewKind
from aria_mem.domain.models import Memory

LOCK_ORDER = "created_at, id"
"""The order questions are locked in.

A merge, a supersession, a restatement and a forget each lock the open questions of the
memories they change first, in this order; then the memories table for writing
(``before_rows``: an import holds it while it updates rows); then the memories' rows, the one
a change keeps or the one it forgets before the ones it replaces; then the pair's word counts
(``pair_words``, by the memories' triggers). A merge holds the memory it goes into ``FOR NO KEY
UPDATE`` and an edit the memory it changes, so that a question's key check on it does not
wait for them. Taken so, the cycles found between merges, supersessions, restatements,
forgets, imports and a user's forgetting are gone (``tests/test_question_locks.py``); a cycle
is not lost data: PostgreSQL aborts one of the changes, which the store runs again
(``retry.rerun_on_deadlock``).

Not covered (docs/hygiene.md lists them): a question asked or moved onto a memory between two
statements of a change is taken after the others; a question being queued holds its memories
``FOR SHARE`` in the order of their ids, then the memory that stands for one (``standing``;
``settle`` too, after an import, for up to ``SETTLE_BATCH`` memories a transaction), then the
advisory lock of the pair it names as they stand (``one_at_a_time``: only ``propose`` takes
it, holding no more than those shared rows);
the updates of many rows at once that a reply's use count and the indexer make take rows in
the order their plan finds them, against a pass's merge (the kept memory, then the folded one)
and a forget (the forgotten memory, then those it replaced); the pass's record of a merge
holds the folded memory, then checks the kept one's key, against a forget of the kept one; an
import's history checks its memories' keys in file order, against forgetting their user."""


HOLD = "FOR NO KEY UPDATE"
"""How a merge holds the memory it goes into, and an edit the memory it changes: against other
writers, not against the key check of a question or event that comes to name it."""


def lock_questions(conn: psycopg.Connection[Row], memory_ids: list[uuid.UUID]) -> None:
    """Lock the open questions naming any of ``memory_ids``, in ``LOCK_ORDER``, first in a
    change that moves or deletes them: locked one memory's at a time, by a delete's cascade
    in the order it finds them, or after a memory's row, they were taken in another order
    than a concurrent restatement, merge or forget takes them."""
    locked_questions(conn, memory_ids)


def locked_questions(
    conn: psycopg.Connection[Row], memory_ids: list[uuid.UUID]
) -> list[ReviewItem]:
    """The open questions naming any of ``memory_ids``, locked in ``LOCK_ORDER``."""
    found = conn.execute(
        "SELECT * FROM review_items WHERE memory_id = ANY(%(m)s) OR other_id = ANY(%(m)s)"
        f" ORDER BY {LOCK_ORDER} FOR UPDATE",
        {"m": memory_ids},
    )
    return [review_item(row) for row in found.fetchall()]


def lock_for_forgetting_user(conn: psycopg.Connection[Row], user_id: str) -> None:
    """Every open question of ``user_id`` locked in ``LOCK_ORDER``, then the user's stages,
    then the memories table against every change of a row (before forgetting the user: the
    delete takes the user's rows in whatever order it finds them, which no other change
    follows; a stage set takes its relationship, then its memories). A key check of a row
    (a question or an event naming it) is not held off."""
    conn.execute(
        f"SELECT 1 FROM review_items WHERE user_id = %s ORDER BY {LOCK_ORDER} FOR UPDATE",
        (user_id,),
    )
    conn.execute(
        "SELECT 1 FROM relationships WHERE user_id = %s ORDER BY companion_id FOR UPDATE",
        (user_id,),
    )
    conn.execute("LOCK TABLE memories IN SHARE ROW EXCLUSIVE MODE")


def before_rows(conn: psycopg.Connection[Row]) -> None:
    """The memories table taken for writing before a change selects a memory's row to update
    it: an import holds the table (SHARE ROW EXCLUSIVE) while it updates rows, so a change
    that held a row and then needed the table for its update waited on the import while the
    import waited on that row."""
    conn.execute("LOCK TABLE memories IN ROW EXCLUSIVE MODE")


def move_questions(
    conn: psycopg.Connection[Row], gone: Memory, holder: Memory, said_at: datetime, merged: bool
) -> None:
    """Open questions about ``gone``, now ``merged`` into ``holder`` or superseded by it (whose
    fact was last stated ``said_at``), are asked about ``holder``
    (``domain.hygiene.moved_question``), so none waits on a memory that is no longer active;
    one that would be asked twice, or has nothing left to ask, is closed. The likely changes
    already asked about ``holder`` are put in the order that gives (``reordered_question``).
    The callers have locked the questions about both before anything else
    (``lock_questions``, in ``LOCK_ORDER``)."""
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
    items = locked_questions(conn, [memory_id])
    other_ids = [rule.other_of(item, memory_id) for item in items]
    wanted = [i for i in other_ids if i is not None]
    others: dict[uuid.UUID, Memory] = {}
    if wanted:  # one read for all of them
        read = conn.execute(f"SELECT {rows.MEMORY} FROM memories WHERE id = ANY(%s)", (wanted,))
        others = {m.id: m for m in map(rows.memory, read.fetchall())}
    return [
        (item, None if other_id is None else others.get(other_id))
        for item, other_id in zip(items, other_ids, strict=True)
    ]


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


def one_at_a_time(conn: psycopg.Connection[Row], item: ReviewItem) -> None:
    """Wait for any other transaction queueing a question of the same kind about the same
    memories, whichever way round: each would see no question yet and both would be queued
    (an advisory lock on the pair, released at commit). Taken after ``standing``'s shared row
    locks: a transaction waiting here holds no lock the one it waits for needs."""
    pair = sorted(str(i) for i in (item.memory_id, item.other_id) if i is not None)
    named = ":".join([item.kind.value, *pair]).encode()
    key = int.from_bytes(hashlib.blake2b(named, digest_size=8).digest(), "big", signed=True)
    conn.execute("SELECT pg_advisory_xact_lock(%s)", (key,))


def standing(
    conn: psycopg.Connection[Row], item: ReviewItem, *, retired_stand: bool = False
) -> ReviewItem | None:
    """``item`` as it is to be queued now (``domain.asking.as_it_stands``), with the memories
    it names held ``FOR SHARE`` until the question is queued (or put right, ``settle``): a
    merge or a forget of one of them waits, then moves or closes the question with the
    others, instead of moving them while this one is on its way (it stayed on the memory
    merged away). Taken in one statement; a memory that stands for one of them, after them."""
    named = [i for i in (item.memory_id, item.other_id) if i is not None]
    held: dict[uuid.UUID, Memory | None] = dict.fromkeys(named)
    found = conn.execute(
        f"SELECT {rows.MEMORY} FROM memories WHERE id = ANY(%s) ORDER BY id FOR SHARE", (named,)
    )
    held.update((m.id, m) for m in map(rows.memory, found.fetchall()))

    def find(memory_id: uuid.UUID) -> Memory | None:
        if memory_id not in held:
            row = conn.execute(
                f"SELECT {rows.MEMORY} FROM memories WHERE id = %s FOR SHARE", (memory_id,)
            ).fetchone()
            held[memory_id] = None if row is None else rows.memory(row)
        return held[memory_id]

    def merged(gone: Memory, holder: Memory) -> datetime | None:
        """When a pass merged ``gone`` into ``holder``, unless ``gone`` was restored since
        (the merge undone: a later supersession of it is another change)."""
        row = conn.execute(
            "SELECT m.at FROM memory_events m WHERE m.memory_id = %(h)s AND m.kind = %(merged)s"
            " AND m.other_id = %(g)s AND NOT EXISTS (SELECT 1 FROM memory_events r"
            "  WHERE r.memory_id = %(g)s AND r.kind = %(restored)s AND r.at > m.at)"
            " ORDER BY m.at DESC LIMIT 1",
            {
                "h": holder.id,
                "g": gone.id,
                "merged": EventKind.MERGED.value,
                "restored": EventKind.RESTORED.value,
            },
        ).fetchone()
        return None if row is None else row["at"]

    return as_it_stands(item, find, merged, retired_stand=retired_stand)


def settle(conn: psycopg.Connection[Row], memory_ids: list[uuid.UUID]) -> int:
    """The open questions naming any of ``memory_ids``, locked in ``LOCK_ORDER``, each asked
    as its memories stand (``standing``): moved off a memory superseded, or closed when
    nothing is left to ask; one on a retired memory stays, as retiring leaves it. How many
    changed."""
    changed = 0
    for item in locked_questions(conn, memory_ids):
        asked = standing(conn, item, retired_stand=True)
        if asked != item:
            _put(conn, item, asked)
            changed += 1
    return changed


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
