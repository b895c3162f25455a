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
from aria_mem.errors import DimensionMismatchError
from aria_mem.ports import DaemonRecords, Embedder, IndexQueue, VectorIndex
from aria_mem.services.indexer import DEFAULT_BATCH, Indexer
from aria_mem.services.reconciler import Reconciler

log = logging.getLogger(__name__)

RECREATE_ATTEMPTS = 5
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
        recreated = [k.collection for k in Kind if self._recreate(k.collection, dimension)]
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

    def _recreate(self, collection: str, dimension: int) -> bool:
        """Make ``collection`` hold ``dimension``-sized vectors; True when it was dropped for
        it. A client still writing with the old model can create it again with the old size
        between the drop and the creation: then it is dropped again (the client's write is
        refused from then on, and it follows the switch recorded before)."""
        dropped = False
        for _ in range(RECREATE_ATTEMPTS):
            size = self._index.collection_size(collection)
            if size is not None and size != dimension:
                self._index.drop_collection(collection)
                dropped = True
            try:
                self._index.ensure_collection(collection, dimension)
                return dropped
            except DimensionMismatchError:
                log.info("'%s' was created again with the old vector size; again", collection)
        self._index.ensure_collection(collection, dimension)
        return dropped

    def run(
        self,
        plan: ReindexPlan,
        progress: Callable[[int], None] | None = None,
        should_stop: Callable[[], bool] = lambda: False,
    ) -> ReindexOutcome:
        """Work through the pending entries, then sweep away the vectors of the old model and
        close the run. The sweep puts back pending what clients still wrote under the old
        model meanwhile, and anything whose new vector is missing; those are indexed and
        swept again (a few rounds at most) before the run is closed.

        A round works off what was pending when it began (plus a batch): entries that clients
        keep writing meanwhile are theirs to index (they follow the switch), so a busy client
        cannot keep the run from ending. The sweep never removes a pending entry's vector,
        and an entry still pending when the run closes is indexed by its writer, the daemon
        or `aria-mem sync`. A round whose entries failed is tried again; entries that keep
        failing leave the run open (run it again when the model answers)."""
        indexer = Indexer(self._queue, self._index, self._embedder)
        reconciler = Reconciler(self._queue, self._index, self._embedder)
        report = SyncReport()
        failed = 0
        for _ in range(FINAL_ROUNDS):
            backlog = -(-self._queue.pending_count() // self._batch_size) + 1
            done = indexer.run_pending(
                batch_size=self._batch_size,
                max_batches=backlog,
                progress=progress,
                should_stop=should_stop,
            )
            report.add(done)
            failed = done.failed
            if should_stop():
                break
            if failed:
                continue
            sweep = reconciler.sweep()
            if not (sweep.missing_requeued or sweep.other_model_requeued):
                self._runs.finish_reindex(self._embedder.model_name)
                return ReindexOutcome(plan, report.indexed + report.removed, 0, sweep)
            log.info(
                "the sweep put back %d entries written under another model and %d missing",
                sweep.other_model_requeued,
                sweep.missing_requeued,
            )
        return ReindexOutcome(plan, report.indexed + report.removed, failed, None)
