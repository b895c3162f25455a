"""A change PostgreSQL aborts to break a deadlock runs again (``retry.rerun_on_deadlock``), on
the embedded PostgreSQL and on the server: the user's forget succeeds where it failed with
"deadlock detected", and the other party's work is kept too."""

from __future__ import annotations

import threading

import psycopg
import pytest

from aria_mem.adapters.postgres import retry
from aria_mem.adapters.postgres.store import PostgresStore
from aria_mem.domain.models import Memory, NewMemory
from aria_mem.errors import NotFoundError, StoreError
from tests.lock_waits import finished_or_waiting


def _saved(store: PostgresStore, text: str) -> Memory:
    return store.memories.save(NewMemory("u1", "aria", text)).memory


def test_a_forget_that_loses_a_deadlock_runs_again_and_succeeds(
    store: PostgresStore, dsn: str
) -> None:
    """A forget of A holds A's row and waits for the memory A replaced, B, which another
    session holds; that session then asks for A: a circle. The other session waits ten
    seconds before it looks for deadlocks, the forget one, so PostgreSQL aborts the forget; it
    runs again once the other session commits, and both changes are kept."""
    for attempt in range(3):
        kept = _saved(store, f"The user lives in Nice ({attempt}).")
        replaced = _saved(store, f"The user lives in Lyon ({attempt}).")
        store.hygiene.supersede(replaced.id, kept.id, "a test")
        outcome = _forget_in_a_circle(store, dsn, kept, replaced)
        if outcome is not None:
            break
    else:
        pytest.fail("the forget never lost the deadlock (the machine stalled for a second)")
    if isinstance(outcome, BaseException):
        raise outcome
    assert isinstance(outcome, Memory) and outcome.id == kept.id
    with pytest.raises(NotFoundError):
        store.memories.get(kept.id)
    after = store.memories.get(replaced.id)
    assert after.superseded_by is None
    assert after.importance == pytest.approx(0.9)


def _forget_in_a_circle(
    store: PostgresStore, dsn: str, kept: Memory, replaced: Memory
) -> object | None:
    """What the forget of ``kept`` returned or raised; None when the circle closed too late
    for the forget's one look for it (PostgreSQL looks once, a second after a wait begins), so
    the other session lost instead."""
    outcome: list[object] = []

    def forget() -> None:
        try:
            outcome.append(store.memories.delete(kept.id))
        except BaseException as exc:  # handed to the test
            outcome.append(exc)

    with psycopg.connect(dsn) as other, psycopg.connect(dsn, autocommit=True) as probe:
        other.execute("SET deadlock_timeout = '10s'")
        other.execute("UPDATE memories SET importance = 0.9 WHERE id = %s", (replaced.id,))
        forgetting = threading.Thread(target=forget, daemon=True)
        forgetting.start()
        finished = finished_or_waiting(forgetting, probe, other.info.backend_pid)
        assert not finished, "the forget finished without waiting for the held row"
        try:  # the circle: the other session now wants the row the forget holds
            other.execute("UPDATE memories SET importance = 0.8 WHERE id = %s", (kept.id,))
        except psycopg.errors.DeadlockDetected:
            other.rollback()
            lost = True
        else:
            other.commit()
            lost = False
        forgetting.join(30)
    assert not forgetting.is_alive()
    assert len(outcome) == 1
    return None if lost else outcome[0]


def _deadlock() -> StoreError:
    try:
        raise psycopg.errors.DeadlockDetected("deadlock detected")
    except psycopg.errors.DeadlockDetected as exc:
        try:
            raise StoreError(f"PostgreSQL failed: {exc}") from exc
        except StoreError as error:
            return error


def test_a_change_that_keeps_losing_reports_its_deadlock_after_the_last_attempt() -> None:
    calls: list[int] = []

    @retry.rerun_on_deadlock
    def change() -> None:
        calls.append(1)
        raise _deadlock()

    with pytest.raises(StoreError, match="deadlock detected"):
        change()
    assert len(calls) == retry.ATTEMPTS


def test_a_change_that_fails_for_another_reason_runs_once() -> None:
    calls: list[int] = []

    @retry.rerun_on_deadlock
    def change() -> None:
        calls.append(1)
        raise StoreError("PostgreSQL failed: relation does not exist")

    with pytest.raises(StoreError, match="does not exist"):
        change()
    assert calls == [1]
