"""The trip of one message: query, embed, search, validate, rank, format.

A straight pipeline of steps that return values. A memory failure never reaches the caller:
if the embedder or the index fails or is too slow, semantic retrieval is skipped (and logged),
the profile from PostgreSQL still comes back, and the result says it is degraded. Each stage is
timed and the timings are logged. Retrieval counts no use: the caller records the memories its
reply used (``record_use``).
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import TypeVar

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
    DropReason,
    Hit,
    Memory,
    SearchScope,
    Stage,
)
from aria_mem.domain.prompt import PromptSections
from aria_mem.domain.query import build_query
from aria_mem.domain.ranking import DEFAULT_WEIGHTS, RankingWeights
from aria_mem.domain.retrieval import KnowledgeHit, SearchResult, Timings, prompt_record
from aria_mem.domain.selection import Dropped, Selection, select
from aria_mem.domain.usability import unusable_reason
from aria_mem.errors import ServiceError
from aria_mem.ports import Embedder, RetrievalReads, VectorIndex
from aria_mem.services.background import DeadlinePool

log = logging.getLogger(__name__)

T = TypeVar("T")


@dataclass(frozen=True)
class _Found:
    """What the index returned for the query (empty, with the reason, when it failed), and
    the cosine of the word matches the nearest vectors missed."""

    memories: list[Hit] = field(default_factory=list)
    knowledge: list[Hit] = field(default_factory=list)
    looked_up: dict[uuid.UUID, float] = field(default_factory=dict)
    rows: Future[dict[uuid.UUID, tuple[Memory, bool]]] | None = None
    """PostgreSQL's rows for every candidate, fetched while the cosines are looked up."""


@dataclass(frozen=True)
class _Validated:
    """PostgreSQL's final say over the index's candidates."""

    usable: list[tuple[Memory, float]] = field(default_factory=list)
    rejected: list[Dropped] = field(default_factory=list)
    problem: str | None = None


class _Stopwatch:
    def __init__(self) -> None:
        self.started = time.perf_counter()
        self.ms: dict[str, float] = {}

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        finally:
            self.ms[name] = round((time.perf_counter() - start) * 1000, 3)

    def timings(self) -> Timings:
        total = round((time.perf_counter() - self.started) * 1000, 3)
        return Timings(**self.ms, total=total)


class Retriever:
    def __init__(
        self,
        reads: RetrievalReads,
        index: VectorIndex,
        embedder: Embedder,
        *,
        min_similarity: float = 0.45,
        timeout: float = 2.0,
        weights: RankingWeights = DEFAULT_WEIGHTS,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        knowledge_limit: int = 5,
        candidates: CandidateSource = CandidateSource.FUSED,
        fusion: FusionWeights = DEFAULT_FUSION,
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
        self, user_id: str, companion_id: str, message: str, previous: str | None = None
    ) -> SearchResult:
        """Never raises for a memory failure; see ``SearchResult.degraded``."""
        watch = _Stopwatch()
        query = build_query(message, previous)
        model = self._embedder.model_name
        now = self._clock()

        def profile() -> tuple[Stage, list[Memory]]:
            with watch.stage("profile"):
                return self._reads.retrieval_context(user_id, companion_id, timeout=self._timeout)

        def words() -> list[LexicalHit]:
            with watch.stage("lexical"):
                return self._reads.lexical_candidates(
                    user_id,
                    companion_id,
                    query,
                    self._fusion.lexical_candidates,
                    timeout=self._timeout,
                )

        # PostgreSQL's parts run while the query embeds.
        context = self._pool.submit(profile)
        use_words = self._candidates is CandidateSource.FUSED and bool(query)
        lexical = self._pool.submit(words) if use_words else None
        found, matches, problems = self._find(
            query, SearchScope(user_id, companion_id, model), lexical, watch
        )
        try:
            stage, profile_pool = context.result(timeout=self._timeout + 1)
        except (ServiceError, FutureTimeout) as exc:
            reason = exc if isinstance(exc, ServiceError) else "no answer in time"
            problems.insert(0, f"PostgreSQL unavailable, no memories this turn: {reason}")
            return self._finish(
                SearchResult(user_id, companion_id, query, model, degraded=tuple(problems)),
                watch,
            )
        evidence = fuse(
            [(h.id, h.score) for h in found.memories],
            matches,
            found.looked_up,
            self._weights.max_candidates,
            self._fusion,
        )
        candidates = [Hit(mid, e.relevance, {}) for mid, e in evidence.items()]
        validated = self._validate(candidates, found.rows, user_id, companion_id, stage, now)
        knowledge, knowledge_problem = self._knowledge(found.knowledge, companion_id, stage)
        problems += [p for p in (validated.problem, knowledge_problem) if p]
        with watch.stage("rank"):
            selection = select(
                profile_pool=profile_pool,
                candidates=validated.usable,
                stage=stage,
                min_similarity=self._min_similarity,
                now=now,
                weights=self._weights,
                rejected=validated.rejected,
            )
        with watch.stage("format"):
            sections = _sections(selection, knowledge)
        return self._finish(
            SearchResult(
                user_id,
                companion_id,
                query,
                model,
                stage,
                selection,
                tuple(knowledge),
                sections,
                len(evidence),
                degraded=tuple(problems),
                evidence=evidence,
            ),
            watch,
        )

    def _find(
        self,
        query: str,
        scope: SearchScope,
        lexical: Future[list[LexicalHit]] | None,
        watch: _Stopwatch,
    ) -> tuple[_Found, list[LexicalHit], list[str]]:
        """Embed once, search memories (and knowledge) within the timeout; collect the word
        matches and look up the cosine of those the nearest vectors missed."""
        if not query:
            return _Found(), [], []
        knowledge_scope = SearchScope(
            KNOWLEDGE_SCOPE_USER, scope.companion_id, scope.embedding_model
        )

        def embed_and_search() -> tuple[list[float], list[Hit], list[Hit]]:
            """One job, not two: a hand-over between threads costs more than a search."""
            with watch.stage("embed"):
                vector = self._embedder.embed_query(query)
            with watch.stage("search"):
                memories = self._index.search(
                    MEMORIES_COLLECTION, vector, scope, self._weights.max_candidates
                )
                passages = (
                    self._index.search(
                        KNOWLEDGE_COLLECTION, vector, knowledge_scope, self._knowledge_limit
                    )
                    if self._knowledge_limit
                    else []
                )
            return vector, memories, passages

        deadline = time.monotonic() + self._timeout
        try:
            vector, memories, passages = _wait(self._pool.submit(embed_and_search), deadline)
        except FutureTimeout:
            problem = (
                f"embedding or index search took longer than {self._timeout:g}s; "
                "semantic retrieval skipped"
            )
            return _Found(), [], [problem]
        except ServiceError as exc:
            problem = f"semantic retrieval skipped: {exc}"
            return _Found(), [], [problem]
        matches, problems = self._word_matches(lexical, deadline)
        dense = [(h.id, h.score) for h in memories]
        missed = lexical_only(dense, matches)

        def fetch() -> dict[uuid.UUID, tuple[Memory, bool]]:
            with watch.stage("validate"):
                return self._reads.fetch_with_usability(
                    [mid for mid, _ in dense] + missed, timeout=self._timeout
                )

        rows = self._pool.submit(fetch) if dense or missed else None
        looked_up: dict[uuid.UUID, float] = {}
        if missed:
            try:
                with watch.stage("lookup"):
                    hits = _wait(
                        self._pool.submit(
                            self._index.search,
                            MEMORIES_COLLECTION,
                            vector,
                            scope,
                            len(missed),
                            missed,
                        ),
                        deadline,
                    )
                looked_up = {h.id: h.score for h in hits}
            except (FutureTimeout, ServiceError) as exc:
                problems.append(f"word matches not compared by meaning: {exc or 'no time left'}")
        return _Found(memories, passages, looked_up, rows), matches, problems

    def _word_matches(
        self, lexical: Future[list[LexicalHit]] | None, deadline: float
    ) -> tuple[list[LexicalHit], list[str]]:
        if lexical is None:
            return [], []
        try:
            return _wait(lexical, deadline), []
        except FutureTimeout:
            return [], [f"lexical search took longer than {self._timeout:g}s; skipped"]
        except ServiceError as exc:
            return [], [f"lexical search skipped: {exc}"]

    def _validate(
        self,
        hits: list[Hit],
        rows_future: Future[dict[uuid.UUID, tuple[Memory, bool]]] | None,
        user_id: str,
        companion_id: str,
        stage: Stage,
        now: datetime,
    ) -> _Validated:
        """Deleted, archived, expired, held and foreign memories are dropped even if the
        index still had a vector for them."""
        if not hits or rows_future is None:
            return _Validated()
        try:
            rows = rows_future.result(timeout=self._timeout + 1)
        except (ServiceError, FutureTimeout) as exc:
            return _Validated(problem=f"could not validate candidates: {exc or 'no time left'}")
        result = _Validated()
        for hit in hits:
            found = rows.get(hit.id)
            if found is None:
                result.rejected.append(Dropped(hit.id, DropReason.DELETED, hit.score))
                continue
            memory, usable = found
            if (memory.user_id, memory.companion_id) != (user_id, companion_id):
                result.rejected.append(Dropped(hit.id, DropReason.OTHER_SCOPE, hit.score))
            elif not usable:
                reason = unusable_reason(memory, stage, now) or DropReason.HELD
                result.rejected.append(Dropped(hit.id, reason, hit.score, memory))
            else:
                result.usable.append((memory, hit.score))
        return result

    def _knowledge(
        self, hits: list[Hit], companion_id: str, stage: Stage
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
            if h.id in items and items[h.id].companion_id == companion_id
        ], None

    def _finish(self, result: SearchResult, watch: _Stopwatch) -> SearchResult:
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


def _wait(future: Future[T], deadline: float) -> T:
    return future.result(timeout=max(0.0, deadline - time.monotonic()))


def _sections(selection: Selection, knowledge: list[KnowledgeHit]) -> PromptSections:
    return PromptSections.build(
        [prompt_record(r.memory) for r in selection.profile],
        [prompt_record(r.memory) for r in selection.relevant],
        [(k.item.title or k.item.source, k.item.text) for k in knowledge],
    )
