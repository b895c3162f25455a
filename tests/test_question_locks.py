"""Changes that share a memory take their locks in one order (``questions.LOCK_ORDER``: the
memories' open questions, the memories table for writing, the memories' rows, the pair's word
counts), so that a merge, a supersession, an edit, a forget, an import, forgetting a user and
a restatement wait for each other, not in a circle (PostgreSQL then aborts one of them). Each
test holds, in another session, what a concurrent change would hold, and shows the change
waits for it before it takes what that one needs next."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg
import pytest

from aria_mem.adapters.postgres.store import PostgresStore
from aria_mem.domain.hygiene import ReviewItem, ReviewKind
from aria_mem.domain.models import Memory, MemoryStatus, NewMemory, Stage
from aria_mem.domain.records import MemoryChanges
from tests.lock_waits import finished_or_waiting

HOLD_QUESTION = "SELECT 1 FROM review_items WHERE id = %s FOR UPDATE"
"""What a restatement holds while it puts a memory's questions in order."""
WORD_COUNTS = (
    "SELECT 1 FROM pair_words WHERE user_id = %s AND companion_id = %s AND word = ''"
    " FOR UPDATE NOWAIT"
)
"""The pair's word counts, taken at once or not at all."""
ROWS = "SELECT 1 FROM memories WHERE id = ANY(%s) FOR UPDATE NOWAIT"
"""Memories' rows, taken at once or not at all."""


def _saved(store: PostgresStore, text: str) -> Memory:
    return store.memories.save(NewMemory("u1", "aria", text)).memory


def _asked(store: PostgresStore, first: Memory, second: Memory, at: datetime) -> ReviewItem:
    item = ReviewItem(
        uuid.uuid4(), "u1", "aria", ReviewKind.CONFLICT, first.id, second.id, "a test", at
    )
    assert store.hygiene.propose(item)
    return item


def _while_held(
    dsn: str,
    hold: tuple[str, tuple[object, ...]],
    change: Callable[[], Any],
    then: Callable[[psycopg.Connection[Any], bool], None],
) -> None:
    """``change`` run in a thread while another session holds ``hold`` (a statement and its
    parameters); ``then(probe, finished)`` once the change has finished or waits for that
    session, before the session lets go (and the change, if it waited, finishes; what it
    raised, a deadlock among them, is raised here)."""
    failed: list[BaseException] = []

    def run() -> None:
        try:
            change()
        except BaseException as exc:  # raised below, in the test
            failed.append(exc)

    with psycopg.connect(dsn) as elsewhere, psycopg.connect(dsn, autocommit=True) as probe:
        elsewhere.execute(*hold)
        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        try:
            then(probe, finished_or_waiting(thread, probe, elsewhere.info.backend_pid))
        finally:
            elsewhere.rollback()
            thread.join(10)
    assert not thread.is_alive()
    if failed:
        raise failed[0]


def _waited_then_free(statement: str, *params: object) -> Callable[..., None]:
    """The check that the change waited, and that ``statement`` (a NOWAIT lock of what the
    other session would take next) is free meanwhile: LockNotAvailable if the change holds it."""

    def check(probe: psycopg.Connection[Any], finished: bool) -> None:
        assert not finished, "the change did not wait for the question held elsewhere"
        probe.execute(statement, params)

    return check


def test_a_supersession_locks_no_later_question_while_it_waits_for_an_earlier(
    store: PostgresStore, dsn: str
) -> None:
    """A restatement of the memory superseding holds that memory's first question; the
    supersession waits for it before it locks the later one it shares with the memory it
    replaces, which the restatement takes next. It locked the replaced memory's first."""
    gone, holder, third = (_saved(store, t) for t in ("Lives in Lyon.", "Lives in Nice.", "Z."))
    earlier = datetime.now(UTC) - timedelta(hours=1)
    first = _asked(store, holder, third, earlier)
    shared = _asked(store, gone, holder, earlier + timedelta(minutes=1))
    _while_held(
        dsn,
        (HOLD_QUESTION, (first.id,)),
        lambda: store.hygiene.supersede(gone.id, holder.id, "a test"),
        _waited_then_free("SELECT 1 FROM review_items WHERE id = %s FOR UPDATE NOWAIT", shared.id),
    )
    assert store.memories.get(gone.id).status is MemoryStatus.SUPERSEDED
    assert {item.id for item in store.hygiene.reviews("u1", "aria")} == {first.id}


@pytest.mark.parametrize("change", ["supersede", "fold", "merge_into"])
def test_a_merge_takes_the_questions_before_the_memories(
    store: PostgresStore, dsn: str, change: str
) -> None:
    """A restatement (or a forget) holds a question of the memories a merge or supersession
    changes; the change waits for it before it locks those memories' rows, which a forget
    takes next and a restatement's key check needs. It locked the rows first: a forget of
    the same memory, waiting for the row with the questions in hand, deadlocked with it."""
    kept, other, third = (
        _saved(store, t) for t in ("Lives in Nice.", "Lives in Nice, France.", "Z.")
    )
    asked = _asked(store, kept, third, datetime.now(UTC) - timedelta(hours=1))
    changes: dict[str, Callable[[], Any]] = {
        "supersede": lambda: store.hygiene.supersede(kept.id, other.id, "a test"),
        "fold": lambda: store.hygiene.fold(other.id, kept.id, "a test"),
        "merge_into": lambda: store.hygiene.merge_into(
            kept.id, said="Nice.", text=None, importance=0.5, confidence=0.9, detail="a test"
        ),
    }
    _while_held(
        dsn,
        (HOLD_QUESTION, (asked.id,)),
        changes[change],
        _waited_then_free(ROWS, [kept.id, other.id]),
    )


@pytest.mark.parametrize("merge", ["fold", "merge_into"])
def test_a_merge_never_waits_for_the_key_check_of_a_question(
    store: PostgresStore, dsn: str, merge: str
) -> None:
    """A restatement that swaps a question's two memories has PostgreSQL check the memory
    now named (FOR KEY SHARE) while it holds the question; a merge into that memory must not
    wait for that check. It held the memory FOR UPDATE."""
    holder, new = _saved(store, "Lives in Nice."), _saved(store, "Lives in Nice, France.")
    merges: dict[str, Callable[[], Any]] = {
        "fold": lambda: store.hygiene.fold(new.id, holder.id, "a test"),
        "merge_into": lambda: store.hygiene.merge_into(
            holder.id, said="Nice.", text=None, importance=0.5, confidence=0.9, detail="a test"
        ),
    }

    def finished_at_once(probe: psycopg.Connection[Any], finished: bool) -> None:
        assert finished, "the merge waited for a question's key check"

    key_check = "SELECT 1 FROM memories WHERE id = %s FOR KEY SHARE"
    _while_held(dsn, (key_check, (holder.id,)), merges[merge], finished_at_once)
    assert store.memories.get(holder.id).last_confirmed_at is not None


@pytest.mark.parametrize("forget", ["a memory", "the user"])
def test_a_forget_locks_no_later_question_while_it_waits_for_an_earlier(
    store: PostgresStore, dsn: str, forget: str
) -> None:
    """Forgetting a memory (or everything of its user) deletes its questions; a restatement
    of it holds its first question. The forget waits for that one before it takes a later
    one. Its delete's cascade took them in the order it found them: the later first."""
    forgotten, before, after = (_saved(store, t) for t in ("Lives in Lyon.", "Y.", "Z."))
    earlier = datetime.now(UTC) - timedelta(hours=1)
    first = _asked(store, before, forgotten, earlier)  # names it second
    later = _asked(store, forgotten, after, earlier + timedelta(minutes=1))  # names it first
    forgets: dict[str, Callable[[], Any]] = {
        "a memory": lambda: store.memories.delete(forgotten.id),
        "the user": lambda: store.erasure.erase_user("u1"),
    }
    _while_held(
        dsn,
        (HOLD_QUESTION, (first.id,)),
        forgets[forget],
        _waited_then_free("SELECT 1 FROM review_items WHERE id = %s FOR UPDATE NOWAIT", later.id),
    )
    assert store.hygiene.reviews("u1", "aria") == []


def test_a_supersession_takes_the_replacing_memory_before_the_word_counts(
    store: PostgresStore, dsn: str
) -> None:
    """A forget of the replacing memory holds its row, then takes the pair's word counts; the
    supersession waits for that row before it changes the replaced memory (which takes the
    word counts). It changed the replaced memory first, then checked the replacing one's key
    for its history: the two waited on each other."""
    replaced, replacing = _saved(store, "Lives in Lyon."), _saved(store, "Lives in Nice.")
    forgetting = "SELECT 1 FROM memories WHERE id = %s FOR UPDATE"
    _while_held(
        dsn,
        (forgetting, (replacing.id,)),
        lambda: store.hygiene.supersede(replaced.id, replacing.id, "a test"),
        _waited_then_free(WORD_COUNTS, "u1", "aria"),
    )
    assert store.memories.get(replaced.id).superseded_by == replacing.id


@pytest.mark.parametrize("change", ["supersede", "fold", "merge_into", "edit", "delete"])
def test_a_change_waits_for_an_import_before_it_takes_a_row(
    store: PostgresStore, dsn: str, change: str
) -> None:
    """An import holds the memories table, then updates the rows its file names; a change
    of one of them waits for the table before it takes the row. A merge, a fold and an edit
    took the row, then waited for the table to update it, while the import waited for the
    row; a supersession and a forget took the table first already, and are held to it now
    that each takes a row of its own before it updates one."""
    kept, other = _saved(store, "Lives in Nice."), _saved(store, "Lives in Nice, France.")
    changes: dict[str, Callable[[], Any]] = {
        "supersede": lambda: store.hygiene.supersede(other.id, kept.id, "a test"),
        "fold": lambda: store.hygiene.fold(other.id, kept.id, "a test"),
        "merge_into": lambda: store.hygiene.merge_into(
            kept.id, said="Nice.", text=None, importance=0.5, confidence=0.9, detail="a test"
        ),
        "edit": lambda: store.memories.edit(kept.id, MemoryChanges(importance=0.9)),
        "delete": lambda: store.memories.delete(kept.id),
    }
    importing = ("LOCK TABLE memories IN SHARE ROW EXCLUSIVE MODE", ())
    _while_held(dsn, importing, changes[change], _waited_then_free(ROWS, [kept.id, other.id]))


@pytest.mark.parametrize("concurrent", ["an undo", "a pass's merge"])
def test_a_forget_takes_its_memory_then_what_it_replaced_then_the_word_counts(
    store: PostgresStore, dsn: str, concurrent: str
) -> None:
    """Forgetting a memory that replaced another. An undo of that supersession holds the
    memory it restores, then takes the pair's word counts: the forget waits for that memory
    before it takes the word counts (it deleted first, which took them). A pass's merge into
    the forgotten memory holds it, then the one it folds: the forget waits for it before it
    takes the memory it had replaced."""
    replaced, replacing = _saved(store, "Lives in Lyon."), _saved(store, "Lives in Nice.")
    store.hygiene.supersede(replaced.id, replacing.id, "a test")
    holding = "SELECT 1 FROM memories WHERE id = %s FOR NO KEY UPDATE"
    held, free = {
        "an undo": (replaced.id, _waited_then_free(WORD_COUNTS, "u1", "aria")),
        "a pass's merge": (replacing.id, _waited_then_free(ROWS, [replaced.id])),
    }[concurrent]
    _while_held(dsn, (holding, (held,)), lambda: store.memories.delete(replacing.id), free)
    assert store.memories.get(replaced.id).superseded_by is None


def test_forgetting_a_user_waits_for_a_stage_being_set_before_it_takes_the_memories(
    store: PostgresStore, dsn: str
) -> None:
    """Setting a stage holds the pair's relationship, then updates its memories; forgetting
    the user waits for that relationship before it takes the memories. It deleted the
    memories first, then waited for the relationship."""
    lives = _saved(store, "Lives in Nice.")
    store.relationships.set_stage("u1", "aria", Stage.ESTABLISHED)
    staging = "SELECT 1 FROM relationships WHERE user_id = %s FOR UPDATE"
    _while_held(
        dsn,
        (staging, ("u1",)),
        lambda: store.erasure.erase_user("u1"),
        _waited_then_free(ROWS, [lives.id]),
    )
    with psycopg.connect(dsn) as conn:
        assert conn.execute("SELECT count(*) FROM memories").fetchone() == (0,)


def test_a_question_waits_for_a_merge_of_its_memory_and_is_asked_about_the_one_kept(
    store: PostgresStore, dsn: str
) -> None:
    """Another session is merging a memory away (its row changed and the merge recorded, as a
    pass's merge does before it moves the open questions) while a pass queues a question
    about it: the question waits for the merge, then is asked about the memory kept, as moved
    by a merge. It did not wait, and stayed on the memory merged away."""
    kept, gone, other = (_saved(store, t) for t in ("Lives in Nice.", "Nice.", "Lives in Lyon."))
    item = ReviewItem(
        uuid.uuid4(),
        "u1",
        "aria",
        ReviewKind.CONFLICT,
        gone.id,
        other.id,
        "a test",
        gone.created_at,
    )
    queued: list[bool] = []
    with psycopg.connect(dsn) as merging, psycopg.connect(dsn, autocommit=True) as probe:
        merging.execute(
            "UPDATE memories SET status = 'superseded', superseded_by = %s WHERE id = %s",
            (kept.id, gone.id),
        )
        merging.execute(
            "INSERT INTO memory_events (memory_id, kind, other_id, text, detail)"
            " VALUES (%s, 'merged', %s, %s, 'a test')",
            (kept.id, gone.id, gone.text),
        )
        thread = threading.Thread(target=lambda: queued.append(store.hygiene.propose(item)))
        thread.start()
        finished = finished_or_waiting(thread, probe, merging.info.backend_pid)
        merging.commit()
        thread.join(10)
    assert not finished, "the question was queued while its memory was being merged away"
    assert queued == [True]
    [asked] = store.hygiene.reviews("u1", "aria")
    assert {asked.memory_id, asked.other_id} == {kept.id, other.id}
    assert asked.reason.startswith(
        f"asked first about a memory since merged into {str(kept.id)[:8]}"
    )
