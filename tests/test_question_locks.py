"""Review questions are locked in one order in PostgreSQL: a merge that moves the questions of
the memory it takes away and a restatement of the memory it goes into never wait on each other
in a circle (PostgreSQL then aborts one of them: a pass's merge, or the ordering of a write's
questions, fails)."""

from __future__ import annotations

import threading
import time
import uuid
from datetime import UTC, datetime, timedelta

import psycopg
import pytest

from aria_mem.adapters.postgres.store import PostgresStore
from aria_mem.domain.hygiene import ReviewItem, ReviewKind
from aria_mem.domain.models import Memory, MemoryStatus, NewMemory


def _saved(store: PostgresStore, text: str) -> Memory:
    return store.memories.save(NewMemory("u1", "aria", text)).memory


def _asked(store: PostgresStore, first: Memory, second: Memory, at: datetime) -> ReviewItem:
    item = ReviewItem(
        uuid.uuid4(), "u1", "aria", ReviewKind.CONFLICT, first.id, second.id, "a test", at
    )
    assert store.hygiene.propose(item)
    return item


def _until_waiting(conn: psycopg.Connection[tuple[int]], seconds: float = 10.0) -> None:
    """Until a session of this database waits for a lock."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        row = conn.execute(
            "SELECT count(*) FROM pg_stat_activity"
            " WHERE datname = current_database() AND wait_event_type = 'Lock'"
        ).fetchone()
        if row is not None and row[0]:
            return
        time.sleep(0.02)
    pytest.fail("the merge never waited for the question held elsewhere")


def test_a_merge_locks_no_question_while_it_waits_for_another(
    store: PostgresStore, dsn: str
) -> None:
    """Another session (a restatement of the memory merged into, locking its questions in
    their order) holds the first question about that memory; the merge waits for it before it
    locks the later one it shares with the memory it takes away, so the other session can
    still lock that one and finish."""
    gone, holder, third = (_saved(store, t) for t in ("Lives in Lyon.", "Lives in Nice.", "Z."))
    earlier = datetime.now(UTC) - timedelta(hours=1)
    first = _asked(store, holder, third, earlier)  # locked first: created first
    shared = _asked(store, gone, holder, earlier + timedelta(minutes=1))
    with psycopg.connect(dsn) as elsewhere, psycopg.connect(dsn, autocommit=True) as probe:
        elsewhere.execute("SELECT 1 FROM review_items WHERE id = %s FOR UPDATE", (first.id,))
        merging = threading.Thread(
            target=store.hygiene.supersede, args=(gone.id, holder.id, "a test"), daemon=True
        )
        merging.start()
        try:
            _until_waiting(probe)
            probe.execute(  # LockNotAvailable if the waiting merge already held it
                "SELECT 1 FROM review_items WHERE id = %s FOR UPDATE NOWAIT", (shared.id,)
            )
        finally:
            elsewhere.rollback()
            merging.join(10)
    assert not merging.is_alive()
    assert store.memories.get(gone.id).status is MemoryStatus.SUPERSEDED
    open_ids = {item.id for item in store.hygiene.reviews("u1", "aria")}
    assert open_ids == {first.id}  # the shared one asked about one memory now: closed
