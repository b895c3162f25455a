"""The one order in which changes to memories take their locks in PostgreSQL, so that two
changes that share a memory wait for each other, not in a circle (PostgreSQL breaks a circle
by aborting one of them, which then fails with an error; nothing committed is lost):

1. the open review questions of the memories a change touches, in one statement, ordered by
   when each was asked (``lock_questions``);
2. the memories table for writing (``before_rows``): an import holds it while it updates rows;
3. the memories' rows, all those a change will update in one statement, in id order
   (``lock_rows``), whether it changes one or many (a merge, a supersession, a forget, a
   reply's use counts, the indexer's marks, a stage's held memories);
4. the pair's word counts (``pair_words``, taken by the memories' triggers).

A merge and an edit hold their memory ``FOR NO KEY UPDATE`` (no key changes), so that the key
check of a question or an event naming it does not wait for them. ``tests/test_question_locks.py``
holds in another session what each concurrent change holds and shows the change waits for it
before it takes what that one needs next. What this order does not cover is listed in
docs/hygiene.md, "Locks"."""

from __future__ import annotations

import uuid
from collections.abc import Sequence

import psycopg

from aria_mem.adapters.postgres.connection import Row

QUESTION_ORDER = "created_at, id"
"""The order questions are locked in (step 1)."""


def lock_questions(conn: psycopg.Connection[Row], memory_ids: list[uuid.UUID]) -> None:
    """Step 1: the open questions naming any of ``memory_ids``, first in a change that moves
    or deletes them (locked one memory's at a time, by a delete's cascade in the order it
    finds them, or after a memory's row, they were taken in another order than a concurrent
    restatement, merge or forget takes them)."""
    conn.execute(
        "SELECT 1 FROM review_items WHERE memory_id = ANY(%(m)s) OR other_id = ANY(%(m)s)"
        f" ORDER BY {QUESTION_ORDER} FOR UPDATE",
        {"m": memory_ids},
    )


def before_rows(conn: psycopg.Connection[Row]) -> None:
    """Step 2: the memories table taken for writing before a change locks a memory's row to
    update it (a change that held a row and then needed the table for its update waited on an
    import while the import waited on that row)."""
    conn.execute("LOCK TABLE memories IN ROW EXCLUSIVE MODE")


def lock_rows(
    conn: psycopg.Connection[Row],
    ids: Sequence[uuid.UUID],
    *,
    table: str = "memories",
    how: str = "FOR NO KEY UPDATE",
) -> None:
    """Steps 2 and 3: the table taken for writing, then the rows of ``ids`` (in ``table``:
    memories, or knowledge items, which only the indexer marks) locked in id order, in one
    statement, before a change updates them (each update took them in the order its plan
    found them). ``how``: ``FOR UPDATE`` for a row to be deleted."""
    conn.execute(f"LOCK TABLE {table} IN ROW EXCLUSIVE MODE")
    conn.execute(f"SELECT 1 FROM {table} WHERE id = ANY(%s) ORDER BY id {how}", (list(ids),))


def lock_for_forgetting_user(conn: psycopg.Connection[Row], user_id: str) -> None:
    """Before forgetting a user: every open question of theirs (step 1), then their stages,
    then the memories table against every change of a row (the delete then takes the user's
    rows in whatever order it finds them; a stage set takes its relationship, then its
    memories). A key check of a row (a question or an event naming it) is not held off."""
    conn.execute(
        f"SELECT 1 FROM review_items WHERE user_id = %s ORDER BY {QUESTION_ORDER} FOR UPDATE",
        (user_id,),
    )
    conn.execute(
        "SELECT 1 FROM relationships WHERE user_id = %s ORDER BY companion_id FOR UPDATE",
        (user_id,),
    )
    conn.execute("LOCK TABLE memories IN SHARE ROW EXCLUSIVE MODE")
