"""The PostgreSQL store, against the embedded server and (by DSN) a PostgreSQL server."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import psycopg
import pytest

from aria_mem.adapters.postgres.store import PostgresStore
from aria_mem.domain.models import (
    MEMORIES_COLLECTION,
    IndexState,
    MemoryStatus,
    MemoryType,
    NewMemory,
    Stage,
)
from aria_mem.domain.validation import memory_from_record, memory_to_record
from aria_mem.errors import NotFoundError, StoreError
from aria_mem.ports import MemoryChanges
from tests.conftest import closed_port


def _new(text: str = "The user is allergic to peanuts.", **kw: object) -> NewMemory:
    return NewMemory(
        user_id=str(kw.pop("user", "u1")), companion_id=str(kw.pop("comp", "aria")), text=text, **kw
    )  # type: ignore[arg-type]


def test_save_stores_every_field_and_starts_pending(store: PostgresStore) -> None:
    expires = datetime(2030, 1, 1, tzinfo=UTC)
    outcome = store.save(
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
    m = store.get(outcome.memory.id)
    assert outcome.created
    assert (m.type, m.importance, m.pinned, m.reason) == (
        MemoryType.PROFILE_FACT,
        0.9,
        True,
        "said so",
    )
    assert m.emotional_significance == pytest.approx(0.3)
    assert m.held_until_stage is Stage.CLOSE and m.expires_at == expires
    assert m.index_state is IndexState.PENDING and m.use_count == 0


def test_the_same_fact_again_confirms_instead_of_duplicating(store: PostgresStore) -> None:
    first = store.save(_new("The user is allergic to peanuts."))
    again = store.save(_new("  the user is ALLERGIC to peanuts "))
    assert not again.created and again.memory.id == first.memory.id
    assert again.memory.last_confirmed_at is not None
    assert again.memory.text == "The user is allergic to peanuts."
    assert len(store.list_memories(user_id="u1", companion_id="aria")) == 1


def test_the_same_text_for_another_user_or_companion_is_a_new_memory(store: PostgresStore) -> None:
    store.save(_new())
    assert store.save(_new(user="u2")).created
    assert store.save(_new(comp="nova")).created
    assert len(store.list_memories(user_id=None, companion_id=None)) == 3


def test_edit_marks_pending_and_changes_updated_at(store: PostgresStore) -> None:
    m = store.save(_new()).memory
    store.mark_indexed([(m.id, m.updated_at)], "ollama/x")
    assert store.get(m.id).index_state is IndexState.INDEXED
    edited = store.edit(m.id, MemoryChanges(text="The user is allergic to tree nuts."))
    assert edited.index_state is IndexState.PENDING
    assert edited.updated_at > m.updated_at
    assert edited.text == "The user is allergic to tree nuts."


def test_edit_into_an_existing_fact_is_refused(store: PostgresStore) -> None:
    store.save(_new("A"))
    b = store.save(_new("B")).memory
    with pytest.raises(StoreError, match="already says that"):
        store.edit(b.id, MemoryChanges(text="a"))
    assert store.get(b.id).text == "B"


def test_mark_indexed_skips_memories_changed_since_they_were_read(store: PostgresStore) -> None:
    m = store.save(_new()).memory
    store.edit(m.id, MemoryChanges(importance=0.2))
    assert store.mark_indexed([(m.id, m.updated_at)], "ollama/x") == 0
    assert store.get(m.id).index_state is IndexState.PENDING


def test_delete_removes_the_text_and_queues_the_vector_removal(
    store: PostgresStore, dsn: str
) -> None:
    m = store.save(_new("The user's secret is X.")).memory
    store.delete(m.id, MEMORIES_COLLECTION)
    with pytest.raises(NotFoundError):
        store.get(m.id)
    with psycopg.connect(dsn) as conn:
        hits = conn.execute(
            "SELECT count(*) FROM memories WHERE text LIKE %s", ("%secret%",)
        ).fetchone()
    assert hits == (0,)
    queued = store.queued_deletions(10)
    assert [(q.collection, q.point_id) for q in queued] == [(MEMORIES_COLLECTION, m.id)]
    store.drop_queued_deletions([q.id for q in queued])
    assert store.queued_deletions(10) == []


def test_unknown_ids_raise_not_found(store: PostgresStore) -> None:
    missing = uuid.uuid4()
    for action in (
        lambda: store.get(missing),
        lambda: store.confirm(missing),
        lambda: store.set_pinned(missing, True),
        lambda: store.delete(missing, MEMORIES_COLLECTION),
    ):
        with pytest.raises(NotFoundError, match=str(missing)):
            action()
    assert store.queued_deletions(10) == []


def test_find_prefix(store: PostgresStore) -> None:
    m = store.save(_new()).memory
    assert store.find_prefix(str(m.id)[:8]).id == m.id
    with pytest.raises(NotFoundError, match="not a memory id"):
        store.find_prefix("zz")
    with pytest.raises(NotFoundError, match="No memory with an id starting"):
        store.find_prefix("ffffffff-ffff" if not str(m.id).startswith("ffff") else "0000000")


def test_pending_knows_which_memories_may_be_used(store: PostgresStore, dsn: str) -> None:
    usable = store.save(_new("usable")).memory
    held = store.save(_new("held", held_until_stage=Stage.ESTABLISHED)).memory
    expired = store.save(_new("expired", expires_at=datetime.now(UTC) - timedelta(days=1)))
    archived = store.set_status(store.save(_new("archived")).memory.id, MemoryStatus.ARCHIVED)
    flags = {m.id: ok for m, ok in store.pending(10)}
    assert flags == {usable.id: True, held.id: False, expired.memory.id: False, archived.id: False}
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(
            "INSERT INTO relationships (user_id, companion_id, stage) "
            "VALUES ('u1', 'aria', 'established')"
        )
    assert dict((m.id, ok) for m, ok in store.pending(10))[held.id] is True
    assert store.stage("u1", "aria") is Stage.ESTABLISHED
    assert store.stage("u1", "other") is Stage.EARLY


def test_counts(store: PostgresStore) -> None:
    a = store.save(_new("a")).memory
    store.save(_new("b", held_until_stage=Stage.CLOSE))
    store.set_status(store.save(_new("c")).memory.id, MemoryStatus.ARCHIVED)
    store.mark_indexed([(a.id, a.updated_at)], "m")
    counts = store.counts()
    assert counts["total"] == 3 and counts["active"] == 2 and counts["archived"] == 1
    assert counts["held"] == 1 and counts["indexed"] == 1 and counts["pending"] == 2


def test_import_is_idempotent_by_id_and_merges_known_facts(store: PostgresStore) -> None:
    existing = store.save(_new("The user plays chess.")).memory
    records = [memory_to_record(store.save(_new(f"fact {i}")).memory) for i in range(3)]
    for r in records:
        store.delete(uuid.UUID(r["id"]), MEMORIES_COLLECTION)
    dup = dict(records[0], id=str(uuid.uuid4()), text="the user plays CHESS")
    memories = [memory_from_record(r) for r in [*records, dup]]
    first = store.import_memories(memories)
    assert (first.inserted, first.updated, first.merged_duplicates) == (3, 0, 1)
    second = store.import_memories(memories)
    assert (second.inserted, second.updated, second.unchanged) == (0, 0, 3)
    assert len(store.list_memories(user_id="u1", companion_id="aria")) == 4
    assert store.get(existing.id).text == "The user plays chess."
    restored = store.get(uuid.UUID(records[1]["id"]))
    assert memory_to_record(restored) == records[1]
    assert restored.index_state is IndexState.PENDING


def test_unreachable_postgres_is_a_store_error() -> None:
    dead = PostgresStore(
        f"postgresql://postgres@127.0.0.1:{closed_port()}/postgres", connect_timeout=1
    )
    with pytest.raises(StoreError, match="PostgreSQL"):
        dead.ping()
    dead.close()


def test_retrieval_context_sends_exactly_the_profile_the_domain_rule_picks(
    store: PostgresStore,
) -> None:
    from aria_mem.domain.profile import select_profile

    for i in range(8):
        store.save(
            _new(
                f"profile fact {i}", type=MemoryType.PROFILE_FACT, importance=0.9 if i < 4 else 0.8
            )
        )
    store.save(_new("pinned note", pinned=True, importance=0.1))
    store.save(_new("archived fact", type=MemoryType.BOUNDARY, importance=1.0))
    archived = store.list_memories(user_id="u1", companion_id="aria")[-1]
    store.set_status(archived.id, MemoryStatus.ARCHIVED)
    everything = [
        m
        for m in store.list_memories(user_id="u1", companion_id="aria", status=MemoryStatus.ACTIVE)
    ]
    stage, pool = store.retrieval_context("u1", "aria")
    assert stage is Stage.EARLY
    assert [m.id for m in select_profile(pool)] == [m.id for m in select_profile(everything)]
    assert len(pool) == 6 and archived.id not in {m.id for m in pool}
