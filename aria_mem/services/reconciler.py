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
from dataclasses import asdict, dataclass

from aria_mem.domain.models import KNOWLEDGE_COLLECTION, MEMORIES_COLLECTION
from aria_mem.errors import ServiceError
from aria_mem.ports import Embedder, MemoryStore, VectorIndex
from aria_mem.services.indexer import Indexer, SyncReport

log = logging.getLogger(__name__)


@dataclass
class PassReport(SyncReport):
    """What the indexer did in the pass, plus what the daemon reports about it."""

    expired_found: int = 0
    pending_left: int = 0
    duration_ms: float = 0.0

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
            report.add(done)
            report.pending_left = self._store.pending_count()
        except ServiceError as exc:
            report.errors.append(str(exc))
        report.duration_ms = round((time.perf_counter() - started) * 1000, 1)
        return report

    def sweep(self) -> SweepReport:
        """Remove index points that should have no vector under the current model (deleted,
        unusable, forgotten knowledge, or an older model's vector), and requeue memories and
        passages PostgreSQL believes indexed but the index has lost (e.g. its directory was
        deleted)."""
        started = time.perf_counter()
        report = SweepReport()
        for collection, knowledge in ((MEMORIES_COLLECTION, False), (KNOWLEDGE_COLLECTION, True)):
            points, orphans, missing = self._sweep_collection(collection, knowledge)
            report.index_points += points
            report.orphans_removed += orphans
            report.missing_requeued += missing
        report.duration_ms = round((time.perf_counter() - started) * 1000, 1)
        return report

    def _sweep_collection(self, collection: str, knowledge: bool) -> tuple[int, int, int]:
        model = self._embedder.model_name
        in_index = set(self._index.ids(collection))
        expected = self._store.indexed_ids(model, knowledge=knowledge)
        orphans = in_index - expected
        missing = expected - in_index
        if orphans:  # written since the first look? then they are not orphans
            orphans -= self._store.indexed_ids(model, knowledge=knowledge)
        if orphans:
            self._index.delete(collection, sorted(orphans))
        if missing:  # indexed a moment ago, after the snapshot? look again
            missing -= set(self._index.ids(collection))
            self._store.mark_pending(sorted(missing), knowledge=knowledge)
        return len(in_index), len(orphans), len(missing)
