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
from aria_mem.domain.records import SweepReport, SyncReport
from aria_mem.ports import DaemonRecords, Embedder, IndexQueue, VectorIndex
from aria_mem.services.indexer import DEFAULT_BATCH, Indexer
from aria_mem.services.reconciler import Reconciler

log = logging.getLogger(__name__)

FINAL_ROUNDS = 4
"""Index, sweep, and again while the sweep puts entries back: clients writing under the old
model during a switch can need a round; more means something keeps undoing the work."""


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
        model = self._embedder.model_name
        unfinished = self._runs.open_reindex()
        latest = self._runs.latest_reindex()
        if latest is None or latest.model != model:
            # A switch: recorded before a collection is recreated for the new vector size,
            # so a client whose old-model write the index now refuses learns why at once
            # and follows (the run with its total is recorded below).
            self._runs.start_reindex(model, 0, background)
        recreated = []
        for kind in Kind:
            size = self._index.collection_size(kind.collection)
            if size is not None and size != dimension:
                self._index.drop_collection(kind.collection)
                recreated.append(kind.collection)
            self._index.ensure_collection(kind.collection, dimension)
        if unfinished is not None and unfinished.model == model and not recreated:
            log.info(
                "resuming the re-index to %s: %d of %d left",
                model,
                unfinished.pending,
                unfinished.total,
            )
            return ReindexPlan(model, dimension, (), 0, unfinished.total, unfinished.done)
        force = rebuild or bool(recreated)
        marked = self._queue.mark_pending_for_model(model, force=force)
        total = self._queue.pending_count()
        self._runs.start_reindex(model, total, background)
        # Recorded: from now on a client that indexes under the old model sees the switch
        # after marking its entry (and puts it back pending). What it marked before is
        # caught here.
        marked += self._queue.mark_pending_for_model(model)
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
        old model and close the run. The sweep puts back pending what clients still wrote
        under the old model meanwhile, and anything whose new vector is missing; those are
        indexed and swept again (a few rounds at most) before the run is closed."""
        indexer = Indexer(self._queue, self._index, self._embedder)
        reconciler = Reconciler(self._queue, self._index, self._embedder)
        report = SyncReport()
        sweep: SweepReport | None = None
        for _ in range(FINAL_ROUNDS):
            report.add(
                indexer.run_pending(
                    batch_size=self._batch_size, progress=progress, should_stop=should_stop
                )
            )
            if should_stop() or self._queue.pending_count():
                break
            sweep = reconciler.sweep()
            if not (sweep.missing_requeued or sweep.other_model_requeued):
                self._runs.finish_reindex(self._embedder.model_name)
                break
            log.info(
                "the sweep put back %d entries written under another model and %d missing",
                sweep.other_model_requeued,
                sweep.missing_requeued,
            )
            sweep = None
        return ReindexOutcome(plan, report.indexed + report.removed, report.failed, sweep)
