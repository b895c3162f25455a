"""The trip of one message end to end: real PostgreSQL, a real index, the ollama client over
HTTP to a fake server whose vectors come from the scenario embedder (tests/fakes/concepts.py)."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import closing
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import psycopg
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aria_mem.adapters.embedders.ollama import OllamaEmbedder
from aria_mem.adapters.postgres.store import PostgresStore
from aria_mem.adapters.qdrant_edge import EdgeIndex
from aria_mem.adapters.qdrant_server import QdrantServerIndex
from aria_mem.domain import fate
from aria_mem.domain.fusion import CandidateSource
from aria_mem.domain.models import (
    MEMORIES_COLLECTION,
    DropReason,
    Hit,
    IndexPoint,
    Kind,
    MemoryStatus,
    MemoryType,
    NewMemory,
    Stage,
)
from aria_mem.domain.payload import memory_payload
from aria_mem.domain.ranking import DEFAULT_WEIGHTS
from aria_mem.domain.records import MemoryChanges
from aria_mem.domain.retrieval import SearchResult
from aria_mem.domain.selection import Section
from aria_mem.errors import NotFoundError
from aria_mem.ports import VectorIndex
from aria_mem.services.indexer import Indexer
from aria_mem.services.retriever import Retriever
from aria_mem.services.writer import MemoryWriter
from tests.conftest import closed_port
from tests.fakes.ollama_server import FakeOllama, FakeOllamaState

MODEL = "ollama/mxbai-embed-large"


@pytest.fixture
def embedder(concept_ollama: FakeOllama) -> OllamaEmbedder:
    return OllamaEmbedder("mxbai-embed-large", host=concept_ollama.url, timeout=5)


@pytest.fixture
def index(tmp_path: Path) -> Iterator[EdgeIndex]:
    built = EdgeIndex(tmp_path / "index")
    yield built
    built.close()


@pytest.fixture
def retriever(
    store: PostgresStore, index: EdgeIndex, embedder: OllamaEmbedder
) -> Iterator[Retriever]:
    r = Retriever(store.reads, index, embedder, timeout=5)
    yield r
    r.close()


def remember(
    store: PostgresStore, index: VectorIndex, embedder: OllamaEmbedder, text: str, **kw: object
) -> uuid.UUID:
    fields: dict[str, object] = {"user_id": "u1", "companion_id": "aria", "text": text}
    fields.update(kw)
    result = MemoryWriter(
        store.memories, store.relationships, Indexer(store.queue, index, embedder)
    ).remember(NewMemory(**fields))  # type: ignore[arg-type]
    return result.memory.id


def _fate(store: PostgresStore, result: SearchResult, memory_id: uuid.UUID) -> fate.Fate:
    """What `search --why` says (the API does the same lookup)."""
    seen = fate.in_result(result, memory_id)
    if seen is not None:
        return seen
    try:
        stored = store.memories.get(memory_id)
    except NotFoundError:
        stored = None
    return fate.unseen(result, memory_id, stored, datetime.now(UTC))


def texts(result: object, section: Section | None = None) -> list[str]:
    return [
        r.memory.text
        for r in result.chosen  # type: ignore[attr-defined]
        if section is None or r.section is section
    ]


def test_short_follow_up_finds_the_sister_through_the_previous_message(
    store: PostgresStore, index: EdgeIndex, embedder: OllamaEmbedder, retriever: Retriever
) -> None:
    remember(
        store,
        index,
        embedder,
        "The user's sister loves pottery.",
        type=MemoryType.RELATIONSHIP_FACT,
        importance=0.6,
    )
    remember(store, index, embedder, "The user's cat sleeps all day.")
    alone = retriever.retrieve("u1", "aria", "I need to find a gift")
    assert texts(alone) == []
    follow_up = retriever.retrieve(
        "u1",
        "aria",
        "I need to find a gift",
        previous="My sister's getting married in June",
    )
    assert texts(follow_up, Section.RELEVANT) == ["The user's sister loves pottery."]
    assert "- [RelationshipFact] The user's sister loves pottery. (confidence: high)" in (
        follow_up.prompt
    )
    assert not follow_up.is_degraded


def test_peanut_allergy_arrives_through_the_profile_in_a_dinner_turn(
    store: PostgresStore, index: EdgeIndex, embedder: OllamaEmbedder, retriever: Retriever
) -> None:
    remember(
        store,
        index,
        embedder,
        "The user is allergic to peanuts.",
        type=MemoryType.PROFILE_FACT,
        importance=0.95,
        confidence=0.95,
    )
    remember(store, index, embedder, "The user loves jazz.", importance=0.9)
    result = retriever.retrieve("u1", "aria", "Any ideas for dinner tonight?")
    assert texts(result, Section.PROFILE) == ["The user is allergic to peanuts."]
    assert texts(result, Section.RELEVANT) == []
    assert result.prompt.startswith("USER PROFILE DATA\n")
    assert "- [ProfileFact] The user is allergic to peanuts. (confidence: high)" in result.prompt


def test_fathers_death_ranks_above_pizza_when_both_are_loosely_related(
    store: PostgresStore, index: EdgeIndex, embedder: OllamaEmbedder, retriever: Retriever
) -> None:
    store.relationships.set_stage("u1", "aria", Stage.ESTABLISHED)
    remember(
        store,
        index,
        embedder,
        "The user's father died last spring.",
        type=MemoryType.EPISODIC_EVENT,
        importance=0.9,
        emotional_significance=0.95,
    )
    remember(
        store,
        index,
        embedder,
        "The user likes pineapple on pizza.",
        type=MemoryType.PREFERENCE,
        importance=0.3,
        emotional_significance=0.1,
    )
    result = retriever.retrieve("u1", "aria", "pizza night with my dad")
    ranked = result.selection.relevant
    assert [r.memory.text for r in ranked] == [
        "The user's father died last spring.",
        "The user likes pineapple on pizza.",
    ]
    father, pizza = (r.score for r in ranked)
    assert father is not None and pizza is not None
    assert father.similarity < pizza.similarity and father.total > pizza.total


def test_near_repeats_give_way_to_the_memory_that_answers_and_explain_says_so(
    store: PostgresStore, index: EdgeIndex, embedder: OllamaEmbedder, retriever: Retriever
) -> None:
    store.relationships.set_stage("u1", "aria", Stage.ESTABLISHED)
    calls = [
        remember(store, index, embedder, f"The user's sister phoned on {day} to moan about work.")
        for day in ("Monday", "Tuesday", "Friday")
    ]
    answer = remember(
        store, index, embedder, "The user's sister got a new job as a violin teacher."
    )
    # Every memory holds the message's one rare word ('sister'), so the words lift all alike
    # and the repeat rule decides. (Asked "... for work?", the calls would hold both rare
    # words and the answer one: the words, added to the cosine, then put the three calls
    # first, each repeat's discount (0.33) short of its lift over the answer.)
    result = retriever.retrieve("u1", "aria", "What does my sister do?")
    order = [r.memory.id for r in result.selection.relevant]
    assert order[1] == answer  # the calls are nearer (cosine 0.89 against 0.82)
    cosine = {mid: e.similarity or 0.0 for mid, e in result.evidence.items()}
    assert cosine[answer] < min(cosine[c] for c in calls)
    repeats = {c: result.evidence[c].repeat for c in calls}
    assert order[0] in calls and repeats[order[0]] is None
    for call in calls:
        if call != order[0]:
            repeat = repeats[call]
            assert repeat is not None and repeat.of in calls and repeat.discount > 0
    # What explain shows is what the ranking took off.
    for ranked in result.selection.relevant:
        shown = result.evidence[ranked.memory.id].repeat
        assert ranked.score is not None
        assert ranked.score.repeat == (shown.discount if shown else 0.0)


def test_a_search_counts_no_use_and_a_recorded_use_counts_once(
    store: PostgresStore, index: EdgeIndex, embedder: OllamaEmbedder, retriever: Retriever
) -> None:
    mid = remember(store, index, embedder, "The user's sister loves pottery.")
    result = retriever.retrieve("u1", "aria", "my sister")
    assert [r.memory.id for r in result.chosen] == [mid]
    assert store.memories.get(mid).use_count == 0
    store.reads.record_use([r.memory.id for r in result.chosen])
    used = store.memories.get(mid)
    assert used.use_count == 1 and used.last_used_at is not None


def test_postgres_has_the_final_say_over_stale_vectors(
    store: PostgresStore, index: EdgeIndex, embedder: OllamaEmbedder, retriever: Retriever
) -> None:
    ids = {
        name: remember(store, index, embedder, f"The user's sister {name} loves pottery.")
        for name in ("kept", "deleted", "archived", "expired", "held")
    }
    stale = {mid: store.memories.get(mid) for mid in ids.values()}
    with psycopg.connect(store.db.dsn, autocommit=True) as conn:  # behind the writer's back,
        conn.execute("DELETE FROM memories WHERE id = %s", (ids["deleted"],))  # as a crash
        conn.execute("UPDATE memories SET status = 'archived' WHERE id = %s", (ids["archived"],))
        conn.execute(
            "UPDATE memories SET expires_at = now() - interval '1 day' WHERE id = %s",
            (ids["expired"],),
        )
        conn.execute("UPDATE memories SET held_until_stage = 'close' WHERE id = %s", (ids["held"],))
    assert index.count(MEMORIES_COLLECTION) == 5  # every vector is still there
    assert len(stale) == 5
    result = retriever.retrieve("u1", "aria", "my sister")
    assert [r.memory.id for r in result.chosen] == [ids["kept"]]
    reasons = {d.memory_id: d.reason for d in result.selection.dropped}
    assert reasons == {
        ids["deleted"]: DropReason.DELETED,
        ids["archived"]: DropReason.ARCHIVED,
        ids["expired"]: DropReason.EXPIRED,
        ids["held"]: DropReason.HELD,
    }


def test_a_held_memory_is_released_when_the_stage_allows(
    store: PostgresStore, index: EdgeIndex, embedder: OllamaEmbedder, retriever: Retriever
) -> None:
    mid = remember(
        store,
        index,
        embedder,
        "The user's father died last spring.",
        held_until_stage=Stage.ESTABLISHED,
        importance=0.9,
    )
    assert texts(retriever.retrieve("u1", "aria", "my dad died")) == []
    assert (
        _fate(store, retriever.retrieve("u1", "aria", "my dad died"), mid).outcome
        == f"dropped: {DropReason.HELD.value}"
    )
    store.relationships.set_stage("u1", "aria", Stage.ESTABLISHED)
    Indexer(store.queue, index, embedder).run_pending()
    assert texts(retriever.retrieve("u1", "aria", "my dad died")) == [
        "The user's father died last spring."
    ]


def test_fate_explains_memories_the_search_never_saw(
    store: PostgresStore, index: EdgeIndex, embedder: OllamaEmbedder, retriever: Retriever
) -> None:
    near = remember(store, index, embedder, "The user's sister loves pottery.")
    far = remember(store, index, embedder, "The user loves jazz.", importance=0.2)
    other_user = remember(store, index, embedder, "The user's sister is Ann.", user_id="u2")
    pending = store.memories.save(
        NewMemory(user_id="u1", companion_id="aria", text="The user's sister likes tea.")
    ).memory.id
    old_model = store.memories.save(
        NewMemory(user_id="u1", companion_id="aria", text="The user's sister sings.")
    ).memory
    store.queue.mark_indexed(
        Kind.MEMORY, [(old_model.id, old_model.updated_at)], "ollama/old-model"
    )
    result = retriever.retrieve("u1", "aria", "my sister")
    assert _fate(store, result, near).outcome == "selected #1 (relevant)"
    assert _fate(store, result, far).outcome == f"dropped: {DropReason.BELOW_THRESHOLD.value}"
    assert _fate(store, result, other_user).outcome == f"dropped: {DropReason.OTHER_SCOPE.value}"
    assert _fate(store, result, pending).outcome == f"dropped: {DropReason.NOT_INDEXED.value}"
    assert _fate(store, result, old_model.id).outcome == (
        f"dropped: {DropReason.OTHER_MODEL.value}"
    )
    assert _fate(store, result, uuid.uuid4()).outcome == "dropped: does not exist"


def test_every_stage_is_timed(
    store: PostgresStore,
    index: EdgeIndex,
    embedder: OllamaEmbedder,
    retriever: Retriever,
    caplog: pytest.LogCaptureFixture,
) -> None:
    remember(store, index, embedder, "The user's sister loves pottery.")
    with caplog.at_level("INFO", logger="aria_mem.services.retriever"):
        result = retriever.retrieve("u1", "aria", "my sister")
    assert {name for name, _ in result.timings.items()} == {
        "profile",  # with the word search: one connection
        "embed",
        "search",
        "validate",
        "rank",
        "format",
        "total",
    }
    assert all(v >= 0 for _, v in result.timings.items())
    assert "embed=" in caplog.text and "validate=" in caplog.text and "total=" in caplog.text


# -- degraded paths -------------------------------------------------------------------------


def _with_profile(
    store: PostgresStore, index: VectorIndex, embedder: OllamaEmbedder
) -> tuple[uuid.UUID, uuid.UUID]:
    """The profile fact (an allergy) and a memory that is not one; their ids."""
    allergy = remember(
        store,
        index,
        embedder,
        "The user is allergic to peanuts.",
        type=MemoryType.PROFILE_FACT,
        importance=0.95,
    )
    return allergy, remember(store, index, embedder, "The user's sister loves pottery.")


def test_embedder_down_gives_the_profile_and_says_so(
    store: PostgresStore,
    index: EdgeIndex,
    embedder: OllamaEmbedder,
    caplog: pytest.LogCaptureFixture,
) -> None:
    _with_profile(store, index, embedder)
    down = OllamaEmbedder("mxbai-embed-large", host=f"http://127.0.0.1:{closed_port()}", timeout=2)
    r = Retriever(store.reads, index, down, timeout=5)
    with caplog.at_level("WARNING"):
        result = r.retrieve("u1", "aria", "my sister")
    r.close()
    assert texts(result) == ["The user is allergic to peanuts."]
    assert result.is_degraded and "start Ollama" in result.degraded[0]
    assert "retrieval degraded" in caplog.text


def test_index_down_gives_the_profile(
    store: PostgresStore, index: EdgeIndex, embedder: OllamaEmbedder
) -> None:
    _with_profile(store, index, embedder)
    dead = QdrantServerIndex(f"http://127.0.0.1:{closed_port()}", timeout=1)
    r = Retriever(store.reads, dead, embedder, timeout=5)
    result = r.retrieve("u1", "aria", "my sister")
    r.close()
    assert texts(result) == ["The user is allergic to peanuts."]
    assert result.is_degraded and "is it running" in result.degraded[0]


def test_a_local_index_that_fails_gives_the_profile_and_says_so(
    store: PostgresStore, index: EdgeIndex, embedder: OllamaEmbedder, tmp_path: Path
) -> None:
    """Qdrant Edge in this process that refuses (closed when the service let it go) skips
    only the meaning side."""
    _with_profile(store, index, embedder)
    closed = EdgeIndex(tmp_path / "index")
    closed.close()  # a late call after the service let go of the index
    r = Retriever(store.reads, closed, embedder, timeout=5)
    result = r.retrieve("u1", "aria", "my sister and her pottery")
    r.close()
    assert texts(result) == ["The user is allergic to peanuts."]
    assert result.is_degraded and "semantic retrieval skipped" in result.degraded[0]
    assert "was closed here" in result.degraded[0]


def test_a_local_index_held_by_other_work_is_cut_off_by_the_timeout(
    store: PostgresStore, index: EdgeIndex, embedder: OllamaEmbedder
) -> None:
    """An index in this process is searched by the worker too, so the turn keeps its deadline
    when the index is busy with other work (another client's write, the orphan sweep)."""
    _with_profile(store, index, embedder)
    r = Retriever(store.reads, index, embedder, timeout=0.5)
    r.retrieve("u1", "aria", "my sister")  # warm: the model and the shards answer
    holding = threading.Event()
    release = threading.Event()

    def hold() -> None:
        with index._lock:  # as upsert-and-flush or the orphan sweep's ids() hold it
            holding.set()
            release.wait(10)

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        holding.wait(5)
        started = time.monotonic()
        result = r.retrieve("u1", "aria", "my sister")
        took = time.monotonic() - started
    finally:
        release.set()
        holder.join()
        r.close()
    assert took < 5  # the lock was held for up to 10 s
    assert texts(result) == ["The user is allergic to peanuts."]
    assert result.is_degraded and "took longer than 0.5s" in result.degraded[0]


class _BusyAfterItsSearch(EdgeIndex):
    """The real local index, which other work (an upsert-and-flush, the orphan sweep) takes
    for 10 s right after a search answered: the look-up of the word matches' cosines that
    follows finds it busy."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.release = threading.Event()
        self.armed = False

    def search(self, *args: Any, **kwargs: Any) -> list[Hit]:
        found = super().search(*args, **kwargs)
        if self.armed and len(args) < 5:  # a search, not the look-up by ids
            self.armed = False
            holding = threading.Event()

            def hold() -> None:
                with self._lock:
                    holding.set()
                    self.release.wait(10)

            threading.Thread(target=hold, daemon=True).start()
            holding.wait(5)
        return found


def test_an_index_busy_before_the_look_up_costs_only_the_look_up(
    store: PostgresStore, embedder: OllamaEmbedder, tmp_path: Path
) -> None:
    """The cosines of the word matches the search missed are looked up by the worker too, so
    a busy index cannot hold the turn past its deadline there either, and what the search
    found in time is kept."""
    busy = _BusyAfterItsSearch(tmp_path / "busy-index")
    _with_profile(store, busy, embedder)
    remember(store, busy, embedder, "The user's brother loves pottery.")
    one = replace(DEFAULT_WEIGHTS, max_candidates=1)  # so the search misses a word match
    r = Retriever(store.reads, busy, embedder, timeout=0.5, weights=one, knowledge_limit=0)
    try:
        warm = r.retrieve("u1", "aria", "who loves pottery")
        assert not warm.is_degraded and "lookup" in dict(warm.timings.items())
        busy.armed = True
        started = time.monotonic()
        result = r.retrieve("u1", "aria", "who loves pottery")
        took = time.monotonic() - started
    finally:
        busy.release.set()
        r.close()
        busy.close()
    assert took < 5  # the index was held for up to 10 s
    late = "word matches not compared by meaning: not looked up within the 0.5s deadline"
    assert result.degraded == (late,)
    assert [e.dense_rank for e in result.fused.values()] == [1]  # the search's hit is kept
    assert "The user is allergic to peanuts." in texts(result)


class _LateOpening:
    """The real reads, whose opening read (profile and word search) answers after the
    retrieval's deadline, as a PostgreSQL just under its own statement timeout does."""

    def __init__(self, reads: Any, late: float) -> None:
        self._reads = reads
        self._late = late

    def opening(self, *args: Any, **kwargs: Any) -> Any:
        opened = self._reads.opening(*args, **kwargs)
        time.sleep(self._late)
        return opened

    def __getattr__(self, name: str) -> Any:
        return getattr(self._reads, name)


def test_word_matches_that_come_after_the_deadline_are_said_to_be_left_out(
    store: PostgresStore, index: EdgeIndex, embedder: OllamaEmbedder
) -> None:
    """The worker looks up the word matches' cosines only until the deadline; a word search
    that answers later leaves its matches the search missed uncompared, and the result says
    so rather than dropping them silently."""
    _with_profile(store, index, embedder)
    remember(store, index, embedder, "The user's brother loves pottery.")
    one = replace(DEFAULT_WEIGHTS, max_candidates=1)  # so the search misses a word match
    late = _LateOpening(store.reads, 0.6)
    r = Retriever(late, index, embedder, timeout=0.5, weights=one, knowledge_limit=0)
    try:
        result = r.retrieve("u1", "aria", "who loves pottery")
    finally:
        r.close()
    said = "word matches not compared by meaning: the word search answered after the 0.5s deadline"
    assert result.degraded == (said,)
    assert [e.dense_rank for e in result.fused.values()] == [1]


def test_a_fault_no_adapter_foresaw_on_the_meaning_side_still_gives_the_profile(
    store: PostgresStore,
    index: EdgeIndex,
    embedder: OllamaEmbedder,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A memory failure never reaches the caller, even one no adapter turns into a service
    error (a bug in a model client, say): the turn gets the profile, says what was skipped,
    and the log keeps the traceback."""
    _with_profile(store, index, embedder)

    class Broken(OllamaEmbedder):
        def embed_query(self, text: str) -> list[float]:
            raise RuntimeError("a bug in the model client")

    broken = Broken("mxbai-embed-large", host=f"http://127.0.0.1:{closed_port()}", timeout=2)
    with caplog.at_level("ERROR"), closing(Retriever(store.reads, index, broken)) as retriever:
        result = retriever.retrieve("u1", "aria", "my sister")
    said = "semantic retrieval skipped: RuntimeError: a bug in the model client"
    assert result.degraded == (said,) and texts(result) == ["The user is allergic to peanuts."]
    assert "Traceback" in caplog.text and "a bug in the model client" in caplog.text


class _LookUpBug(EdgeIndex):
    """The real local index, whose look-up by ids meets a fault no adapter foresaw."""

    def search(self, *args: Any, **kwargs: Any) -> list[Hit]:
        if len(args) >= 5:
            raise RuntimeError("a bug in the look-up")
        return super().search(*args, **kwargs)


def test_a_fault_in_the_look_up_alone_keeps_what_the_search_found(
    store: PostgresStore, embedder: OllamaEmbedder, tmp_path: Path
) -> None:
    buggy = _LookUpBug(tmp_path / "buggy-index")
    _with_profile(store, buggy, embedder)
    remember(store, buggy, embedder, "The user's brother loves pottery.")
    one = replace(DEFAULT_WEIGHTS, max_candidates=1)  # so the search misses a word match
    with closing(Retriever(store.reads, buggy, embedder, weights=one, knowledge_limit=0)) as r:
        result = r.retrieve("u1", "aria", "who loves pottery")
    buggy.close()
    said = "word matches not compared by meaning: RuntimeError: a bug in the look-up"
    assert result.degraded == (said,)
    assert [e.dense_rank for e in result.fused.values()] == [1]


def test_a_hung_embedder_is_cut_off_by_the_timeout(
    store: PostgresStore, index: EdgeIndex, embedder: OllamaEmbedder
) -> None:
    _with_profile(store, index, embedder)

    def slow_embed(text: str, dim: int) -> list[float]:
        time.sleep(6)
        return [1.0] * dim

    with FakeOllama(FakeOllamaState(dim=16, embed=slow_embed)) as slow:
        r = Retriever(
            store.reads, index, OllamaEmbedder("mxbai-embed-large", host=slow.url), timeout=0.5
        )
        started = time.monotonic()
        result = r.retrieve("u1", "aria", "my sister")
        elapsed = time.monotonic() - started
        r.close()
    assert texts(result) == ["The user is allergic to peanuts."]
    assert "took longer than 0.5s" in result.degraded[0]
    assert elapsed < 5  # the reply did not wait the 6 s the embedder takes


def test_postgres_locked_degrades_instead_of_hanging(
    store: PostgresStore, index: EdgeIndex, embedder: OllamaEmbedder
) -> None:
    _with_profile(store, index, embedder)
    r = Retriever(store.reads, index, embedder, timeout=0.5)
    locked, release = threading.Event(), threading.Event()

    def hold_lock() -> None:
        with psycopg.connect(store.db.dsn) as conn:
            conn.execute("LOCK TABLE memories IN ACCESS EXCLUSIVE MODE")
            locked.set()
            release.wait(10)

    holder = threading.Thread(target=hold_lock)
    holder.start()
    locked.wait(5)
    try:
        result = r.retrieve("u1", "aria", "my sister")
    finally:
        release.set()
        holder.join()
    assert result.chosen == [] and result.is_degraded
    assert "PostgreSQL" in result.degraded[0]
    assert texts(r.retrieve("u1", "aria", "my sister"))  # and back again
    r.close()


# -- isolation, property-based --------------------------------------------------------------

USERS, COMPANIONS, MODELS = ["u1", "u2", "u3"], ["aria", "nova"], [MODEL, "ollama/other"]
FATES = ["active", "archived", "deleted", "expired", "held", "pending"]

memory_specs = st.lists(
    st.tuples(
        st.sampled_from(USERS),
        st.sampled_from(COMPANIONS),
        st.sampled_from(MODELS),
        st.sampled_from(FATES),
        st.booleans(),
    ),
    min_size=1,
    max_size=25,
)


@pytest.mark.slow
@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    specs=memory_specs,
    who=st.sampled_from([(u, c) for u in USERS for c in COMPANIONS]),
    stage=st.sampled_from(list(Stage)),
)
def test_no_result_ever_crosses_user_companion_model_or_usability(
    store: PostgresStore,
    tmp_path: Path,
    embedder: OllamaEmbedder,
    specs: list[tuple[str, str, str, str, bool]],
    who: tuple[str, str],
    stage: Stage,
) -> None:
    with psycopg.connect(store.db.dsn, autocommit=True) as conn:
        conn.execute("TRUNCATE memories, relationships, vector_deletions CASCADE")
    index = EdgeIndex(tmp_path / f"iso-{uuid.uuid4().hex}")
    index.ensure_collection(MEMORIES_COLLECTION, 16)
    same_vector = [1.0] + [0.0] * 15  # every candidate is a perfect match: only filters decide
    allowed: set[uuid.UUID] = set()
    for n, (user, companion, model, outcome, profile) in enumerate(specs):
        memory = store.memories.save(
            NewMemory(
                user_id=user,
                companion_id=companion,
                text=f"memory {n} zebra{n}",  # a word of its own, for the word search
                type=MemoryType.PROFILE_FACT if profile else MemoryType.EPISODIC_EVENT,
                importance=0.9 if profile else 0.5,
                held_until_stage=Stage.CLOSE if outcome == "held" else None,
                expires_at=datetime.now(UTC) - timedelta(days=1) if outcome == "expired" else None,
            )
        ).memory
        index.upsert(
            MEMORIES_COLLECTION, [IndexPoint(memory.id, same_vector, memory_payload(memory, model))]
        )
        if outcome == "pending":
            pass  # vector from an older write; PostgreSQL still has the row, usable
        if outcome == "archived":
            store.memories.edit(memory.id, MemoryChanges(status=MemoryStatus.ARCHIVED))
        if outcome == "deleted":
            with psycopg.connect(store.db.dsn, autocommit=True) as conn:
                conn.execute("DELETE FROM memories WHERE id = %s", (memory.id,))
        usable = outcome in ("active", "pending") or (outcome == "held" and stage is Stage.CLOSE)
        if (user, companion) == who and usable and (model == MODEL or profile):
            allowed.add(memory.id)

    class SameVector(OllamaEmbedder):
        def _embed_batch(self, texts: list[str]) -> list[list[float]]:
            return [same_vector for _ in texts]

    r = Retriever(store.reads, index, SameVector("mxbai-embed-large"), timeout=5)
    store.relationships.set_stage(who[0], who[1], stage)
    # Every memory's own word is in the message, so the word search offers all of them too
    # (with their rows, never read again): it must not let anything past the filters either.
    message = " ".join(f"zebra{n}" for n in range(len(specs)))
    result = r.retrieve(who[0], who[1], message)
    r.close()
    index.close()
    chosen = {x.memory.id for x in result.chosen}
    assert chosen <= allowed
    for x in result.chosen:
        assert (x.memory.user_id, x.memory.companion_id) == who
        assert x.memory.status is MemoryStatus.ACTIVE
    assert len(chosen) == min(len(allowed), result.selection.cap)  # and nothing usable is lost


def test_the_query_is_embedded_as_a_query(
    store: PostgresStore,
    index: EdgeIndex,
    embedder: OllamaEmbedder,
    retriever: Retriever,
    concept_ollama: FakeOllama,
) -> None:
    from aria_mem.domain.instructions import RETRIEVAL_INSTRUCTION

    retriever.retrieve("u1", "aria", "I need a gift", previous="My sister")
    assert concept_ollama.state.embed_calls[-1] == [
        RETRIEVAL_INSTRUCTION + "My sister\nI need a gift"
    ]


class _CountedReads:
    """The real reads, keeping the ids each validation read was asked for."""

    def __init__(self, reads: Any) -> None:
        self._reads = reads
        self.validated: list[uuid.UUID] = []

    def fetch_with_usability(self, memory_ids: Any, timeout: float | None = None) -> Any:
        self.validated.extend(memory_ids)
        return self._reads.fetch_with_usability(memory_ids, timeout)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._reads, name)


def test_a_candidate_the_profile_already_brought_is_not_read_again(
    store: PostgresStore, index: EdgeIndex, embedder: OllamaEmbedder
) -> None:
    """Step 8 reads the rows of the candidates it has not read yet: the profile's came at the
    start of the trip, checked usable there, as the word matches' did."""
    allergy, pottery = _with_profile(store, index, embedder)
    counted = _CountedReads(store.reads)
    dense = CandidateSource.DENSE  # no word matches: every candidate comes from the index
    retriever = Retriever(counted, index, embedder, timeout=5, knowledge_limit=0, candidates=dense)
    with closing(retriever) as r:
        result = r.retrieve("u1", "aria", "what about peanuts and my sister")
    assert {allergy, pottery} <= set(result.fused)  # both candidates of the index
    assert allergy in {m.memory.id for m in result.profile}
    assert allergy not in counted.validated and pottery in counted.validated
