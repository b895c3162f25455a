"""Review questions and the memories they name are locked so that a merge, a forget and a
restatement of a memory they share never wait on each other in a circle (PostgreSQL then
aborts one of them: a pass's merge, a forget, or the ordering of a write's questions fails).
Each test holds, in another session, what a concurrent restatement would hold, and shows the
change waits for it before it takes anything that restatement needs next."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from functools import partial
from typing import Any

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


@contextmanager
def _running(change: Callable[[], Any]) -> Iterator[threading.Thread]:
    """``change`` in a thread of its own, for the length of the block (then up to 10 s more)."""
    thread = threading.Thread(target=change, daemon=True)
    thread.start()
    try:
        yield thread
    finally:
        thread.join(10)


def _waits_for(probe: psycopg.Connection[Any], holder_pid: int, seconds: float = 10.0) -> None:
    """Until a session waits for a lock that session ``holder_pid`` holds."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        row = probe.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE %s = ANY(pg_blocking_pids(pid))",
            (holder_pid,),
        ).fetchone()
        if row is not None and row[0]:
            return
        time.sleep(0.02)
    pytest.fail("the change never waited for what the other session holds")


def _takes_in_order(
    dsn: str, change: Callable[[], Any], held: ReviewItem, later: ReviewItem
) -> threading.Thread:
    """``change`` run while another session holds question ``held``, as a restatement that
    locks its questions in order does: once the change waits for it, it must not hold
    ``later``, which that restatement takes next (LockNotAvailable if it does). The change's
    thread, done once the other session let go."""
    with psycopg.connect(dsn) as elsewhere, psycopg.connect(dsn, autocommit=True) as probe:
        elsewhere.execute("SELECT 1 FROM review_items WHERE id = %s FOR UPDATE", (held.id,))
        try:
            with _running(change) as thread:
                _waits_for(probe, elsewhere.info.backend_pid)
                probe.execute(
                    "SELECT 1 FROM review_items WHERE id = %s FOR UPDATE NOWAIT", (later.id,)
                )
                elsewhere.rollback()
        finally:
            elsewhere.rollback()
    return thread


def test_a_supersession_locks_no_later_question_while_it_waits_for_an_earlier(
    store: PostgresStore, dsn: str
) -> None:
    """Another session (a restatement of the memory superseding, locking its questions in
    their order) holds that memory's first question; the supersession waits for it before it
    locks the later one it shares with the memory it replaces, so the restatement can still
    lock that one and finish. It locked the replaced memory's questions first."""
    gone, holder, third = (_saved(store, t) for t in ("Lives in Lyon.", "Lives in Nice.", "Z."))
    earlier = datetime.now(UTC) - timedelta(hours=1)
    first = _asked(store, holder, third, earlier)
    shared = _asked(store, gone, holder, earlier + timedelta(minutes=1))
    supersede = partial(store.hygiene.supersede, gone.id, holder.id, "a test")
    assert not _takes_in_order(dsn, supersede, first, shared).is_alive()
    assert store.memories.get(gone.id).status is MemoryStatus.SUPERSEDED
    assert {item.id for item in store.hygiene.reviews("u1", "aria")} == {first.id}


@pytest.mark.parametrize("merge", ["fold", "merge_into"])
def test_a_merge_never_waits_for_the_key_check_of_a_question(
    store: PostgresStore, dsn: str, merge: str
) -> None:
    """A restatement that swaps a question's two memories has PostgreSQL check the memory
    now named (FOR KEY SHARE) while it holds the question; a merge into that memory must not
    wait for that check, or, once it waits for the same question, the two wait on each
    other. A pass's merge and a repeat merged on write held the memory FOR UPDATE."""
    holder, new = _saved(store, "Lives in Nice."), _saved(store, "Lives in Nice, France.")
    key_check = "SELECT 1 FROM memories WHERE id = %s FOR KEY SHARE"
    merges: dict[str, Callable[[], Any]] = {
        "fold": lambda: store.hygiene.fold(new.id, holder.id, "a test"),
        "merge_into": lambda: store.hygiene.merge_into(
            holder.id, said="Nice.", text=None, importance=0.5, confidence=0.9, detail="a test"
        ),
    }
    with psycopg.connect(dsn) as elsewhere:
        elsewhere.execute(key_check, (holder.id,))
        try:
            with _running(merges[merge]) as merging:
                merging.join(5)
                finished = not merging.is_alive()
                elsewhere.rollback()
        finally:
            elsewhere.rollback()
    assert finished, "the merge waited for a question's key check"
    assert store.memories.get(holder.id).last_confirmed_at is not None


@pytest.mark.parametrize("forget", ["a memory", "the user"])
def test_a_forget_locks_no_later_question_while_it_waits_for_an_earlier(
    store: PostgresStore, dsn: str, forget: str
) -> None:
    """Forgetting a memory (or everything of its user) deletes its questions; another session
    (a restatement of it) holds its first question. The forget waits for that one before it
    takes a later one. Its delete's cascade took them in the order it found them: the later
    question first."""
    forgotten, before, after = (_saved(store, t) for t in ("Lives in Lyon.", "Y.", "Z."))
    earlier = datetime.now(UTC) - timedelta(hours=1)
    first = _asked(store, before, forgotten, earlier)  # names it second
    later = _asked(store, forgotten, after, earlier + timedelta(minutes=1))  # names it first
    forgets: dict[str, Callable[[], Any]] = {
        "a memory": lambda: store.memories.delete(forgotten.id),
        "the user": lambda: store.erasure.erase_user("u1"),
    }
    assert not _takes_in_order(dsn, forgets[forget], first, later).is_alive()
    assert store.hygiene.reviews("u1", "aria") == []
