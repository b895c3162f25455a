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
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, wait
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from aria_mem.domain.admission import Admitted, admit
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
from aria_mem.domain.retrieval import KnowledgeHit, SearchResult, prompt_record
from aria_mem.domain.selection import Selection, select
from aria_mem.errors import ServiceError
from aria_mem.ports import Embedder, RetrievalReads, VectorIndex
from aria_mem.services.background import DeadlinePool, run_into, wait_until
from aria_mem.services.stopwatch import Stopwatch

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class _Found:
    """What the index returned for the query (empty, with the reason, when it failed), the
    word matches, and the cosine of those the nearest vectors missed."""

    memories: list[Hit] = field(default_factory=list)
    knowledge: list[Hit] = field(default_factory=list)
    matches: list[LexicalHit] = field(default_factory=list)
    looked_up: dict[uuid.UUID, float] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class _Rows:
    """PostgreSQL's rows for candidates, each with whether it may be used now (or why they
    could not be read)."""

    found: dict[uuid.UUID, tuple[Memory, bool]] = field(default_factory=dict)
    problem: str | None = None


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
        watch = Stopwatch()
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

        # The semantic part (embed, search, then the cosine of the word matches) runs in a
        # thread, bounded by the deadline; PostgreSQL's parts are asked here meanwhile, each
        # bounded by the store's timeout: the profile (first: a server that cannot answer it
        # is not waited for again over the words) and the words while the query embeds, the
        # nearest vectors' rows while the word matches are looked up. One thread hand-over
        # in all: each cost more than the step it handed over (Edge holds the GIL).
        use_words = self._candidates is CandidateSource.FUSED and bool(query)
        lexical: Future[list[LexicalHit]] | None = Future() if use_words else None
        nearest: Future[_Rows | list[uuid.UUID]] = Future()
        deadline = time.monotonic() + self._timeout
        semantic = self._start_semantic(
            query, SearchScope(user_id, companion_id, model), lexical, nearest, deadline, watch
        )
        try:
            stage, profile_pool = profile()
        except ServiceError as exc:
            if lexical is not None:
                lexical.set_exception(exc)
            problems = [f"PostgreSQL unavailable, no memories this turn: {exc}"]
            problems += self._semantic_result(semantic, deadline).problems
            return self._finish(
                SearchResult(user_id, companion_id, query, model, degraded=tuple(problems)),
                watch,
            )
        if lexical is not None:
            run_into(lexical, words)
        rows = self._rows_of_nearest(semantic, nearest, deadline, watch)
        found = self._semantic_result(semantic, deadline)
        problems = list(found.problems)
        evidence = fuse(
            [(h.id, h.score) for h in found.memories],
            found.matches,
            found.looked_up,
            self._weights.max_candidates,
            self._fusion,
        )
        candidates = [Hit(mid, e.relevance, {}) for mid, e in evidence.items()]
        validated = self._validate(
            candidates, rows, found, user_id, companion_id, stage, now, watch
        )
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

    def _start_semantic(
        self,
        query: str,
        scope: SearchScope,
        lexical: Future[list[LexicalHit]] | None,
        nearest: Future[_Rows | list[uuid.UUID]],
        deadline: float,
        watch: Stopwatch,
    ) -> Future[_Found] | None:
        """Embed once, search memories (and knowledge), collect the word matches and look up
        the cosine of those the nearest vectors missed: one job in one thread, waited for
        until the deadline. The nearest vectors' rows (``nearest``) are read by whichever
        thread would otherwise wait: here while the words are still coming, by the caller
        while the look-up runs here."""
        if not query:
            return None
        knowledge_scope = SearchScope(
            KNOWLEDGE_SCOPE_USER, scope.companion_id, scope.embedding_model
        )

        def semantic() -> _Found:
            with watch.stage("embed"):
                vector = self._embedder.embed_query(query)
            with watch.stage("search"):
                memories = self._index.search(
                    MEMORIES_COLLECTION,
                    vector,
                    scope,
                    self._weights.max_candidates,
                    with_payload=False,
                )
                passages = (
                    self._index.search(
                        KNOWLEDGE_COLLECTION,
                        vector,
                        knowledge_scope,
                        self._knowledge_limit,
                        with_payload=False,
                    )
                    if self._knowledge_limit
                    else []
                )
            ids = [h.id for h in memories]
            words_ready = lexical is None or lexical.done()
            if not words_ready:  # read the rows here while the words are still coming
                nearest.set_result(self._read_rows(ids, watch))
            matches, problems = self._word_matches(lexical, deadline)
            missed = lexical_only([(h.id, h.score) for h in memories], matches)
            if words_ready:  # the caller reads the rows while the look-up runs here
                nearest.set_result(ids if missed else self._read_rows(ids, watch))
            looked_up: dict[uuid.UUID, float] = {}
            if missed:
                try:
                    with watch.stage("lookup"):
                        hits = self._index.search(
                            MEMORIES_COLLECTION,
                            vector,
                            scope,
                            len(missed),
                            missed,
                            with_payload=False,
                        )
                    looked_up = {h.id: h.score for h in hits}
                except ServiceError as exc:
                    problems.append(f"word matches not compared by meaning: {exc}")
            return _Found(memories, passages, matches, looked_up, problems)

        return self._pool.submit(semantic)

    def _semantic_result(self, job: Future[_Found] | None, deadline: float) -> _Found:
        if job is None:
            return _Found()
        try:
            return wait_until(job, deadline)
        except FutureTimeout:
            problem = (
                f"embedding or index search took longer than {self._timeout:g}s; "
                "semantic retrieval skipped"
            )
            return _Found(problems=[problem])
        except ServiceError as exc:
            return _Found(problems=[f"semantic retrieval skipped: {exc}"])

    def _rows_of_nearest(
        self,
        semantic: Future[_Found] | None,
        nearest: Future[_Rows | list[uuid.UUID]],
        deadline: float,
        watch: Stopwatch,
    ) -> _Rows:
        """The rows of the nearest vectors, read as soon as the search has found them (and
        none when the semantic part ends, or the deadline passes, without a search)."""
        if semantic is None:
            return _Rows()
        either: list[Future[Any]] = [nearest, semantic]
        wait(either, max(0.0, deadline - time.monotonic()), FIRST_COMPLETED)
        if not nearest.done():
            return _Rows()
        got = nearest.result()
        return got if isinstance(got, _Rows) else self._read_rows(got, watch)

    def _read_rows(self, ids: list[uuid.UUID], watch: Stopwatch) -> _Rows:
        """PostgreSQL's rows for ``ids`` (bounded by the store's timeout), or the problem."""
        if not ids:
            return _Rows()
        try:
            with watch.stage("validate"):
                return _Rows(self._reads.fetch_with_usability(ids, timeout=self._timeout))
        except ServiceError as exc:
            return _Rows(problem=f"could not validate candidates: {exc}")

    def _word_matches(
        self, lexical: Future[list[LexicalHit]] | None, deadline: float
    ) -> tuple[list[LexicalHit], list[str]]:
        if lexical is None:
            return [], []
        try:
            return wait_until(lexical, deadline), []
        except FutureTimeout:
            return [], [f"lexical search took longer than {self._timeout:g}s; skipped"]
        except ServiceError as exc:
            return [], [f"lexical search skipped: {exc}"]

    def _validate(
        self,
        hits: list[Hit],
        rows: _Rows,
        found: _Found,
        user_id: str,
        companion_id: str,
        stage: Stage,
        now: datetime,
        watch: Stopwatch,
    ) -> Admitted:
        """Deleted, archived, expired, held and foreign memories are dropped even if the
        index still had a vector for them. The nearest vectors' rows were read during the
        look-up and the word matches came with theirs; one a store did not send is read here."""
        if not hits:
            return Admitted()
        if rows.problem:
            return Admitted(problem=rows.problem)
        known = dict(rows.found)
        known.update((m.id, (m.memory, True)) for m in found.matches if m.memory is not None)
        unread = self._read_rows([h.id for h in hits if h.id not in known], watch)
        if unread.problem:
            return Admitted(problem=unread.problem)
        known.update(unread.found)
        return admit(hits, known, user_id, companion_id, stage, now)

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
