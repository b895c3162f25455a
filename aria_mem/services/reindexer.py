"""Re-indexing: after a switch of embedding model, or to rebuild a lost index from PostgreSQL.

The work is recorded in PostgreSQL (entries marked pending, a re-index run row), so it is
resumable: killed halfway, running it again, or the daemon, continues where it stopped. During
the run searches filter on the new model, so vectors of two models are never compared; what is
not re-embedded yet is simply not findable by meaning, and the profile still works.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from aria_mem.domain.models import Kind
from aria_mem.domain.records import SweepReport
from aria_mem.ports import DaemonRecords, Embedder, IndexQueue, VectorIndex
from aria_mem.services.indexer import DEFAULT_BATCH, Indexer
from aria_mem.services.reconciler import Reconciler

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ReindexPlan:
    model: str
    dimension: int
    recreated: tuple[str, ...]
    marked: int
    total: int
    done_before: int = 0
    """Already re-indexed by an earlier, interrupted run of the same model (resumed)."""

    @property
    def resumed(self) -> bool:
        return self.done_before > 0


@dataclass(frozen=True)
class ReindexOutcome:
    plan: ReindexPlan
    done: int
    failed: int
    sweep: SweepReport | None
    """The sweep of the old model's vectors; None while entries are left (not finished)."""
    background: bool = False
    """Left to the daemon: nothing was done here."""

    @property
    def finished(self) -> bool:
        return self.sweep is not None


class Reindexer:
    def __init__(
        self,
        queue: IndexQueue,
        runs: DaemonRecords,
        index: VectorIndex,
        embedder: Embedder,
        *,
        batch_size: int = DEFAULT_BATCH,
    ) -> None:
        self._queue = queue
        self._runs = runs
        self._index = index
        self._embedder = embedder
        self._batch_size = batch_size

    def prepare(self, *, rebuild: bool, background: bool = False) -> ReindexPlan:
        """Learn the model's dimension, (re)create collections whose size differs, mark what
        needs a new vector pending and record the run. An unfinished run of the same model
        (killed, or stopped) is resumed instead: nothing already re-indexed is marked again."""
        dimension = self._embedder.dimension()
        recreated = []
        for kind in Kind:
            size = self._index.collection_size(kind.collection)
            if size is not None and size != dimension:
                self._index.drop_collection(kind.collection)
                recreated.append(kind.collection)
            self._index.ensure_collection(kind.collection, dimension)
        model = self._embedder.model_name
        unfinished = self._runs.open_reindex()
        if unfinished is not None and unfinished.model == model and not recreated:
            log.info(
                "resuming the re-index to %s: %d of %d left",
                model,
                unfinished.pending,
                unfinished.total,
            )
            return ReindexPlan(model, dimension, (), 0, unfinished.total, unfinished.done)
        marked = self._queue.mark_pending_for_model(model, force=rebuild or bool(recreated))
        total = self._queue.pending_count()
        self._runs.start_reindex(model, total, background)
        log.info(
            "re-index to %s: %d-dimensional, %d entries to do, recreated %s",
            model,
            dimension,
            total,
            recreated or "nothing",
        )
        return ReindexPlan(model, dimension, tuple(recreated), marked, total)

    def run(
        self,
        plan: ReindexPlan,
        progress: Callable[[int], None] | None = None,
        should_stop: Callable[[], bool] = lambda: False,
    ) -> ReindexOutcome:
        """Work through every pending entry; when none is left, sweep away the vectors of the
        old model and close the run."""
        report = Indexer(self._queue, self._index, self._embedder).run_pending(
            batch_size=self._batch_size, progress=progress, should_stop=should_stop
        )
        done = report.indexed + report.removed
        if should_stop() or self._queue.pending_count():
            return ReindexOutcome(plan, done, report.failed, None)
        sweep = Reconciler(self._queue, self._index, self._embedder).sweep()
        self._runs.finish_reindex(self._embedder.model_name)
        return ReindexOutcome(plan, done, report.failed, sweep)
