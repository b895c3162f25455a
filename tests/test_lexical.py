"""The lexical candidate source (PostgreSQL full-text search) and its fusion with the nearest
vectors: real PostgreSQL (embedded and server), a real index, the ollama client over HTTP."""

from __future__ import annotations

import logging
import math
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import psycopg
import pytest

from aria_mem.adapters.embedders.ollama import OllamaEmbedder
from aria_mem.adapters.postgres.store import PostgresStore
from aria_mem.adapters.qdrant_edge import EdgeIndex
from aria_mem.adapters.qdrant_server import QdrantServerIndex
from aria_mem.domain.fusion import CandidateSource, FusionWeights
from aria_mem.domain.models import MemoryStatus, NewMemory, Stage
from aria_mem.domain.ranking import RankingWeights
from aria_mem.domain.records import MemoryChanges
from aria_mem.ports import VectorIndex
from aria_mem.services.indexer import Indexer
from aria_mem.services.retriever import Retriever
from aria_mem.services.writer import MemoryWriter
from tests.conftest import closed_port
from tests.fakes.ollama_server import FakeOllama, FakeOllamaState


def save(store: PostgresStore, text: str, **kw: object) -> uuid.UUID:
    fields: dict[str, object] = {"user_id": "u1", "companion_id": "aria", "text": text}
    fields.update(kw)
    return store.memories.save(NewMemory(**fields)).memory.id  # type: ignore[arg-type]


def words(store: PostgresStore, text: str, user: str = "u1", companion: str = "aria") -> list[str]:
    hits = store.reads.lexical_candidates(user, companion, text, 30, timeout=5)
    return [store.memories.get(h.id).text for h in hits]


# -- the source ---------------------------------------------------------------------------


def test_word_matches_are_stemmed_and_ranked_by_how_much_of_the_message_they_share(
    store: PostgresStore,
) -> None:
    save(store, "The user's sister Lena is getting married in June in Porto.")
    save(store, "The user's sister called on Monday.")
    save(store, "The user had pasta for dinner.")
    found = words(store, "Lena's wedding: when does my sister marry?")
    # 'marry' and 'married' share a stem; the memory sharing more words comes first.
    assert found == [
        "The user's sister Lena is getting married in June in Porto.",
        "The user's sister called on Monday.",
    ]
    hits = store.reads.lexical_candidates("u1", "aria", "sister Lena married", 30)
    assert 0 < hits[1].score < hits[0].score == pytest.approx(1)  # it holds every word


def test_only_the_pairs_usable_memories_are_word_matched(store: PostgresStore) -> None:
    save(store, "Biscuit the cat hates the vacuum.")
    save(store, "Biscuit the cat belongs to someone else.", user_id="u2")
    save(store, "Biscuit is this persona's word too.", companion_id="other")
    archived = save(store, "Biscuit was archived.")
    store.memories.edit(archived, MemoryChanges(status=MemoryStatus.ARCHIVED))
    save(store, "Biscuit memory that has expired.", expires_at=datetime.now(UTC) + timedelta(0, 1))
    with psycopg.connect(store.db.dsn, autocommit=True) as conn:
        conn.execute(
            "UPDATE memories SET expires_at = now() - interval '1 day'"
            " WHERE text LIKE 'Biscuit memory%%'"
        )
    save(store, "Biscuit secret held until close.", held_until_stage=Stage.CLOSE)
    assert words(store, "How is Biscuit?") == ["Biscuit the cat hates the vacuum."]
    assert words(store, "How is Biscuit?", user="u2") == [
        "Biscuit the cat belongs to someone else."
    ]
    store.relationships.set_stage("u1", "aria", Stage.CLOSE)
    assert "Biscuit secret held until close." in words(store, "How is Biscuit?")


def test_an_edit_changes_the_words_the_memory_is_found_by(store: PostgresStore) -> None:
    memory_id = save(store, "The user plays the violin.")
    assert words(store, "violin") == ["The user plays the violin."]
    store.memories.edit(memory_id, MemoryChanges(text="The user plays the cello."))
    assert words(store, "violin") == []
    assert words(store, "cello") == ["The user plays the cello."]


def test_a_word_common_among_the_pairs_memories_is_left_out_of_the_query(
    store: PostgresStore,
) -> None:
    save(store, "The user drinks tea with Biscuit the cat.")
    for i in range(24):
        save(store, f"The user drank tea on day {i}.")
    # 'tea' is in every memory of u1: it cannot tell them apart, so only 'biscuit' counts.
    assert words(store, "tea and Biscuit") == ["The user drinks tea with Biscuit the cat."]
    assert words(store, "tea") == []
    # For another user with two tea memories, 'tea' is rare enough to search by.
    save(store, "The user hates tea.", user_id="u2")
    save(store, "The user likes coffee.", user_id="u2")
    assert words(store, "tea", user="u2") == ["The user hates tea."]


def test_words_holding_quotes_and_backslashes_match_themselves(store: PostgresStore) -> None:
    odd = "The user's notes are at http://x.com/a'b\\c and /usr/lo'cal/fi\\le.txt today."
    save(store, odd)
    save(store, "The user likes chess.")
    assert words(store, "x.com/a'b\\c") == [odd]
    assert words(store, "/usr/lo'cal/fi\\le.txt") == [odd]


@pytest.mark.parametrize(
    "message",
    [
        "",
        "   ",
        "the and of it",  # stop words only
        "a & b | !c <-> (d:* 'e') \\ f",  # tsquery syntax is plain text here
        "'; DROP TABLE memories; --",
        "x" * 2000,
    ],
)
def test_any_message_is_plain_text_to_the_word_search(store: PostgresStore, message: str) -> None:
    save(store, "The user likes chess.")
    assert store.reads.lexical_candidates("u1", "aria", message, 30, timeout=5) == []
    assert store.memories.counts().total == 1


def test_the_language_setting_re_makes_the_words_and_an_unknown_one_falls_back(
    dsn: str, caplog: pytest.LogCaptureFixture
) -> None:
    english = PostgresStore(dsn)
    english.migrate()
    save(english, "Die Katze schläft in den Häusern.")
    english.close()

    german = PostgresStore(dsn, language="german")
    german.migrate()
    try:
        # German stemming: Häuser / Häusern share a stem, which english would not know.
        assert words(german, "Häuser") == ["Die Katze schläft in den Häusern."]
        with psycopg.connect(dsn, autocommit=True) as conn:
            row = conn.execute("SELECT DISTINCT search_language::text FROM memories").fetchall()
        assert row == [("german",)]
        save(german, "Das Haus ist groß.")  # new rows take the language too
        with psycopg.connect(dsn, autocommit=True) as conn:
            languages = conn.execute("SELECT DISTINCT search_language::text FROM memories")
            assert languages.fetchall() == [("german",)]
    finally:
        german.close()

    with caplog.at_level(logging.WARNING):
        unknown = PostgresStore(dsn, language="klingon")
        unknown.migrate()
    try:
        assert "no text-search configuration 'klingon'" in caplog.text
        assert "simple" in caplog.text
        assert words(unknown, "katze") == ["Die Katze schläft in den Häusern."]
    finally:
        unknown.close()


# -- fused with the nearest vectors ---------------------------------------------------------

QUERY = "How is Biscuit?"
VECTORS = {
    QUERY: (1.0, 0.0),
    "The user's cat sleeps all day.": (0.86, math.sqrt(1 - 0.86**2)),
    "The user's kitten chases string.": (0.86, -math.sqrt(1 - 0.86**2)),
    "The user's pet is very old.": (0.855, math.sqrt(1 - 0.855**2)),
    "The user's cat Biscuit hates the vacuum cleaner.": (0.85, math.sqrt(1 - 0.85**2)),
}
"""Cosines to the query: three memories a little nearer than the one that names Biscuit."""


def planned_embed(text: str, dim: int) -> list[float]:
    """The planned vector of a text (a query arrives with the model's search prefix)."""
    x, y = next((v for t, v in VECTORS.items() if text.endswith(t)), (0.0, 0.0))
    vector = [x, y] + [0.0] * (dim - 2)
    if (x, y) == (0.0, 0.0):
        vector[-1] = 1.0
    return vector


@pytest.fixture
def planned() -> Iterator[OllamaEmbedder]:
    with FakeOllama(FakeOllamaState(dim=8, embed=planned_embed)) as server:
        yield OllamaEmbedder("mxbai-embed-large", host=server.url, timeout=5)


@pytest.fixture(params=["edge", "qdrant-local"])
def any_index(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[VectorIndex]:
    built: VectorIndex = (
        EdgeIndex(tmp_path / "index") if request.param == "edge" else QdrantServerIndex(":memory:")
    )
    yield built
    built.close()


def remember_all(store: PostgresStore, index: VectorIndex, embedder: OllamaEmbedder) -> None:
    writer = MemoryWriter(
        store.memories, store.relationships, Indexer(store.queue, index, embedder)
    )
    for text in VECTORS:
        if text != QUERY:
            writer.remember(NewMemory("u1", "aria", text))
    store.relationships.set_stage("u1", "aria", Stage.ESTABLISHED)


def retriever(
    store: PostgresStore, index: VectorIndex, embedder: OllamaEmbedder, source: CandidateSource
) -> Retriever:
    return Retriever(
        store.reads,
        index,
        embedder,
        timeout=5,
        weights=RankingWeights(max_candidates=3),
        candidates=source,
    )


def test_a_word_match_the_nearest_vectors_missed_is_found_with_its_real_cosine(
    store: PostgresStore, any_index: VectorIndex, planned: OllamaEmbedder
) -> None:
    remember_all(store, any_index, planned)
    biscuit = "The user's cat Biscuit hates the vacuum cleaner."
    dense = retriever(store, any_index, planned, CandidateSource.DENSE)
    fused = retriever(store, any_index, planned, CandidateSource.FUSED)
    try:
        seed = dense.retrieve("u1", "aria", QUERY)
        assert biscuit not in [r.memory.text for r in seed.chosen]
        assert all(e.lexical_rank is None for e in seed.evidence.values())

        result = fused.retrieve("u1", "aria", QUERY)
        assert result.chosen[0].memory.text == biscuit
        top = result.chosen[0]
        evidence = result.evidence[top.memory.id]
        assert evidence.dense_rank is None and evidence.lexical_rank == 1
        assert evidence.similarity == pytest.approx(0.85, abs=1e-4)
        # It holds every rare word of the query: its cosine plus the whole word weight.
        assert evidence.lexical_score == pytest.approx(1)
        assert evidence.relevance == pytest.approx(0.85 + FusionWeights().lexical_weight, abs=1e-4)
        assert evidence.fused_rank == 1
        assert top.score is not None and top.score.similarity == evidence.relevance
        # No word of the query in the others: each keeps exactly its cosine.
        others = [result.evidence[r.memory.id] for r in result.chosen[1:]]
        assert [e.relevance for e in others] == [e.similarity for e in others]
        assert len(result.evidence) == 3  # still at most max_candidates
        assert result.timings.lookup is not None and result.timings.profile is not None
        assert not result.is_degraded
    finally:
        dense.close()
        fused.close()


def test_a_word_match_without_a_vector_is_not_compared_by_meaning(
    store: PostgresStore, any_index: VectorIndex, planned: OllamaEmbedder
) -> None:
    remember_all(store, any_index, planned)
    pending = save(store, "Biscuit's vet is on Elm Street.")  # never indexed: no vector
    fused = retriever(store, any_index, planned, CandidateSource.FUSED)
    try:
        result = fused.retrieve("u1", "aria", QUERY)
    finally:
        fused.close()
    assert pending not in result.evidence
    assert pending not in [r.memory.id for r in result.chosen]


def test_without_the_embedder_word_matches_do_not_stand_in_for_meaning(
    store: PostgresStore, any_index: VectorIndex, planned: OllamaEmbedder
) -> None:
    remember_all(store, any_index, planned)
    down = OllamaEmbedder("mxbai-embed-large", host=f"http://127.0.0.1:{closed_port()}", timeout=1)
    fused = retriever(store, any_index, down, CandidateSource.FUSED)
    try:
        result = fused.retrieve("u1", "aria", QUERY)
    finally:
        fused.close()
    assert result.is_degraded and result.relevant == ()
