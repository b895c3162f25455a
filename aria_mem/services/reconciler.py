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

from aria_mem.domain.models import Kind
from aria_mem.domain.records import PassReport, SweepReport
from aria_mem.errors import ServiceError
from aria_mem.ports import Embedder, IndexQueue, VectorIndex
from aria_mem.services.indexer import DEFAULT_BATCH, Indexer

log = logging.getLogger(__name__)


class Reconciler:
    def __init__(
        self,
        queue: IndexQueue,
        index: VectorIndex,
        embedder: Embedder,
        *,
        batch_size: int = DEFAULT_BATCH,
        max_batches: int = 8,
    ) -> None:
        self._queue = queue
        self._index = index
        self._embedder = embedder
        self._indexer = Indexer(queue, index, embedder)
        self._batch_size = batch_size
        self._max_batches = max_batches

    def run_pass(self, should_stop: Callable[[], bool] = lambda: False) -> PassReport:
        """Index pending entries, remove vectors that may no longer be used, carry out queued
        removals; at most ``max_batches`` batches. Service failures are reported, not raised."""
        started = time.perf_counter()
        report = PassReport()
        try:
            report.expired_found = self._queue.mark_expired_pending()
            done = self._indexer.run_pending(
                batch_size=self._batch_size, max_batches=self._max_batches, should_stop=should_stop
            )
            report.add(done)
            report.pending_left = self._queue.pending_count()
        except ServiceError as exc:
            report.errors.append(str(exc))
        report.duration_ms = round((time.perf_counter() - started) * 1000, 1)
        return report

    def sweep(self) -> SweepReport:
        """Remove index points that should have no vector under the current model (deleted,
        unusable, forgotten knowledge, or an older model's vector), and requeue entries
        PostgreSQL believes indexed but the index has lost (e.g. its folder was deleted)."""
        started = time.perf_counter()
        report = SweepReport()
        for kind in Kind:
            points, orphans, missing = self._sweep_collection(kind)
            report.index_points += points
            report.orphans_removed += orphans
            report.missing_requeued += missing
        report.duration_ms = round((time.perf_counter() - started) * 1000, 1)
        return report

    def _sweep_collection(self, kind: Kind) -> tuple[int, int, int]:
        model = self._embedder.model_name
        in_index = set(self._index.ids(kind.collection))
        expected = self._queue.indexed_ids(kind, model)
        orphans = in_index - expected
        missing = expected - in_index
        if orphans:  # written since the first look? then they are not orphans
            orphans -= self._queue.indexed_ids(kind, model)
        if orphans:
            self._index.delete(kind.collection, sorted(orphans))
        if missing:  # indexed a moment ago, after the snapshot? look again
            missing -= set(self._index.ids(kind.collection))
            self._queue.mark_pending(kind, sorted(missing))
        return len(in_index), len(orphans), len(missing)
