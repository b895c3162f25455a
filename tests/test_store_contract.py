"""One contract for every store: PostgreSQL (embedded, and a server by DSN) and the in-memory
twin that lets service tests run without a database. Each port is exercised by its job."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from aria_mem.domain.hygiene import ReviewItem, ReviewKind
from aria_mem.domain.memory_line import memory_from_record, memory_to_record
from aria_mem.domain.models import (
    KNOWLEDGE_COLLECTION,
    MEMORIES_COLLECTION,
    IndexState,
    Kind,
    MemoryOrder,
    MemoryStatus,
    MemoryType,
    NewMemory,
    Stage,
)
from aria_mem.domain.profile import select_profile
from aria_mem.domain.records import MemoryChanges, PassReport
from aria_mem.domain.words import rarity
from aria_mem.errors import NotFoundError, StoreError
from aria_mem.ports import DaemonStart, Store


def _new(
    text: str = "The user is allergic to peanuts.", user: str = "u1", comp: str = "aria", **kw: Any
) -> NewMemory:
    return NewMemory(user_id=user, companion_id=comp, text=text, **kw)


# -- memories -----------------------------------------------------------------------------


def test_save_stores_every_field_and_starts_pending(any_store: Store) -> None:
    expires = datetime(2030, 1, 1, tzinfo=UTC)
    outcome = any_store.memories.save(
        _new(
            type=MemoryType.PROFILE_FACT,
            importance=0.9,
            emotional_significance=0.3,
            confidence=0.7,
            reason="said so",
            pinned=True,
            held_until_stage=Stage.CLOSE,
            expires_at=expires,
        )
    )
    m = any_store.memories.get(outcome.memory.id)
    assert outcome.created
    assert (m.type, m.pinned, m.reason) == (MemoryType.PROFILE_FACT, True, "said so")
    assert m.importance == pytest.approx(0.9)
    assert m.emotional_significance == pytest.approx(0.3)
    assert m.held_until_stage is Stage.CLOSE and m.expires_at == expires
    assert m.index_state is IndexState.PENDING and m.use_count == 0


def test_the_same_fact_again_confirms_instead_of_duplicating(any_store: Store) -> None:
    first = any_store.memories.save(_new("The user is allergic to peanuts."))
    again = any_store.memories.save(_new("  the user is ALLERGIC to peanuts "))
    assert not again.created and again.memory.id == first.memory.id
    assert again.memory.last_confirmed_at is not None
    assert again.memory.text == "The user is allergic to peanuts."
    assert len(any_store.memories.list_memories(user_id="u1", companion_id="aria")) == 1


def test_the_same_text_for_another_user_or_companion_is_a_new_memory(any_store: Store) -> None:
    any_store.memories.save(_new())
    assert any_store.memories.save(_new(user="u2")).created
    assert any_store.memories.save(_new(comp="nova")).created
    assert len(any_store.memories.list_memories(user_id=None, companion_id=None)) == 3


def test_edit_marks_pending_and_changes_updated_at(any_store: Store) -> None:
    m = any_store.memories.save(_new()).memory
    any_store.queue.mark_indexed(Kind.MEMORY, [(m.id, m.updated_at)], "ollama/x")
    assert any_store.memories.get(m.id).index_state is IndexState.INDEXED
    edited = any_store.memories.edit(m.id, MemoryChanges(text="The user is allergic to nuts."))
    assert edited.index_state is IndexState.PENDING
    assert edited.updated_at > m.updated_at
    assert edited.text == "The user is allergic to nuts."
    assert any_store.memories.edit(m.id, MemoryChanges()) == edited


def test_edit_into_an_existing_fact_is_refused(any_store: Store) -> None:
    any_store.memories.save(_new("A"))
    b = any_store.memories.save(_new("B")).memory
    with pytest.raises(StoreError, match="already says that"):
        any_store.memories.edit(b.id, MemoryChanges(text="a"))
    assert any_store.memories.get(b.id).text == "B"


def test_pin_archive_confirm_and_record_use(any_store: Store) -> None:
    m = any_store.memories.save(_new()).memory
    assert any_store.memories.edit(m.id, MemoryChanges(pinned=True)).pinned
    archived = any_store.memories.edit(m.id, MemoryChanges(status=MemoryStatus.ARCHIVED))
    assert archived.status is MemoryStatus.ARCHIVED and archived.index_state is IndexState.PENDING
    assert any_store.memories.confirm(m.id).last_confirmed_at is not None
    any_store.reads.record_use([m.id, m.id])
    used = any_store.memories.get(m.id)
    assert used.use_count == 1 and used.last_used_at is not None


def test_delete_removes_it_and_queues_the_vector_removal(any_store: Store) -> None:
    m = any_store.memories.save(_new("The user's secret is X.")).memory
    gone = any_store.memories.delete(m.id)
    assert gone.id == m.id
    with pytest.raises(NotFoundError):
        any_store.memories.get(m.id)
    assert any_store.memories.list_memories(user_id=None, companion_id=None) == []
    queued = any_store.queue.queued_deletions(10)
    assert [(q.collection, q.point_id) for q in queued] == [(MEMORIES_COLLECTION, m.id)]
    any_store.queue.note_deletion_failure([queued[0].id], "index down")
    assert any_store.queue.queued_deletions(10) == queued
    any_store.queue.drop_queued_deletions([q.id for q in queued])
    assert any_store.queue.queued_deletions(10) == []


def test_unknown_ids_raise_not_found(any_store: Store) -> None:
    missing = uuid.uuid4()
    actions: list[Callable[[], object]] = [
        lambda: any_store.memories.get(missing),
        lambda: any_store.memories.confirm(missing),
        lambda: any_store.memories.edit(missing, MemoryChanges(pinned=True)),
        lambda: any_store.memories.delete(missing),
    ]
    for action in actions:
        with pytest.raises(NotFoundError, match=str(missing)):
            action()
    assert any_store.queue.queued_deletions(10) == []


def test_find_prefix(any_store: Store) -> None:
    m = any_store.memories.save(_new()).memory
    assert any_store.memories.find_prefix(str(m.id)[:8]).id == m.id
    assert any_store.memories.find_prefix(str(m.id).upper()).id == m.id
    with pytest.raises(NotFoundError, match="not a memory id"):
        any_store.memories.find_prefix("zz")
    with pytest.raises(NotFoundError, match="too short"):
        any_store.memories.find_prefix(str(m.id)[:2])
    other = "ffffffff-ffff" if not str(m.id).startswith("ffff") else "0000000"
    with pytest.raises(NotFoundError, match="No memory with an id starting"):
        any_store.memories.find_prefix(other)


def test_list_filters_orders_and_limits(any_store: Store) -> None:
    first = any_store.memories.save(_new("one")).memory
    any_store.memories.save(_new("two", user="u2"))
    third = any_store.memories.save(_new("three")).memory
    any_store.memories.edit(third.id, MemoryChanges(status=MemoryStatus.ARCHIVED))
    mine = any_store.memories.list_memories(user_id="u1", companion_id="aria")
    assert [m.text for m in mine] == ["one", "three"]
    active = any_store.memories.list_memories(
        user_id="u1", companion_id="aria", status=MemoryStatus.ACTIVE
    )
    assert [m.id for m in active] == [first.id]
    assert len(any_store.memories.list_memories(user_id=None, companion_id=None, limit=2)) == 2
    every = list(any_store.memories.iter_all(batch_size=1))
    assert [m.id for m in every] == sorted((m.id for m in every), key=str) and len(every) == 3


def test_list_by_type_by_a_piece_of_text_and_newest_first(any_store: Store) -> None:
    any_store.memories.save(
        _new("The user's sister Maya loves pottery.", type=MemoryType.RELATIONSHIP_FACT)
    )
    any_store.memories.save(_new("The user is allergic to PEANUTS.", type=MemoryType.PROFILE_FACT))
    any_store.memories.save(
        _new("The user went 100% vegan; sister too", type=MemoryType.PROFILE_FACT)
    )
    profile = any_store.memories.list_memories(
        user_id="u1", companion_id="aria", type=MemoryType.PROFILE_FACT
    )
    assert [m.text[:20] for m in profile] == ["The user is allergic", "The user went 100% v"]
    sister = any_store.memories.list_memories(user_id="u1", companion_id="aria", contains="SISTER")
    assert len(sister) == 2
    assert [m.text[:8] for m in sister] == ["The user", "The user"]
    literal = any_store.memories.list_memories(user_id="u1", companion_id="aria", contains="0% v")
    assert len(literal) == 1  # no pattern characters: % is a percent sign
    assert any_store.memories.list_memories(user_id="u1", companion_id="aria", contains="_") == []
    oldest = any_store.memories.list_memories(user_id="u1", companion_id="aria")
    newest = any_store.memories.list_memories(user_id="u1", companion_id="aria", newest_first=True)
    assert [m.id for m in newest] == [m.id for m in reversed(oldest)]
    assert [m.id for m in newest][:1] == [
        m.id
        for m in any_store.memories.list_memories(
            user_id="u1", companion_id="aria", newest_first=True, limit=1
        )
    ]


def test_list_by_pin_hold_and_expiry_sorted_and_paged(any_store: Store) -> None:
    """What the review page's filters and paging ask of a store, the same on both."""
    pinned = any_store.memories.save(_new("pinned", pinned=True, importance=0.2)).memory
    held = any_store.memories.save(_new("held", held_until_stage=Stage.CLOSE, importance=0.9))
    ends = datetime(2031, 1, 1, tzinfo=UTC)
    expiring = any_store.memories.save(_new("expiring", expires_at=ends, importance=0.5))
    plain = any_store.memories.save(_new("plain", importance=0.7)).memory

    def texts(**kw: Any) -> list[str]:
        return [
            m.text
            for m in any_store.memories.list_memories(user_id="u1", companion_id="aria", **kw)
        ]

    assert texts(pinned=True) == ["pinned"]
    assert texts(pinned=False) == ["held", "expiring", "plain"]
    assert texts(held=True) == ["held"] and texts(expiring=True) == ["expiring"]
    assert texts(held=False, expiring=False) == ["pinned", "plain"]
    by_importance = ["pinned", "expiring", "plain", "held"]
    assert texts(order=MemoryOrder.IMPORTANCE) == by_importance
    assert texts(order=MemoryOrder.IMPORTANCE, newest_first=True) == by_importance[::-1]
    assert texts(order=MemoryOrder.IMPORTANCE, offset=1, limit=2) == by_importance[1:3]
    assert texts(offset=4) == []
    any_store.reads.record_use([plain.id])
    assert texts(order=MemoryOrder.USES, newest_first=True)[0] == "plain"
    assert texts(order=MemoryOrder.LAST_USED, newest_first=True)[0] == "plain"
    assert {held.memory.id, expiring.memory.id, pinned.id} <= {
        m.id for m in any_store.memories.list_memories(user_id="u1", companion_id="aria")
    }


def test_counts(any_store: Store) -> None:
    a = any_store.memories.save(_new("a")).memory
    any_store.memories.save(_new("b", held_until_stage=Stage.CLOSE))
    c = any_store.memories.save(_new("c")).memory
    any_store.memories.edit(c.id, MemoryChanges(status=MemoryStatus.ARCHIVED))
    any_store.queue.mark_indexed(Kind.MEMORY, [(a.id, a.updated_at)], "m")
    any_store.knowledge.learn("aria", "notes.md", "Notes", ["one", "two"])
    counts = any_store.memories.counts()
    assert (counts.total, counts.active, counts.archived) == (3, 2, 1)
    assert (counts.held, counts.indexed, counts.pending, counts.with_vector) == (1, 1, 2, 1)
    assert (counts.knowledge_passages, counts.knowledge_pending) == (2, 2)
    assert counts.unreadable == 0 and counts.queued_deletions == 0


def test_import_is_idempotent_by_id_merges_known_facts_and_leaves_unchanged_rows(
    any_store: Store,
) -> None:
    existing = any_store.memories.save(_new("The user plays chess.")).memory
    records = [
        memory_to_record(any_store.memories.save(_new(f"fact {i}")).memory) for i in range(3)
    ]
    for r in records:
        any_store.memories.delete(uuid.UUID(r["id"]))
    dup = dict(records[0], id=str(uuid.uuid4()), text="the user plays CHESS")
    memories = [memory_from_record(r) for r in [*records, dup]]
    first = any_store.memories.import_memories(memories)
    assert (first.inserted, first.updated, first.merged_duplicates) == (3, 0, 1)
    restored = any_store.memories.get(uuid.UUID(records[1]["id"]))
    any_store.queue.mark_indexed(Kind.MEMORY, [(restored.id, restored.updated_at)], "m")
    second = any_store.memories.import_memories(memories)
    assert (second.inserted, second.updated, second.unchanged) == (0, 0, 3)
    assert any_store.memories.get(restored.id).index_state is IndexState.INDEXED
    changed = [memory_from_record(dict(records[1], importance=0.25))]
    third = any_store.memories.import_memories(changed)
    assert (third.inserted, third.updated, third.unchanged) == (0, 1, 0)
    assert any_store.memories.get(restored.id).index_state is IndexState.PENDING
    assert len(any_store.memories.list_memories(user_id="u1", companion_id="aria")) == 4
    assert any_store.memories.get(existing.id).text == "The user plays chess."
    assert memory_to_record(any_store.memories.get(uuid.UUID(records[2]["id"]))) == records[2]


# -- retrieval reads and relationships ------------------------------------------------------


def test_retrieval_context_sends_exactly_the_profile_the_domain_rule_picks(
    any_store: Store,
) -> None:
    for i in range(8):
        any_store.memories.save(
            _new(f"profile fact {i}", type=MemoryType.PROFILE_FACT, importance=0.9 - i / 100)
        )
    any_store.memories.save(_new("pinned note", pinned=True, importance=0.1))
    boundary = any_store.memories.save(_new("no", type=MemoryType.BOUNDARY, importance=1.0))
    any_store.memories.edit(boundary.memory.id, MemoryChanges(status=MemoryStatus.ARCHIVED))
    held = any_store.memories.save(
        _new("held", type=MemoryType.PROFILE_FACT, importance=1.0, held_until_stage=Stage.CLOSE)
    )
    any_store.memories.save(_new("other user", user="u2", pinned=True))
    active = any_store.memories.list_memories(
        user_id="u1", companion_id="aria", status=MemoryStatus.ACTIVE
    )
    usable = [m for m in active if m.id != held.memory.id]
    stage, pool = any_store.reads.retrieval_context("u1", "aria", timeout=2)
    assert stage is Stage.EARLY
    assert [m.id for m in select_profile(pool)] == [m.id for m in select_profile(usable)]
    assert {m.text for m in pool} >= {"pinned note", "profile fact 0"}
    assert not {"no", "held", "other user"} & {m.text for m in pool}


def test_fetch_with_usability_is_postgresqls_final_say(any_store: Store) -> None:
    usable = any_store.memories.save(_new("usable")).memory
    held = any_store.memories.save(_new("held", held_until_stage=Stage.ESTABLISHED)).memory
    expired = any_store.memories.save(
        _new("expired", expires_at=datetime.now(UTC) - timedelta(days=1))
    ).memory
    archived = any_store.memories.save(_new("archived")).memory
    any_store.memories.edit(archived.id, MemoryChanges(status=MemoryStatus.ARCHIVED))
    gone = uuid.uuid4()
    ids = [usable.id, held.id, expired.id, archived.id, gone]
    flags = {i: ok for i, (_, ok) in any_store.reads.fetch_with_usability(ids, 2).items()}
    assert flags == {usable.id: True, held.id: False, expired.id: False, archived.id: False}
    any_store.relationships.set_stage("u1", "aria", Stage.ESTABLISHED)
    assert any_store.reads.fetch_with_usability([held.id], 2)[held.id][1] is True
    assert any_store.relationships.stage("u1", "aria") is Stage.ESTABLISHED
    assert any_store.relationships.stage("u1", "other") is Stage.EARLY


def test_setting_a_stage_makes_held_memories_pending(any_store: Store) -> None:
    held = any_store.memories.save(_new("held", held_until_stage=Stage.CLOSE)).memory
    free = any_store.memories.save(_new("free")).memory
    any_store.queue.mark_indexed(
        Kind.MEMORY, [(held.id, held.updated_at), (free.id, free.updated_at)], None
    )
    any_store.relationships.set_stage("u1", "aria", Stage.CLOSE)
    assert any_store.memories.get(held.id).index_state is IndexState.PENDING
    assert any_store.memories.get(free.id).index_state is IndexState.INDEXED


# -- the index queue ------------------------------------------------------------------------


def test_pending_entries_say_whether_they_may_be_used(any_store: Store) -> None:
    usable = any_store.memories.save(_new("usable")).memory
    held = any_store.memories.save(_new("held", held_until_stage=Stage.ESTABLISHED)).memory
    entries = any_store.queue.pending(Kind.MEMORY, 10)
    assert {e.id: e.usable for e in entries} == {usable.id: True, held.id: False}
    entry = next(e for e in entries if e.id == usable.id)
    assert entry.kind is Kind.MEMORY and entry.text == "usable"
    assert entry.version == usable.updated_at
    assert entry.payload["memory_id"] == str(usable.id) and "embedding_model" not in entry.payload
    any_store.queue.mark_failed(Kind.MEMORY, [usable.id], "model down")
    failed = any_store.memories.get(usable.id)
    assert failed.index_attempts == 1 and failed.index_error == "model down"
    assert [e.id for e in any_store.queue.pending(Kind.MEMORY, 10)][-1] == usable.id


def test_mark_indexed_skips_entries_changed_since_they_were_read(any_store: Store) -> None:
    m = any_store.memories.save(_new()).memory
    any_store.memories.edit(m.id, MemoryChanges(importance=0.2))
    assert any_store.queue.mark_indexed(Kind.MEMORY, [(m.id, m.updated_at)], "x") == 0
    assert any_store.memories.get(m.id).index_state is IndexState.PENDING


def test_the_queue_works_the_same_for_knowledge(any_store: Store) -> None:
    outcome = any_store.knowledge.learn("aria", "guide.md", "Guide", ["first", "second"])
    entries = any_store.queue.pending(Kind.KNOWLEDGE, 10)
    assert [e.text for e in entries] == ["first", "second"]
    assert all(e.kind is Kind.KNOWLEDGE and e.usable for e in entries)
    assert entries[0].payload["source_id"] == str(outcome.source_id)
    assert any_store.queue.pending_count() == 2
    done = any_store.queue.mark_indexed(Kind.KNOWLEDGE, [(e.id, e.version) for e in entries], "m")
    assert done == 2 and any_store.queue.pending_count() == 0
    assert any_store.queue.indexed_ids(Kind.KNOWLEDGE, "m") == {e.id for e in entries}
    assert any_store.queue.indexed_ids(Kind.MEMORY, "m") == set()
    assert any_store.queue.mark_pending(Kind.KNOWLEDGE, [entries[0].id]) == 1
    assert any_store.queue.pending_count() == 1


def test_unwanted_are_gone_or_settled_without_a_vector_of_the_model(any_store: Store) -> None:
    """What a sweep may remove: never the vector of a pending entry (a write in flight)."""
    queue = any_store.queue
    mine, other, unusable, waiting = (any_store.memories.save(_new(t)).memory for t in "abcd")
    queue.mark_indexed(Kind.MEMORY, [(mine.id, mine.updated_at)], "new")
    queue.mark_indexed(Kind.MEMORY, [(other.id, other.updated_at)], "old")
    queue.mark_indexed(Kind.MEMORY, [(unusable.id, unusable.updated_at)], None)
    gone = uuid.uuid4()
    asked = [mine.id, other.id, unusable.id, waiting.id, gone]
    assert queue.unwanted(Kind.MEMORY, asked, "new") == {other.id, unusable.id, gone}
    assert queue.unwanted(Kind.KNOWLEDGE, [gone], "new") == {gone}
    assert queue.unwanted(Kind.MEMORY, [], "new") == set()


def test_the_latest_reindex_run_says_which_model_and_comes_later(any_store: Store) -> None:
    runs = any_store.daemon
    assert runs.latest_reindex() is None
    runs.start_reindex("old", 5, background=False)
    first = runs.latest_reindex()
    runs.start_reindex("new", 7, background=False)
    runs.finish_reindex("new")
    latest = runs.latest_reindex()
    assert first is not None and latest is not None
    assert (first.model, latest.model) == ("old", "new") and latest.number > first.number
    assert first.started_at <= latest.started_at <= datetime.now(UTC)


def test_entries_of_another_model_become_pending(any_store: Store) -> None:
    old = any_store.memories.save(_new("old model")).memory
    new = any_store.memories.save(_new("new model")).memory
    none = any_store.memories.save(_new("no vector")).memory
    any_store.queue.mark_indexed(Kind.MEMORY, [(old.id, old.updated_at)], "old")
    any_store.queue.mark_indexed(Kind.MEMORY, [(new.id, new.updated_at)], "new")
    any_store.queue.mark_indexed(Kind.MEMORY, [(none.id, none.updated_at)], None)
    assert any_store.queue.mark_pending_for_model("new") == 1
    assert any_store.memories.get(old.id).index_state is IndexState.PENDING
    assert any_store.queue.mark_pending_for_model("new", force=True) == 2
    assert any_store.queue.pending_count() == 3


def test_expired_memories_lose_their_vector(any_store: Store) -> None:
    m = any_store.memories.save(
        _new("soon", expires_at=datetime.now(UTC) - timedelta(seconds=1))
    ).memory
    any_store.queue.mark_indexed(Kind.MEMORY, [(m.id, m.updated_at)], "x")
    assert any_store.queue.mark_expired_pending() == 1
    assert any_store.memories.get(m.id).index_state is IndexState.PENDING


# -- knowledge, conversations, daemon records ------------------------------------------------


def test_learning_a_source_again_replaces_it_and_forgetting_queues_its_vectors(
    any_store: Store,
) -> None:
    first = any_store.knowledge.learn("aria", "guide.md", "Guide", ["a", "b", "c"])
    again = any_store.knowledge.learn("aria", "guide.md", "Guide v2", ["a2"])
    assert again.source_id == first.source_id and again.replaced == 3
    assert {q.collection for q in any_store.queue.queued_deletions(10)} == {KNOWLEDGE_COLLECTION}
    any_store.knowledge.learn("nova", "other.md", "Other", ["x"])
    sources = any_store.knowledge.sources("aria")
    assert [(s.title, s.passages, s.pending) for s in sources] == [("Guide v2", 1, 1)]
    assert len(any_store.knowledge.sources(None)) == 2
    items = any_store.reads.knowledge_by_ids(
        [e.id for e in any_store.queue.pending(Kind.KNOWLEDGE, 9)]
    )
    assert {i.text for i in items.values()} == {"a2", "x"}
    with pytest.raises(NotFoundError, match="No knowledge source"):
        any_store.knowledge.forget("nova", str(first.source_id)[:8])
    assert [s.passages for s in any_store.knowledge.sources("aria")] == [1]
    gone = any_store.knowledge.forget("aria", str(first.source_id)[:8])
    assert gone.id == first.source_id and gone.passages == 1
    assert any_store.knowledge.sources("aria") == []
    assert len(any_store.queue.queued_deletions(10)) == 4
    with pytest.raises(NotFoundError, match="No knowledge source"):
        any_store.knowledge.forget("aria", str(first.source_id)[:8])


def test_conversations_resume_with_their_latest_turns(any_store: Store) -> None:
    log = any_store.conversations
    first = log.open_conversation("u1", "aria")
    assert log.open_conversation("u1", "aria") == first
    now = datetime.now(UTC)
    log.add_turns(first, [("user", "hello", now), ("assistant", "hi!", now), ("user", "bye", now)])
    assert log.recent_turns(first, 2) == [("assistant", "hi!"), ("user", "bye")]
    other = log.open_conversation("u1", "aria", new=True)
    assert other != first and log.recent_turns(other, 5) == []
    assert log.open_conversation("u2", "aria") not in (first, other)


def test_daemon_records(any_store: Store) -> None:
    records = any_store.daemon
    assert records.daemon_state() is None
    started = datetime.now(UTC)
    records.daemon_started(DaemonStart(4242, "host-a", started, 30.0))
    records.daemon_heartbeat(last_pass=PassReport(indexed=3, errors=["slow"]))
    state = records.daemon_state()
    assert state is not None and (state.pid, state.host, state.reconcile_interval) == (
        4242,
        "host-a",
        30.0,
    )
    assert state.last_pass is not None and state.last_pass.indexed == 3
    assert state.last_pass.errors == ["slow"]
    assert state.heartbeat_age_s is not None and state.heartbeat_age_s < 60
    assert state.stopped_at is None
    records.daemon_stopped()
    stopped = records.daemon_state()
    assert stopped is not None and stopped.stopped_at is not None


def test_reindex_runs(any_store: Store) -> None:
    any_store.memories.save(_new("waiting"))
    runs = any_store.daemon
    assert runs.open_reindex() is None
    runs.start_reindex("old", 5, background=False)
    runs.start_reindex("new", 7, background=True)
    run = runs.open_reindex()
    assert run is not None and (run.model, run.total, run.pending, run.background) == (
        "new",
        7,
        1,
        True,
    )
    assert run.done == 6
    runs.finish_reindex("new")
    assert runs.open_reindex() is None


def test_erase_user_removes_all_of_one_users_rows_and_queues_their_vectors(
    any_store: Store,
) -> None:
    from datetime import UTC, datetime

    mine = [
        any_store.memories.save(_new("one")).memory.id,
        any_store.memories.save(_new("two", comp="nova")).memory.id,
    ]
    theirs = any_store.memories.save(_new("three", user="u2")).memory.id
    any_store.relationships.set_stage("u1", "aria", Stage.CLOSE)
    any_store.relationships.set_stage("u2", "aria", Stage.CLOSE)
    at = datetime.now(UTC)
    talk = any_store.conversations.open_conversation("u1", "aria")
    any_store.conversations.add_turns(talk, [("user", "hi", at), ("assistant", "hello", at)])
    other_talk = any_store.conversations.open_conversation("u2", "aria")
    any_store.conversations.add_turns(other_talk, [("user", "yo", at)])
    before = {d.point_id for d in any_store.queue.queued_deletions(100)}

    erased = any_store.erasure.erase_user("u1")

    assert (erased.memories, erased.conversations, erased.turns, erased.relationships) == (
        2,
        1,
        2,
        1,
    )
    every = any_store.memories.list_memories(user_id=None, companion_id=None)
    assert [m.id for m in every] == [theirs]
    queued = {d.point_id for d in any_store.queue.queued_deletions(100)} - before
    assert queued == set(mine)
    assert any_store.relationships.stage("u1", "aria") is Stage.EARLY
    assert any_store.relationships.stage("u2", "aria") is Stage.CLOSE
    assert any_store.conversations.recent_turns(other_talk, 10) == [("user", "yo")]
    assert any_store.conversations.open_conversation("u1", "aria") != talk  # a new one
    assert any_store.erasure.erase_user("nobody").memories == 0


def test_conversations_are_listed_shown_and_forgotten(any_store: Store) -> None:
    from datetime import UTC, datetime

    at = datetime.now(UTC)
    log = any_store.conversations
    first = log.open_conversation("u1", "aria")
    log.add_turns(first, [("user", "my sister Maya", at), ("assistant", "tell me more", at)])
    second = log.open_conversation("u1", "aria", new=True)
    log.add_turns(second, [("user", "hello again", at)])
    log.open_conversation("u2", "aria")
    listed = log.list_conversations("u1", "aria")
    assert [c.id for c in listed] == [second, first]
    assert (listed[1].turns, listed[1].first_message) == (2, "my sister Maya")
    assert log.find_conversation(str(first)[:8]).id == first
    with pytest.raises(NotFoundError, match="is too short"):
        log.find_conversation("ab")
    assert log.turns(first) == [("user", "my sister Maya"), ("assistant", "tell me more")]
    assert log.forget_conversation(first) == 2
    assert [c.id for c in log.list_conversations("u1", "aria")] == [second]
    assert log.turns(first) == []
    with pytest.raises(NotFoundError):
        log.forget_conversation(first)


def test_turns_that_mention_a_memory_are_found_and_forgotten_within_the_pair(
    any_store: Store,
) -> None:
    from datetime import UTC, datetime

    at = datetime.now(UTC)
    log = any_store.conversations
    mine = log.open_conversation("u1", "aria")
    log.add_turns(
        mine,
        [
            ("user", "what should I buy for Maya my sister", at),
            ("assistant", "Maya might like a vase", at),
            ("user", "my sister's birthday is soon", at),
            ("user", "the weather is lovely", at),
        ],
    )
    theirs = log.open_conversation("u2", "aria")
    log.add_turns(theirs, [("user", "what should I buy for Maya my sister", at)])
    other_companion = log.open_conversation("u1", "nova")
    log.add_turns(other_companion, [("user", "Maya my sister", at)])

    found = log.turns_mentioning("u1", "aria", "The user's sister is called Maya.")
    assert [t.content for t in found] == ["what should I buy for Maya my sister"]
    assert found[0].conversation_id == mine and found[0].role == "user"
    assert log.turns_mentioning("u1", "aria", "The user") == []  # nothing distinctive
    assert log.turns_mentioning("u1", "aria", "") == []

    theirs_found = log.turns_mentioning("u2", "aria", "The user's sister is called Maya.")
    assert log.forget_turns("u1", "aria", [t.id for t in theirs_found]) == 0  # not the pair's
    assert log.forget_turns("u1", "aria", [t.id for t in found]) == 1
    assert log.turns(mine) == [
        ("assistant", "Maya might like a vase"),
        ("user", "my sister's birthday is soon"),
        ("user", "the weather is lovely"),
    ]
    assert log.turns(theirs) == [("user", "what should I buy for Maya my sister")]
    assert log.turns(other_companion) == [("user", "Maya my sister")]


def test_what_an_export_reads_and_an_import_restores(any_store: Store) -> None:
    import uuid as uuid_module
    from datetime import UTC, datetime

    from aria_mem.domain.records import ArchivedTurn, ConversationRecord

    then = datetime(2025, 5, 4, 12, 0, tzinfo=UTC)
    record = ConversationRecord(
        uuid_module.uuid4(),
        "u1",
        "aria",
        then,
        then,
        (ArchivedTurn("user", "hi", then), ArchivedTurn("assistant", "hello", then)),
    )
    log = any_store.conversations
    assert log.import_conversation(record) is True
    assert log.import_conversation(record) is False  # already here: left alone
    log.add_turns(log.open_conversation("u2", "aria", new=True), [("user", "yo", then)])
    assert log.conversation_records("u1") == [record]
    assert log.conversation_records("u1", "nova") == []
    assert len(log.conversation_records(None)) == 2

    any_store.relationships.set_stage("u1", "aria", Stage.CLOSE)
    any_store.relationships.set_stage("u2", "nova", Stage.ESTABLISHED)
    assert any_store.relationships.stages("u1") == [("u1", "aria", Stage.CLOSE)]
    assert len(any_store.relationships.stages(None)) == 2

    kept_id = uuid_module.uuid4()
    knowledge = any_store.knowledge
    outcome = knowledge.learn("aria", "kilns.md", "Kilns", ["one", "two"], restored=(kept_id, then))
    assert outcome.source_id == kept_id
    [source] = knowledge.sources("aria")
    assert (source.id, source.created_at, source.passages) == (kept_id, then, 2)
    assert knowledge.passages(kept_id) == ["one", "two"]


def test_a_conversations_persona_is_kept_and_exported(any_store: Store) -> None:
    log = any_store.conversations
    talk = log.open_conversation("u1", "aria")
    assert log.system_prompt(talk) is None
    log.set_system_prompt(talk, "You are Bob.")
    assert log.system_prompt(talk) == "You are Bob."
    [record] = log.conversation_records("u1")
    assert record.system_prompt == "You are Bob."
    log.set_system_prompt(talk, None)
    assert log.system_prompt(talk) is None


# -- the word search ----------------------------------------------------------------------


def _found(store: Store, text: str, user: str = "u1") -> list[str]:
    hits = store.reads.lexical_candidates(user, "aria", text, 10)
    return [hit.memory.text if hit.memory else str(hit.id) for hit in hits]


def test_the_word_search_finds_the_pairs_usable_memories_sharing_a_rare_word(
    any_store: Store,
) -> None:
    maya = any_store.memories.save(_new("The user's sister Maya loves pottery.")).memory
    any_store.memories.save(_new("The user walks the dog every morning."))
    any_store.memories.save(_new("The user's friend Maya sings.", user="u2"))
    assert _found(any_store, "What would Maya like?") == ["The user's sister Maya loves pottery."]
    assert _found(any_store, "Something about the weather") == []
    any_store.memories.edit(maya.id, MemoryChanges(status=MemoryStatus.ARCHIVED))
    assert _found(any_store, "What would Maya like?") == []


def test_more_shared_words_rank_higher_and_scores_stay_within_0_and_1(any_store: Store) -> None:
    any_store.memories.save(_new("The user plays chess."))
    any_store.memories.save(_new("The user plays chess with Maya on Sundays."))
    hits = any_store.reads.lexical_candidates("u1", "aria", "Chess with Maya", 10)
    assert [h.memory.text for h in hits if h.memory] == [
        "The user plays chess with Maya on Sundays.",
        "The user plays chess.",
    ]
    assert 0 < hits[1].score < hits[0].score == pytest.approx(1)  # it holds every word


def test_a_rarer_shared_word_counts_more(any_store: Store) -> None:
    for text in ("plays chess.", "reads about chess.", "watches chess on TV.", "met Maya."):
        any_store.memories.save(_new(f"The user {text}"))
    hits = any_store.reads.lexical_candidates("u1", "aria", "Chess with Maya", 10)
    # One word each, but 'maya' is in one memory of four and 'chess' in three: the share of
    # the message's words is weighed by their rarity among the pair's memories.
    assert hits[0].memory is not None and hits[0].memory.text == "The user met Maya."
    maya, chess = hits[0].score, hits[1].score
    assert maya + chess == pytest.approx(1)  # the two words are the whole message
    assert maya == pytest.approx(rarity(4, 1) / (rarity(4, 1) + rarity(4, 3)))


def test_a_word_most_of_the_pairs_memories_share_finds_nothing_alone(any_store: Store) -> None:
    for n in range(10):
        any_store.memories.save(_new(f"The user has a garden bed number {n}."))
    any_store.memories.save(_new("The user grows tomatoes."))
    assert _found(any_store, "garden") == []  # in 10 of 11: common
    assert _found(any_store, "garden tomatoes") == ["The user grows tomatoes."]


def test_a_fairly_common_word_adds_to_a_score_but_brings_no_candidate(any_store: Store) -> None:
    texts = [f"The user takes a walk, day {n}." for n in range(14)]
    texts += ["The user takes a walk in Rome.", "The user flew to Rome."]
    texts += [f"The user owns box {n}." for n in range(84)]
    for text in texts:
        any_store.memories.save(_new(text))
    # 'walk' is in 15 of the pair's 100 memories: rarer than common (1 in 5), too common to
    # bring its memories as candidates (1 in 10); 'rome' is in 2.
    assert _found(any_store, "walk") == []
    hits = any_store.reads.lexical_candidates("u1", "aria", "A walk in Rome", 10)
    assert [h.memory.text for h in hits if h.memory] == [
        "The user takes a walk in Rome.",
        "The user flew to Rome.",
    ]
    assert hits[0].score == pytest.approx(1)
    assert hits[1].score == pytest.approx(rarity(100, 2) / (rarity(100, 2) + rarity(100, 15)))


# -- the review queue ---------------------------------------------------------------------


def _proposed(store: Store, n: int, at: datetime, user: str = "u1") -> ReviewItem:
    older = store.memories.save(_new(f"The user's locker number is {n}.", user=user)).memory
    newer = store.memories.save(_new(f"The user's bike lock code is {n}.", user=user)).memory
    item = ReviewItem(
        uuid.uuid4(), user, "aria", ReviewKind.CONFLICT, older.id, newer.id, "changed?", at
    )
    assert store.hygiene.propose(item)
    return item


def test_the_review_queue_pages_oldest_first_and_counts(any_store: Store) -> None:
    start = datetime(2026, 3, 1, tzinfo=UTC)
    mine = [_proposed(any_store, n, start + timedelta(minutes=n % 3)) for n in range(7)]
    _proposed(any_store, 99, start, user="u2")
    hygiene = any_store.hygiene
    order = [i.id for i in sorted(mine, key=lambda i: (i.created_at, str(i.id)))]
    pages = [[i.id for i in hygiene.reviews("u1", "aria", limit=3, offset=o)] for o in (0, 3, 6)]
    assert pages == [order[0:3], order[3:6], order[6:7]]  # ties on the time: by id, no overlap
    assert [i.id for i in hygiene.reviews("u1", "aria")] == order
    assert hygiene.reviews("u1", "aria", offset=7) == []
    assert hygiene.count_reviews("u1", "aria") == 7
    assert hygiene.count_reviews(None, None) == 8
    assert len(hygiene.reviews(None, None, limit=5, offset=5)) == 3
    assert hygiene.count_reviews("u3", "aria") == 0


def test_a_pages_memories_are_read_at_once_each_only_of_its_items_pair(any_store: Store) -> None:
    start = datetime(2026, 3, 1, tzinfo=UTC)
    items = [_proposed(any_store, n, start + timedelta(minutes=n)) for n in range(3)]
    theirs = any_store.memories.save(_new("Another user's secret.", user="u2")).memory
    odd = ReviewItem(
        uuid.uuid4(), "u1", "aria", ReviewKind.RETIRE, theirs.id, None, "stale?", start
    )  # an item naming another pair's memory: whoever made it, that memory is not shown
    assert any_store.hygiene.propose(odd)
    found = any_store.hygiene.review_memories([i.id for i in items[:2]] + [odd.id], "u1", "aria")
    wanted = {m for i in items[:2] for m in (i.memory_id, i.other_id)}
    assert {m.id for m in found} == wanted and len(found) == 4
    texts = {m.id: m.text for m in found}
    assert texts[items[0].memory_id] == "The user's locker number is 0."
    assert any_store.hygiene.review_memories([uuid.uuid4()], "u1", "aria") == []
    assert any_store.hygiene.review_memories([], "u1", "aria") == []


def test_a_review_item_of_another_pair_gives_no_memories(any_store: Store) -> None:
    start = datetime(2026, 3, 1, tzinfo=UTC)
    mine = _proposed(any_store, 1, start)
    theirs = _proposed(any_store, 2, start, user="u2")
    named = [mine.id, theirs.id]
    read = any_store.hygiene.review_memories
    assert {m.id for m in read(named, "u1", "aria")} == {mine.memory_id, mine.other_id}
    assert {m.id for m in read(named, "u2", "aria")} == {theirs.memory_id, theirs.other_id}
    assert read([theirs.id], "u1", "aria") == [] and read(named, "u1", "nova") == []
    assert len(read(named, None, None)) == 4  # everyone's, for `review --all`
