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
from aria_mem.domain.records import PassReport, SweepReport, SyncReport
from aria_mem.errors import ServiceError
from aria_mem.ports import Embedder, IndexQueue, VectorIndex
from aria_mem.services.indexer import DEFAULT_BATCH, Indexer

log = logging.getLogger(__name__)

SYNC_ROUNDS = 3


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
        """Compare the index with PostgreSQL entry by entry under the current model: entries
        indexed under another model become pending (a client wrote them during a switch:
        they need this model's vector); entries PostgreSQL believes indexed under this model
        whose vector of it the index lacks (lost, or removed by a sweep that raced a write)
        are requeued; points that should hold no vector of this model are removed, except
        those of pending entries, which the indexer is about to rewrite. Entries indexed under
        another model are looked for again at the end, for one a client marked meanwhile."""
        started = time.perf_counter()
        report = SweepReport()
        report.other_model_requeued = self._queue.mark_pending_for_model(self._embedder.model_name)
        for kind in Kind:
            points, orphans, missing = self._sweep_collection(kind)
            report.index_points += points
            report.orphans_removed += orphans
            report.missing_requeued += missing
        # Again: an entry a client marked indexed under the old model while the collections
        # were compared lost its vector to them above, and needs this model's.
        report.other_model_requeued += self._queue.mark_pending_for_model(self._embedder.model_name)
        report.duration_ms = round((time.perf_counter() - started) * 1000, 1)
        return report

    def sync(self, progress: Callable[[int], None] | None = None) -> SyncReport:
        """`aria-mem sync`: the sweep, then every pending entry indexed, until the index and
        PostgreSQL agree (a few rounds at most: a round requeues only what a write racing it
        left behind)."""
        report = SyncReport()
        for _ in range(SYNC_ROUNDS):
            sweep = self.sweep()
            requeued = sweep.missing_requeued + sweep.other_model_requeued
            report.requeued += requeued
            report.add(self._indexer.run_pending(batch_size=self._batch_size, progress=progress))
            if not requeued or report.failed:
                break
        return report

    def _sweep_collection(self, kind: Kind) -> tuple[int, int, int]:
        model = self._embedder.model_name
        in_index = set(self._index.ids(kind.collection))
        expected = self._queue.indexed_ids(kind, model)
        # read after PostgreSQL: a vector is written before its entry is marked indexed
        of_model = set(self._index.ids(kind.collection, model))
        candidates = in_index - expected
        orphans = self._queue.unwanted(kind, sorted(candidates), model) if candidates else set()
        if orphans:
            self._index.delete(kind.collection, sorted(orphans))
        missing = expected - of_model
        if missing:
            self._queue.mark_pending(kind, sorted(missing))
        return len(in_index), len(orphans), len(missing)
