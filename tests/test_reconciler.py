"""The index heals itself: reconciler passes, the orphan sweep and re-indexing, with real
PostgreSQL, real Qdrant Edge shards and the ollama client against a fake server."""

from __future__ import annotations

import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from aria_mem.adapters.embedders.ollama import OllamaEmbedder
from aria_mem.adapters.postgres.store import PostgresStore
from aria_mem.adapters.qdrant_edge import EdgeIndex
from aria_mem.adapters.qdrant_server import QdrantServerIndex
from aria_mem.domain.models import (
    MEMORIES_COLLECTION,
    IndexPoint,
    IndexState,
    MemoryStatus,
    NewMemory,
    SearchScope,
)
from aria_mem.domain.records import MemoryChanges
from aria_mem.ports import Store
from aria_mem.services.indexer import Indexer
from aria_mem.services.reconciler import Reconciler
from aria_mem.services.reindexer import Reindexer
from aria_mem.services.writer import MemoryWriter
from tests.conftest import closed_port
from tests.fakes.ollama_server import FakeOllama, FakeOllamaState


@pytest.fixture
def store(any_store: Store) -> Store:
    """Service tests run on every store: PostgreSQL, and the in-memory twin (no database)."""
    return any_store


@pytest.fixture
def index(tmp_path: Path) -> Iterator[EdgeIndex]:
    built = EdgeIndex(tmp_path / "index")
    yield built
    built.close()


def _dsn(store: Store) -> str:
    """These tests change rows behind the store's back, as a crash or another tool would:
    with SQL, so on PostgreSQL only."""
    if not isinstance(store, PostgresStore):
        pytest.skip("changes rows behind the store's back with SQL")
    return store.db.dsn


def _save(store: Store, n: int, prefix: str = "fact") -> list[uuid.UUID]:
    return [
        store.memories.save(
            NewMemory(user_id="u1", companion_id="aria", text=f"{prefix} number {i}")
        ).memory.id
        for i in range(n)
    ]


def test_memories_written_while_the_embedder_was_down_are_indexed_by_the_next_pass(
    store: Store, index: EdgeIndex
) -> None:
    down = OllamaEmbedder("mxbai-embed-large", host=f"http://127.0.0.1:{closed_port()}", timeout=2)
    writer = MemoryWriter(store.memories, store.relationships, Indexer(store.queue, index, down))
    ids = [
        writer.remember(NewMemory(user_id="u1", companion_id="aria", text=f"fact {i}")).memory.id
        for i in range(5)
    ]
    failed = Reconciler(store.queue, index, down).run_pass()
    assert failed.failed == 5 and failed.errors and failed.pending_left == 5
    with FakeOllama() as server:
        up = OllamaEmbedder("mxbai-embed-large", host=server.url)
        report = Reconciler(store.queue, index, up).run_pass()
    assert report.indexed == 5 and report.pending_left == 0 and not report.errors
    assert sorted(index.ids(MEMORIES_COLLECTION)) == sorted(ids)


def test_one_pass_removes_vectors_of_deleted_archived_expired_and_held_memories(
    store: Store, index: EdgeIndex, ollama_embedder: OllamaEmbedder
) -> None:
    writer = MemoryWriter(
        store.memories, store.relationships, Indexer(store.queue, index, ollama_embedder)
    )
    ids = {
        name: writer.remember(
            NewMemory(user_id="u1", companion_id="aria", text=f"the {name} one")
        ).memory.id
        for name in ("kept", "deleted", "archived", "expired", "held")
    }
    assert index.count(MEMORIES_COLLECTION) == 5
    dead = QdrantServerIndex(f"http://127.0.0.1:{closed_port()}", timeout=1)
    offline = MemoryWriter(
        store.memories, store.relationships, Indexer(store.queue, dead, ollama_embedder)
    )
    offline.forget(ids["deleted"])  # removal queued: the index was down
    offline.update(ids["archived"], MemoryChanges(status=MemoryStatus.ARCHIVED))
    with psycopg.connect(_dsn(store), autocommit=True) as conn:
        conn.execute("UPDATE memories SET expires_at = now() WHERE id = %s", (ids["expired"],))
        conn.execute(
            "UPDATE memories SET held_until_stage = 'close', index_state = 'pending' WHERE id = %s",
            (ids["held"],),
        )
    report = Reconciler(store.queue, index, ollama_embedder).run_pass()
    assert report.deletions_done == 1 and report.expired_found == 1 and report.removed == 3
    assert index.ids(MEMORIES_COLLECTION) == [ids["kept"]]
    assert store.memories.counts().pending == 0 and store.queue.queued_deletions(10) == []


def test_a_pass_does_bounded_work_and_a_backlog_is_worked_off_over_passes(
    store: Store, index: EdgeIndex, ollama_embedder: OllamaEmbedder
) -> None:
    _save(store, 250)
    reconciler = Reconciler(store.queue, index, ollama_embedder, batch_size=40, max_batches=3)
    first = reconciler.run_pass()
    assert first.indexed == 120 and first.pending_left == 130
    while reconciler.run_pass().pending_left:
        pass
    assert index.count(MEMORIES_COLLECTION) == 250


def test_sweep_removes_orphans_and_requeues_what_the_index_lost(
    store: Store, index: EdgeIndex, ollama_embedder: OllamaEmbedder
) -> None:
    ids = _save(store, 4)
    Reconciler(store.queue, index, ollama_embedder).run_pass()
    orphan = uuid.uuid4()
    index.upsert(
        MEMORIES_COLLECTION,
        [
            IndexPoint(
                orphan,
                [1.0] + [0.0] * 63,
                {
                    "user_id": "u1",
                    "companion_id": "aria",
                    "active": True,
                    "pinned": False,
                    "embedding_model": ollama_embedder.model_name,
                },
            )
        ],
    )
    index.delete(MEMORIES_COLLECTION, [ids[0]])  # lost by the index
    sweep = Reconciler(store.queue, index, ollama_embedder).sweep()
    assert (sweep.orphans_removed, sweep.missing_requeued) == (1, 1)
    assert store.memories.get(ids[0]).index_state is IndexState.PENDING
    Reconciler(store.queue, index, ollama_embedder).run_pass()
    assert sorted(index.ids(MEMORIES_COLLECTION)) == sorted(ids)


def test_rebuild_after_the_index_directory_is_deleted(
    store: Store, tmp_path: Path, ollama_embedder: OllamaEmbedder
) -> None:
    first = EdgeIndex(tmp_path / "lost")
    ids = _save(store, 30)
    archived = ids.pop()
    store.memories.edit(archived, MemoryChanges(status=MemoryStatus.ARCHIVED))
    Reconciler(store.queue, first, ollama_embedder).run_pass()
    first.close()
    shutil.rmtree(tmp_path / "lost")
    fresh = EdgeIndex(tmp_path / "lost")
    reindexer = Reindexer(store.queue, store.daemon, fresh, ollama_embedder)
    plan = reindexer.prepare(rebuild=True)
    outcome = reindexer.run(plan)
    done, failed, sweep = outcome.done, outcome.failed, outcome.sweep
    assert done == 30
    assert plan.total == 30 and failed == 0 and sweep is not None
    assert sorted(fresh.ids(MEMORIES_COLLECTION)) == sorted(ids)
    assert store.daemon.open_reindex() is None
    fresh.close()


def test_model_switch_with_another_dimension_leaves_only_new_vectors(
    store: Store, index: EdgeIndex
) -> None:
    ids = _save(store, 40)
    with FakeOllama(FakeOllamaState(dim=64, model_dims={"nomic-embed-text": 32})) as server:
        old = OllamaEmbedder("mxbai-embed-large", host=server.url)
        new = OllamaEmbedder("nomic-embed-text", host=server.url)
        Reconciler(store.queue, index, old).run_pass()
        assert index.collection_size(MEMORIES_COLLECTION) == 64
        reindexer = Reindexer(store.queue, store.daemon, index, new, batch_size=16)
        plan = reindexer.prepare(rebuild=False)
        assert plan.recreated == (MEMORIES_COLLECTION,)
        assert plan.total == 40 and plan.dimension == 32
        outcome = reindexer.run(plan)
    done, failed, sweep = outcome.done, outcome.failed, outcome.sweep
    assert done == 40 and failed == 0 and sweep is not None
    assert index.collection_size(MEMORIES_COLLECTION) == 32
    assert sorted(index.ids(MEMORIES_COLLECTION)) == sorted(ids)
    assert {
        m.indexed_model for m in store.memories.list_memories(user_id="u1", companion_id="aria")
    } == {"ollama/nomic-embed-text"}


def test_model_switch_with_the_same_dimension_overwrites_and_sweeps_old_vectors(
    store: Store, index: EdgeIndex
) -> None:
    ids = _save(store, 20)
    with FakeOllama() as server:
        old = OllamaEmbedder("mxbai-embed-large", host=server.url)
        new = OllamaEmbedder("nomic-embed-text", host=server.url)
        Reconciler(store.queue, index, old).run_pass()
        reindexer = Reindexer(store.queue, store.daemon, index, new)
        plan = reindexer.prepare(rebuild=False)
        assert plan.recreated == () and plan.total == 20
        reindexer.run(plan)
    old_scope = SearchScope("u1", "aria", "ollama/mxbai-embed-large")
    new_scope = SearchScope("u1", "aria", "ollama/nomic-embed-text")
    assert index.search(MEMORIES_COLLECTION, [1.0] * 64, old_scope, 100) == []
    assert len(index.search(MEMORIES_COLLECTION, [1.0] * 64, new_scope, 100)) == 20
    assert sorted(index.ids(MEMORIES_COLLECTION)) == sorted(ids)


def test_sweep_covers_the_knowledge_collection_too(
    store: Store, index: EdgeIndex, ollama_embedder: OllamaEmbedder
) -> None:
    from aria_mem.domain.models import KNOWLEDGE_COLLECTION

    store.knowledge.learn(
        "aria", "a.md", "A", ["first passage about clay", "second passage on kilns"]
    )
    Reconciler(store.queue, index, ollama_embedder).run_pass()
    first, second = sorted(index.ids(KNOWLEDGE_COLLECTION))
    with psycopg.connect(_dsn(store), autocommit=True) as conn:  # behind the store's back
        conn.execute("DELETE FROM knowledge_items WHERE id = %s", (first,))
    index.delete(KNOWLEDGE_COLLECTION, [second])
    sweep = Reconciler(store.queue, index, ollama_embedder).sweep()
    assert (sweep.orphans_removed, sweep.missing_requeued) == (1, 1)
    Reconciler(store.queue, index, ollama_embedder).run_pass()
    assert index.ids(KNOWLEDGE_COLLECTION) == [second]
