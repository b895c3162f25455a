"""The trip of one message: query, embed, search, validate, rank, format.

A memory failure never reaches the caller: if the embedder or the index fails or is too slow,
semantic retrieval is skipped (and logged), the profile from PostgreSQL still comes back, and
the result says it is degraded. Each stage is timed and the timings are logged.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TypeVar

from aria_mem.domain.models import (
    KNOWLEDGE_COLLECTION,
    KNOWLEDGE_SCOPE_USER,
    MEMORIES_COLLECTION,
    Hit,
    KnowledgeItem,
    Memory,
    SearchScope,
    Stage,
)
from aria_mem.domain.prompt import PromptRecord, knowledge_section, memory_sections
from aria_mem.domain.query import build_query
from aria_mem.domain.ranking import DEFAULT_WEIGHTS, RankingWeights
from aria_mem.domain.selection import (
    Dropped,
    DropReason,
    Ranked,
    Selection,
    select,
    unusable_reason,
)
from aria_mem.errors import NotFoundError, ServiceError
from aria_mem.ports import Embedder, MemoryStore, VectorIndex
from aria_mem.services.background import BackgroundTasks, DeadlinePool

log = logging.getLogger(__name__)

T = TypeVar("T")

STAGES = ("profile", "embed", "search", "validate", "rank", "format")


@dataclass
class RetrievalResult:
    user_id: str
    companion_id: str
    query: str
    model: str
    stage: Stage = Stage.EARLY
    selection: Selection = field(default_factory=Selection)
    prompt: str = ""
    candidates: int = 0
    timings_ms: dict[str, float] = field(default_factory=dict)
    degraded: list[str] = field(default_factory=list)
    knowledge: list[tuple[KnowledgeItem, float]] = field(default_factory=list)
    """Passages the companion has read, best first: data from outside, not about the user."""

    @property
    def chosen(self) -> list[Ranked]:
        return self.selection.chosen

    @property
    def is_degraded(self) -> bool:
        return bool(self.degraded)


@dataclass(frozen=True)
class Fate:
    """What happened to one memory in one retrieval, for `search --why`."""

    memory_id: uuid.UUID
    outcome: str
    detail: str
    ranked: Ranked | None = None
    dropped: Dropped | None = None


class Retriever:
    def __init__(
        self,
        store: MemoryStore,
        index: VectorIndex,
        embedder: Embedder,
        *,
        min_similarity: float = 0.45,
        timeout: float = 2.0,
        weights: RankingWeights = DEFAULT_WEIGHTS,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        knowledge_limit: int = 5,
    ) -> None:
        self._store = store
        self._index = index
        self._embedder = embedder
        self._min_similarity = min_similarity
        self._timeout = timeout
        self._weights = weights
        self._clock = clock
        self._pool = DeadlinePool("aria-mem-retrieve")
        self._background = BackgroundTasks("aria-mem-use-count")
        self._knowledge_limit = knowledge_limit

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
        count_use: bool = True,
    ) -> RetrievalResult:
        """Never raises for a memory failure; see ``RetrievalResult.degraded``."""
        started = time.perf_counter()
        result = RetrievalResult(
            user_id, companion_id, build_query(message, previous), self._embedder.model_name
        )
        now = self._clock()

        def profile() -> tuple[Stage, list[Memory]]:
            with self._timed(result, "profile"):
                return self._store.retrieval_context(user_id, companion_id, timeout=self._timeout)

        # PostgreSQL's part runs while the message is embedded and searched.
        profile_future = self._pool.submit(profile)
        hits, knowledge_hits = self._search(result, user_id, companion_id)
        try:
            result.stage, profile_pool = profile_future.result(timeout=self._timeout + 1)
        except (ServiceError, FutureTimeout) as exc:
            reason = exc if isinstance(exc, ServiceError) else "no answer in time"
            self._degrade(result, f"PostgreSQL unavailable, no memories this turn: {reason}")
            return self._finish(result, started)

        candidates: list[tuple[Memory, float]] = []
        rejected: list[Dropped] = []
        if hits:
            try:
                with self._timed(result, "validate"):
                    rows = self._store.fetch_with_usability(
                        [h.id for h in hits], timeout=self._timeout
                    )
            except ServiceError as exc:
                self._degrade(result, f"could not validate candidates: {exc}")
                rows = {}
                hits = []
            for hit in hits:
                candidates_or_reason = self._validate(
                    hit, rows, user_id, companion_id, result.stage, now
                )
                if isinstance(candidates_or_reason, Dropped):
                    rejected.append(candidates_or_reason)
                else:
                    candidates.append(candidates_or_reason)

        if knowledge_hits:
            self._attach_knowledge(result, knowledge_hits)
        with self._timed(result, "rank"):
            result.selection = select(
                profile_pool=profile_pool,
                candidates=candidates,
                stage=result.stage,
                min_similarity=self._min_similarity,
                now=now,
                weights=self._weights,
            )
            result.selection.dropped[:0] = rejected
        with self._timed(result, "format"):
            memories = memory_sections(
                [self._record(r) for r in result.selection.profile],
                [self._record(r) for r in result.selection.relevant],
            )
            passages = knowledge_section(
                [(item.title or item.source, item.text) for item, _ in result.knowledge]
            )
            result.prompt = "\n\n".join(p for p in (memories, passages) if p)
        if count_use:
            self._count_use([r.memory.id for r in result.chosen])
        return self._finish(result, started)

    def _attach_knowledge(self, result: RetrievalResult, hits: list[Hit]) -> None:
        """Passages above the similarity bar that PostgreSQL still has (knowledge forgotten
        since it was indexed is dropped like a deleted memory)."""
        bar = self._weights.threshold(self._min_similarity, result.stage)
        wanted = [h for h in hits if h.score >= bar]
        try:
            items = self._store.knowledge_by_ids([h.id for h in wanted], timeout=self._timeout)
        except ServiceError as exc:
            self._degrade(result, f"knowledge skipped: {exc}")
            return
        result.knowledge = [
            (items[h.id], h.score)
            for h in wanted
            if h.id in items and items[h.id].companion_id == result.companion_id
        ]

    def _search(
        self, result: RetrievalResult, user_id: str, companion_id: str
    ) -> tuple[list[Hit], list[Hit]]:
        """Embed once, search memories (and knowledge) within the timeout; on any failure,
        nothing (and say why)."""
        scope = SearchScope(user_id, companion_id, self._embedder.model_name)
        knowledge_scope = SearchScope(KNOWLEDGE_SCOPE_USER, companion_id, self._embedder.model_name)

        def embed() -> list[float]:
            return self._embedder.embed_query(result.query)

        def search(vector: list[float]) -> tuple[list[Hit], list[Hit]]:
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
            return memories, passages

        if not result.query:
            return [], []
        deadline = time.monotonic() + self._timeout
        try:
            with self._timed(result, "embed"):
                vector = self._wait(self._pool.submit(embed), deadline)
            with self._timed(result, "search"):
                hits, knowledge_hits = self._wait(self._pool.submit(search, vector), deadline)
        except FutureTimeout:
            self._degrade(
                result,
                f"embedding or index search took longer than "
                f"{self._timeout:g}s; semantic retrieval skipped",
            )
            return [], []
        except ServiceError as exc:
            self._degrade(result, f"semantic retrieval skipped: {exc}")
            return [], []
        result.candidates = len(hits)
        return hits, knowledge_hits

    @staticmethod
    def _wait(future: Future[T], deadline: float) -> T:
        return future.result(timeout=max(0.0, deadline - time.monotonic()))

    @staticmethod
    def _validate(
        hit: Hit,
        rows: dict[uuid.UUID, tuple[Memory, bool]],
        user_id: str,
        companion_id: str,
        stage: Stage,
        now: datetime,
    ) -> tuple[Memory, float] | Dropped:
        found = rows.get(hit.id)
        if found is None:
            return Dropped(hit.id, DropReason.DELETED, hit.score)
        memory, usable = found
        if memory.user_id != user_id or memory.companion_id != companion_id:
            return Dropped(hit.id, DropReason.OTHER_SCOPE, hit.score)
        if not usable:
            reason = unusable_reason(memory, stage, now) or DropReason.HELD
            return Dropped(hit.id, reason, hit.score, memory)
        return memory, hit.score

    @staticmethod
    def _record(ranked: Ranked) -> PromptRecord:
        m = ranked.memory
        return PromptRecord(m.type.value, m.text, m.confidence)

    def _count_use(self, ids: list[uuid.UUID]) -> None:
        """Counted in the background so the reply does not wait for the write."""
        if not ids:
            return

        def write() -> None:
            try:
                self._store.record_use(ids)
            except ServiceError as exc:
                log.warning("could not count the use of %d memories: %s", len(ids), exc)

        self._background.run(write)

    def flush(self) -> None:
        """Wait for background use counts (tests, and before a process exits)."""
        self._background.wait()

    def close(self) -> None:
        self.flush()
        self._pool.close()

    @contextmanager
    def _timed(self, result: RetrievalResult, stage: str) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        finally:
            result.timings_ms[stage] = round((time.perf_counter() - start) * 1000, 3)

    @staticmethod
    def _degrade(result: RetrievalResult, reason: str) -> None:
        log.warning(
            "retrieval degraded for user %s / %s: %s", result.user_id, result.companion_id, reason
        )
        result.degraded.append(reason)

    def _finish(self, result: RetrievalResult, started: float) -> RetrievalResult:
        result.timings_ms["total"] = round((time.perf_counter() - started) * 1000, 3)
        log.info(
            "retrieval user=%s companion=%s candidates=%d chosen=%d degraded=%s %s",
            result.user_id,
            result.companion_id,
            result.candidates,
            len(result.chosen),
            bool(result.degraded),
            " ".join(f"{k}={v:.1f}ms" for k, v in result.timings_ms.items()),
        )
        return result

    # -- explaining ---------------------------------------------------------------------

    def fate(self, result: RetrievalResult, memory_id: uuid.UUID) -> Fate:
        """Why a memory was or was not in ``result``."""
        for position, ranked in enumerate(result.chosen, start=1):
            if ranked.memory.id == memory_id:
                how = (
                    f"score {ranked.score.total:.3f}"
                    if ranked.score
                    else "always included (not brought up by the search)"
                )
                return Fate(
                    memory_id, f"selected #{position} ({ranked.section.value})", how, ranked=ranked
                )
        for dropped in result.selection.dropped:
            if dropped.memory_id == memory_id:
                sim = (
                    f"similarity {dropped.similarity:.3f}" if dropped.similarity is not None else ""
                )
                extra = (
                    f" (bar {result.selection.threshold:.2f})"
                    if dropped.reason is DropReason.BELOW_THRESHOLD
                    else ""
                )
                return Fate(
                    memory_id, f"dropped: {dropped.reason.value}", sim + extra, dropped=dropped
                )
        try:
            memory = self._store.get(memory_id)
        except NotFoundError:
            return Fate(memory_id, "dropped: does not exist", "deleted, or never stored")
        if memory.user_id != result.user_id or memory.companion_id != result.companion_id:
            return Fate(
                memory_id,
                f"dropped: {DropReason.OTHER_SCOPE.value}",
                f"it belongs to {memory.user_id} / {memory.companion_id}",
            )
        reason = unusable_reason(memory, result.stage, self._clock())
        if reason is not None:
            return Fate(memory_id, f"dropped: {reason.value}", "PostgreSQL does not allow it")
        if memory.index_state.value == "pending":
            return Fate(
                memory_id,
                f"dropped: {DropReason.NOT_INDEXED.value}",
                memory.index_error or "the next sync or daemon pass indexes it",
            )
        if memory.indexed_model != result.model:
            return Fate(
                memory_id,
                f"dropped: {DropReason.OTHER_MODEL.value}",
                f"indexed with {memory.indexed_model}, searching with {result.model}",
            )
        return Fate(
            memory_id,
            f"dropped: {DropReason.NOT_NEAR.value}",
            f"the index returned {result.candidates} nearer memories",
        )
