"""The reconciler: whatever failed, every usable memory ends up findable under the current
model, and nothing that may not be used stays findable.

One pass does bounded work (a few batches), so a backlog of 100k is worked off over passes
without starving anything; the orphan sweep compares the index's ids with PostgreSQL's and runs
at start and on a slower schedule.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field

from aria_mem.domain.models import MEMORIES_COLLECTION
from aria_mem.errors import ServiceError
from aria_mem.ports import Embedder, MemoryStore, VectorIndex
from aria_mem.services.indexer import Indexer

log = logging.getLogger(__name__)


@dataclass
class PassReport:
    indexed: int = 0
    removed: int = 0
    failed: int = 0
    deletions_done: int = 0
    expired_found: int = 0
    pending_left: int = 0
    duration_ms: float = 0.0
    errors: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


@dataclass
class SweepReport:
    index_points: int = 0
    orphans_removed: int = 0
    missing_requeued: int = 0
    duration_ms: float = 0.0

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


class Reconciler:
    def __init__(
        self,
        store: MemoryStore,
        index: VectorIndex,
        embedder: Embedder,
        *,
        batch_size: int = 256,
        max_batches: int = 8,
    ) -> None:
        self._store = store
        self._index = index
        self._embedder = embedder
        self._indexer = Indexer(store, index, embedder)
        self._batch_size = batch_size
        self._max_batches = max_batches

    def run_pass(self, should_stop: Callable[[], bool] = lambda: False) -> PassReport:
        """Index pending memories, remove vectors that may no longer be used, carry out queued
        removals; at most ``max_batches`` batches. Service failures are reported, not raised."""
        started = time.perf_counter()
        report = PassReport()
        try:
            report.expired_found = self._store.mark_expired_pending()
            done = self._indexer.run_pending(
                batch_size=self._batch_size, max_batches=self._max_batches, should_stop=should_stop
            )
            report.indexed, report.removed = done.indexed, done.removed
            report.failed, report.deletions_done = done.failed, done.deletions_done
            report.errors = done.errors
            report.pending_left = self._store.pending_count()
        except ServiceError as exc:
            report.errors.append(str(exc))
        report.duration_ms = round((time.perf_counter() - started) * 1000, 1)
        return report

    def sweep(self) -> SweepReport:
        """Remove index points whose memory should have no vector under the current model
        (deleted, unusable, or an older model's vector), and requeue memories PostgreSQL
        believes indexed but the index has lost (e.g. its directory was deleted)."""
        started = time.perf_counter()
        model = self._embedder.model_name
        in_index = set(self._index.ids(MEMORIES_COLLECTION))
        expected = self._store.indexed_ids(model)
        orphans = in_index - expected
        # a memory indexed a moment ago may be missing from the snapshot; look again
        missing = expected - in_index
        if orphans:  # written since the first look? then they are not orphans
            orphans -= self._store.indexed_ids(model)
        if orphans:
            self._index.delete(MEMORIES_COLLECTION, sorted(orphans))
        if missing:
            still_missing = missing - set(self._index.ids(MEMORIES_COLLECTION))
            self._store.mark_pending(sorted(still_missing))
            missing = still_missing
        return SweepReport(
            len(in_index),
            len(orphans),
            len(missing),
            round((time.perf_counter() - started) * 1000, 1),
        )
