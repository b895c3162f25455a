"""The write path with real PostgreSQL, a real index and the ollama client against a fake
server, including what happens when the index or the embedder is down."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from aria_mem.adapters.embedders.ollama import OllamaEmbedder
from aria_mem.adapters.qdrant_edge import EdgeIndex
from aria_mem.adapters.qdrant_server import QdrantServerIndex
from aria_mem.domain.models import (
    MEMORIES_COLLECTION,
    IndexState,
    MemoryStatus,
    MemoryType,
    NewMemory,
    SearchScope,
)
from aria_mem.domain.records import MemoryChanges
from aria_mem.errors import ValidationError
from aria_mem.ports import Store, VectorIndex
from aria_mem.services.indexer import Indexer
from aria_mem.services.writer import MemoryWriter
from tests.conftest import closed_port
from tests.fakes.ollama_server import FakeOllama
from tests.fakes.vectors import embed

MODEL = "ollama/mxbai-embed-large"
SCOPE = SearchScope("u1", "aria", MODEL)


@pytest.fixture
def store(any_store: Store) -> Store:
    """Service tests run on every store: PostgreSQL, and the in-memory twin (no database)."""
    return any_store


@pytest.fixture
def index(tmp_path: Path) -> Iterator[EdgeIndex]:
    built = EdgeIndex(tmp_path / "index")
    yield built
    built.close()


def writer_for(store: Store, index: VectorIndex, embedder: OllamaEmbedder) -> MemoryWriter:
    return MemoryWriter(store.memories, store.relationships, Indexer(store.queue, index, embedder))


def _new(text: str, **kw: object) -> NewMemory:
    return NewMemory(user_id="u1", companion_id="aria", text=text, **kw)  # type: ignore[arg-type]


def found(index: VectorIndex, text: str) -> list[uuid.UUID]:
    """Ids of the memories the index finds similar to ``text`` (cosine above 0.5)."""
    hits = index.search(MEMORIES_COLLECTION, embed(text, 64), SCOPE, 30)
    return [h.id for h in hits if h.score > 0.5]


def test_remember_saves_then_indexes_with_the_model_name(
    store: Store, index: EdgeIndex, ollama_embedder: OllamaEmbedder
) -> None:
    result = writer_for(store, index, ollama_embedder).remember(
        _new("The user's sister loves pottery.", type=MemoryType.RELATIONSHIP_FACT)
    )
    assert result.created and result.indexed and result.problem is None
    stored = store.memories.get(result.memory.id)
    assert stored.index_state is IndexState.INDEXED and stored.indexed_model == MODEL
    hits = index.search(MEMORIES_COLLECTION, embed("sister pottery", 64), SCOPE, 5)
    assert hits[0].id == result.memory.id
    assert hits[0].payload["embedding_model"] == MODEL
    assert hits[0].payload["type"] == "RelationshipFact"


def test_bad_input_stores_nothing(
    store: Store, index: EdgeIndex, ollama_embedder: OllamaEmbedder
) -> None:
    writer = writer_for(store, index, ollama_embedder)
    for bad in (
        _new("   "),
        _new("x" * 2001),
        _new("ok", importance=1.5),
        _new("ok", confidence=-0.1),
    ):
        with pytest.raises(ValidationError):
            writer.remember(bad)
    assert store.memories.counts().total == 0


def test_index_unreachable_leaves_the_memory_pending_then_sync_catches_up(
    store: Store, ollama_embedder: OllamaEmbedder, tmp_path: Path
) -> None:
    dead = QdrantServerIndex(f"http://127.0.0.1:{closed_port()}", timeout=1)
    result = writer_for(store, dead, ollama_embedder).remember(_new("The user plays chess."))
    assert result.created and not result.indexed
    assert result.problem is not None and "is it running" in result.problem
    stored = store.memories.get(result.memory.id)
    assert stored.text == "The user plays chess."
    assert stored.index_state is IndexState.PENDING and stored.index_attempts == 1
    assert stored.index_error is not None

    healthy = EdgeIndex(tmp_path / "index")
    report = Indexer(store.queue, healthy, ollama_embedder).run_pending()
    assert report.indexed == 1 and found(healthy, "chess") == [result.memory.id]
    assert store.memories.get(result.memory.id).index_error is None
    healthy.close()


def test_embedder_unreachable_leaves_the_memory_pending_then_sync_catches_up(
    store: Store, index: EdgeIndex
) -> None:
    down = OllamaEmbedder("mxbai-embed-large", host=f"http://127.0.0.1:{closed_port()}", timeout=2)
    writer = writer_for(store, index, down)
    ids = [writer.remember(_new(f"fact number {i}")).memory.id for i in range(3)]
    assert store.memories.counts().pending == 3 and index.count(MEMORIES_COLLECTION) == 0
    with FakeOllama() as server:
        up = OllamaEmbedder("mxbai-embed-large", host=server.url)
        report = Indexer(store.queue, index, up).run_pending(batch_size=2)
    assert report.indexed == 3 and report.failed == 0
    assert sorted(index.ids(MEMORIES_COLLECTION)) == sorted(ids)
    assert store.memories.counts().pending == 0


def test_edit_recomputes_the_vector(
    store: Store, index: EdgeIndex, ollama_embedder: OllamaEmbedder
) -> None:
    writer = writer_for(store, index, ollama_embedder)
    m = writer.remember(_new("The user plays violin.")).memory
    assert found(index, "violin") == [m.id]
    edited = writer.update(m.id, MemoryChanges(text="The user plays cello."))
    assert edited.indexed and edited.memory.text == "The user plays cello."
    assert found(index, "violin") == [] and found(index, "cello") == [m.id]
    with pytest.raises(ValidationError, match="Nothing to change"):
        writer.update(m.id, MemoryChanges())


def test_archive_removes_the_vector_and_unarchive_restores_it(
    store: Store, index: EdgeIndex, ollama_embedder: OllamaEmbedder
) -> None:
    writer = writer_for(store, index, ollama_embedder)
    m = writer.remember(_new("The user collects stamps.")).memory
    writer.update(m.id, MemoryChanges(status=MemoryStatus.ARCHIVED))
    assert index.ids(MEMORIES_COLLECTION) == []
    assert store.memories.get(m.id).status is MemoryStatus.ARCHIVED
    writer.update(m.id, MemoryChanges(status=MemoryStatus.ACTIVE))
    assert found(index, "stamps") == [m.id]


def test_pin_updates_the_payload(
    store: Store, index: EdgeIndex, ollama_embedder: OllamaEmbedder
) -> None:
    writer = writer_for(store, index, ollama_embedder)
    m = writer.remember(_new("The user's name is Sam.")).memory
    writer.update(m.id, MemoryChanges(pinned=True))
    hit = index.search(MEMORIES_COLLECTION, embed("name Sam", 64), SCOPE, 1)[0]
    assert hit.payload["pinned"] is True and store.memories.get(m.id).pinned


def test_held_and_expired_memories_get_no_vector(
    store: Store, index: EdgeIndex, ollama_embedder: OllamaEmbedder
) -> None:
    from aria_mem.domain.models import Stage

    writer = writer_for(store, index, ollama_embedder)
    held = writer.remember(_new("The user's divorce was painful.", held_until_stage=Stage.CLOSE))
    # A new memory cannot be given a past expiry; one that has expired since (here: stored
    # straight into PostgreSQL, as an import of old memories does) is written again.
    past = _new(
        "The user is in Paris this week.", expires_at=datetime.now(UTC) - timedelta(hours=1)
    )
    expired = store.memories.save(past).memory
    gone = writer.update(expired.id, MemoryChanges(importance=0.6))
    assert not held.indexed and not gone.indexed
    assert index.count(MEMORIES_COLLECTION) == 0
    assert (
        store.memories.get(held.memory.id).index_state is IndexState.INDEXED
    )  # in line: no vector


def test_remembering_again_confirms(
    store: Store, index: EdgeIndex, ollama_embedder: OllamaEmbedder
) -> None:
    writer = writer_for(store, index, ollama_embedder)
    first = writer.remember(_new("The user loves jazz."))
    again = writer.remember(_new("the user loves jazz"))
    assert not again.created and again.memory.id == first.memory.id
    assert again.memory.last_confirmed_at is not None
    assert index.count(MEMORIES_COLLECTION) == 1


def test_forget_while_the_index_is_down_is_queued_durably(
    store: Store, index: EdgeIndex, ollama_embedder: OllamaEmbedder
) -> None:
    m = writer_for(store, index, ollama_embedder).remember(_new("The user's PIN is 1234.")).memory
    dead = QdrantServerIndex(f"http://127.0.0.1:{closed_port()}", timeout=1)
    result = writer_for(store, dead, ollama_embedder).forget(m.id)
    assert not result.indexed and result.problem is not None
    assert "queued" in result.problem
    assert store.memories.counts().total == 0
    assert [q.point_id for q in store.queue.queued_deletions(10)] == [m.id]
    assert index.ids(MEMORIES_COLLECTION) == [m.id]
    report = Indexer(store.queue, index, ollama_embedder).run_pending()
    assert report.deletions_done == 1
    assert index.ids(MEMORIES_COLLECTION) == [] and store.queue.queued_deletions(10) == []


def test_dimension_mismatch_keeps_memories_pending_and_writes_nothing(
    store: Store, index: EdgeIndex, ollama_embedder: OllamaEmbedder
) -> None:
    index.ensure_collection(MEMORIES_COLLECTION, 16)
    result = writer_for(store, index, ollama_embedder).remember(_new("The user runs."))
    assert not result.indexed and result.problem is not None
    assert "16-dimensional" in result.problem and "64-dimensional" in result.problem
    assert index.count(MEMORIES_COLLECTION) == 0
    assert store.memories.get(result.memory.id).index_state is IndexState.PENDING
