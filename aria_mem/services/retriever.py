"""The trip of one message, step by step as docs/design.md numbers and names it (``STEPS``):
1 Message, 2 Query, 3 Embedding, 4 Nearest vectors, 5 Profile, 6 Word search, 7 Fusion,
8 Confirmation, 9 Bar and repeat rule, 10 Ranking, 11 Prompt.

A straight line of steps that return values; one hand-over to a worker thread (steps 3-4 and
the cosines of the word matches the index missed, so neither a slow model nor an index busy
with other work can hold the turn past its deadline, while PostgreSQL answers steps 5-6
meanwhile). Each step's rule lives in the domain, one module a step, and none imports a later
one (tests/test_trip.py holds it).

A memory failure never reaches the caller: if the embedder or the index fails or is too slow,
semantic retrieval is skipped (and logged), the profile from PostgreSQL still comes back, and
the result says it is degraded. Each stage is timed and the timings are logged. Retrieval
counts no use: the caller records the memories its reply used (``record_use``).
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Callable
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime

from aria_mem.domain.confirmation import Confirmed, confirm
from aria_mem.domain.fusion import (
    DEFAULT_FUSION,
    CandidateSource,
    FusionWeights,
    LexicalHit,
    fuse,
    lexical_only,
)
from aria_mem.domain.models import (
    KNOWLEDGE_COLLECTION,
    KNOWLEDGE_SCOPE_USER,
    MEMORIES_COLLECTION,
    Hit,
    Memory,
    SearchScope,
    Stage,
)
from aria_mem.domain.prompt import PromptSections
from aria_mem.domain.query import build_query
from aria_mem.domain.ranking import DEFAULT_MIN_SIMILARITY, DEFAULT_WEIGHTS, RankingWeights
from aria_mem.domain.repeats import DEFAULT_REPEATS, RepeatRule
from aria_mem.domain.retrieval import KnowledgeHit, SearchResult, prompt_record, without_postgres
from aria_mem.domain.selection import Selection, select
from aria_mem.domain.time_signal import DEFAULT_TIME, TimeRule, asked
from aria_mem.errors import ServiceError
from aria_mem.ports import Embedder, RetrievalReads, VectorIndex
from aria_mem.services.background import DeadlinePool, wait_until
from aria_mem.services.stopwatch import Stopwatch

log = logging.getLogger(__name__)

STEPS = (
    "Message",
    "Query",
    "Embedding",
    "Nearest vectors",
    "Profile",
    "Word search",
    "Fusion",
    "Confirmation",
    "Bar and repeat rule",
    "Ranking",
    "Prompt",
)
"""The steps of the trip, in order (step 1 is the call of ``Retriever.retrieve``); the
design and docs/retrieval.md number and name them the same."""


@dataclass(frozen=True)
class _Nearest:
    """Steps 3 and 4 (Embedding, Nearest vectors): the query's vector and what the index
    returned for it (nothing, with the reason, when the model or the index failed or was too
    slow)."""

    vector: list[float] | None = None
    memories: list[Hit] = field(default_factory=list)
    knowledge: list[Hit] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    looked_up: dict[uuid.UUID, float] = field(default_factory=dict)
    """The cosine of each word match the nearest vectors missed (step 7 compares every
    candidate by meaning too)."""
    settled: bool = False
    """Whether the look-up was done, had nothing to do, or failed saying so; not when the word
    matches came after the deadline."""


class Retriever:
    def __init__(
        self,
        reads: RetrievalReads,
        index: VectorIndex,
        embedder: Embedder,
        *,
        min_similarity: float = DEFAULT_MIN_SIMILARITY,
        timeout: float = 2.0,
        weights: RankingWeights = DEFAULT_WEIGHTS,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        knowledge_limit: int = 5,
        candidates: CandidateSource = CandidateSource.FUSED,
        fusion: FusionWeights = DEFAULT_FUSION,
        repeats: RepeatRule | None = DEFAULT_REPEATS,
        when: TimeRule | None = DEFAULT_TIME,
    ) -> None:
        self._reads = reads
        self._index = index
        self._embedder = embedder
        self._min_similarity = min_similarity
        self._timeout = timeout
        self._weights = weights
        self._clock = clock
        self._pool = DeadlinePool("aria-mem-retrieve")
        self._knowledge_limit = knowledge_limit
        self._candidates = candidates
        self._fusion = fusion
        self._repeats = repeats
        self._when = when

    def warm_up(self) -> None:
        """Load an in-process embedding model before the first message (it takes seconds,
        which must not count against the retrieval timeout). A model server needs no warm-up,
        and asking it for a test vector could hang for its whole timeout."""
        try:
            self._embedder.warm_up()
        except ServiceError as exc:
            log.warning("the embedding model is not ready: %s", exc)

    # -- the trip -----------------------------------------------------------------------

    def retrieve(
        self,
        user_id: str,
        companion_id: str,
        message: str,
        previous: str | None = None,
        *,
        now: datetime | None = None,
    ) -> SearchResult:
        """Never raises for a memory failure; see ``SearchResult.degraded``. ``now``: the
        moment the message is said (default: the retriever's clock)."""
        watch = Stopwatch()
        now = self._clock() if now is None else now
        query = build_query(message, previous)  # step 2: Query
        question = asked(message, now, self._when) if self._when else None
        scope = SearchScope(user_id, companion_id, self._embedder.model_name)
        deadline = time.monotonic() + self._timeout
        # Steps 3-4 (Embedding, Nearest vectors) run in a worker, bounded by the deadline,
        # while PostgreSQL answers steps 5-6 here; the worker then looks up the cosines of
        # the word matches it is handed (``matched``) that the index missed.
        matched: Future[list[LexicalHit]] = Future()
        found: Future[_Nearest] = Future()
        semantic = (
            self._pool.submit(self._nearest, query, scope, watch, matched, found, deadline)
            if query
            else None
        )
        words = self._candidates == CandidateSource.FUSED and bool(query)
        try:
            with watch.stage("profile"):  # steps 5-6: Profile and Word search, one connection
                opened = self._reads.opening(
                    user_id,
                    companion_id,
                    query,
                    self._fusion.lexical_candidates if words else 0,
                    timeout=self._timeout,
                )
        except ServiceError as exc:
            matched.set_result([])
            skipped = tuple(self._wait(semantic, found, deadline).problems)
            result = without_postgres(
                user_id, companion_id, query, scope.embedding_model, exc, skipped
            )
            return self._finish(result, watch)
        stage, profile_pool, matches = opened.stage, opened.profile, opened.words
        problems = (
            [f"lexical search skipped: {opened.words_skipped}"] if opened.words_skipped else []
        )
        words_late = time.monotonic() > deadline
        matched.set_result(matches)
        nearest = self._wait(semantic, found, deadline)
        problems += nearest.problems
        unsettled = not nearest.settled and nearest.vector is not None
        if unsettled and lexical_only([(h.id, h.score) for h in nearest.memories], matches):
            late = "the word search answered after" if words_late else "not looked up within"
            problems.append(
                f"word matches not compared by meaning: {late} the {self._timeout:g}s deadline"
            )
        # Step 7: Fusion (the word matches the nearest vectors missed have their cosine).
        evidence = fuse(
            [(h.id, h.score) for h in nearest.memories],
            matches,
            nearest.looked_up,
            self._weights.max_candidates,
            self._fusion,
        )
        candidates = [Hit(mid, e.relevance, {}) for mid, e in evidence.items()]
        confirmed = self._confirm(candidates, matches, profile_pool, scope, stage, now, watch)
        knowledge, knowledge_problem = self._knowledge(nearest.knowledge, scope, stage)
        problems += [p for p in (confirmed.problem, knowledge_problem) if p]
        with watch.stage("rank"):  # steps 9-10: Bar and repeat rule, Ranking
            selection = select(
                profile_pool=profile_pool,
                candidates=confirmed.usable,
                stage=stage,
                min_similarity=self._min_similarity,
                now=now,
                weights=self._weights,
                rejected=confirmed.rejected,
                repeats=self._repeats,
                question=question,
                time_rule=self._when or DEFAULT_TIME,
            )
        with watch.stage("format"):  # step 11: Prompt
            sections = _sections(selection, knowledge)
        result = SearchResult(
            user_id,
            companion_id,
            query,
            scope.embedding_model,
            stage,
            selection,
            tuple(knowledge),
            sections,
            degraded=tuple(problems),
            fused=evidence,
            asked=question,
        )
        return self._finish(result, watch)

    def _nearest(
        self,
        query: str,
        scope: SearchScope,
        watch: Stopwatch,
        matched: Future[list[LexicalHit]],
        found: Future[_Nearest],
        deadline: float,
    ) -> _Nearest:
        """Steps 3-4: embed the query once and search the memories (and the companion's
        knowledge); then the cosines of the word matches the search missed, once PostgreSQL
        has ``matched`` them. What the search ``found`` is handed over first, so a look-up
        that misses the deadline costs only the look-up."""
        with watch.stage("embed"):
            vector = self._embedder.embed_query(query)
        with watch.stage("search"):
            memories = self._index.search(
                MEMORIES_COLLECTION, vector, scope, self._weights.max_candidates, with_payload=False
            )
            passages = []
            if self._knowledge_limit:
                knowledge_scope = replace(scope, user_id=KNOWLEDGE_SCOPE_USER)
                passages = self._index.search(
                    KNOWLEDGE_COLLECTION,
                    vector,
                    knowledge_scope,
                    self._knowledge_limit,
                    with_payload=False,
                )
        nearest = _Nearest(vector, memories, passages)
        found.set_result(nearest)
        try:
            matches = wait_until(matched, deadline)
        except FutureTimeout:  # the caller has given up on this turn's look-up
            return nearest
        return self._look_up(nearest, matches, scope, watch)

    def _wait(
        self, job: Future[_Nearest] | None, found: Future[_Nearest], deadline: float
    ) -> _Nearest:
        if job is None:
            return _Nearest()
        try:
            return wait_until(job, deadline)
        except FutureTimeout:
            if found.done():  # the search answered in time; the look-up did not (said above)
                return found.result()
            problem = (
                f"embedding or index search took longer than {self._timeout:g}s; "
                "semantic retrieval skipped"
            )
            return _Nearest(problems=[problem])
        except ServiceError as exc:
            return _Nearest(problems=[f"semantic retrieval skipped: {exc}"])
        except Exception as exc:  # a fault no adapter foresaw: logged whole, the turn goes on
            log.exception("the embedding, index search or look-up failed unexpectedly")
            if found.done():  # only the look-up failed: what the search found is kept
                problem = f"word matches not compared by meaning: {type(exc).__name__}: {exc}"
                searched = found.result()
                return replace(searched, problems=[*searched.problems, problem], settled=True)
            problem = f"semantic retrieval skipped: {type(exc).__name__}: {exc}"
            return _Nearest(problems=[problem])

    def _look_up(
        self, nearest: _Nearest, matches: list[LexicalHit], scope: SearchScope, watch: Stopwatch
    ) -> _Nearest:
        """The cosine of the word matches the nearest vectors missed, so fusion compares
        every candidate by meaning too."""
        missed = lexical_only([(h.id, h.score) for h in nearest.memories], matches)
        if not missed or nearest.vector is None:
            return replace(nearest, settled=True)
        try:
            with watch.stage("lookup"):
                hits = self._index.search(
                    MEMORIES_COLLECTION,
                    nearest.vector,
                    scope,
                    len(missed),
                    missed,
                    with_payload=False,
                )
        except ServiceError as exc:
            problem = f"word matches not compared by meaning: {exc}"
            return replace(nearest, problems=[*nearest.problems, problem], settled=True)
        return replace(nearest, looked_up={h.id: h.score for h in hits}, settled=True)

    def _confirm(
        self,
        hits: list[Hit],
        matches: list[LexicalHit],
        profile: list[Memory],
        scope: SearchScope,
        stage: Stage,
        now: datetime,
        watch: Stopwatch,
    ) -> Confirmed:
        """Step 8: deleted, archived, expired, held and foreign memories are dropped even if the
        index still had a vector for them. The word matches and the profile came with their
        rows, read as usable at the start of this trip; the rest are read here in one query,
        bounded by the store's timeout."""
        if not hits:
            return Confirmed()
        with watch.stage("validate"):
            known = {m.id: (m, True) for m in profile}
            known.update((m.id, (m.memory, True)) for m in matches if m.memory is not None)
            unread = [h.id for h in hits if h.id not in known]
            if unread:
                try:
                    known.update(self._reads.fetch_with_usability(unread, timeout=self._timeout))
                except ServiceError as exc:
                    return Confirmed(problem=f"could not validate candidates: {exc}")
            return confirm(hits, known, scope.user_id, scope.companion_id, stage, now)

    def _knowledge(
        self, hits: list[Hit], scope: SearchScope, stage: Stage
    ) -> tuple[list[KnowledgeHit], str | None]:
        """Passages above the similarity bar that PostgreSQL still has (knowledge forgotten
        since it was indexed is dropped like a deleted memory)."""
        bar = self._weights.threshold(self._min_similarity, stage)
        wanted = [h for h in hits if h.score >= bar]
        if not wanted:
            return [], None
        try:
            items = self._reads.knowledge_by_ids([h.id for h in wanted], timeout=self._timeout)
        except ServiceError as exc:
            return [], f"knowledge skipped: {exc}"
        return [
            KnowledgeHit(items[h.id], h.score)
            for h in wanted
            if h.id in items and items[h.id].companion_id == scope.companion_id
        ], None

    def _finish(self, result: SearchResult, watch: Stopwatch) -> SearchResult:
        timed = replace(result, timings=watch.timings())
        for reason in timed.degraded:
            log.warning(
                "retrieval degraded for user %s / %s: %s", timed.user_id, timed.companion_id, reason
            )
        log.info(
            "retrieval user=%s companion=%s candidates=%d chosen=%d degraded=%s %s",
            timed.user_id,
            timed.companion_id,
            timed.candidates,
            len(timed.chosen),
            timed.is_degraded,
            " ".join(f"{k}={v:.1f}ms" for k, v in timed.timings.items()),
        )
        return timed

    def close(self) -> None:
        self._pool.close()


def _sections(selection: Selection, knowledge: list[KnowledgeHit]) -> PromptSections:
    return PromptSections.build(
        [prompt_record(r.memory) for r in selection.profile],
        [prompt_record(r.memory) for r in selection.relevant],
        [(k.item.title or k.item.source, k.item.text) for k in knowledge],
    )
