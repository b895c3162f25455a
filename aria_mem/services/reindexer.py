"""Re-indexing: after a switch of embedding model, or to rebuild a lost index from PostgreSQL.

The work is recorded in PostgreSQL (memories marked pending, a re-index run row), so it is
resumable: killed halfway, running it again, or the daemon, continues where it stopped. During
the run searches filter on the new model, so vectors of two models are never compared; what is
not re-embedded yet is simply not findable by meaning, and the profile still works.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from aria_mem.domain.models import KNOWLEDGE_COLLECTION, MEMORIES_COLLECTION
from aria_mem.ports import Embedder, MemoryStore, VectorIndex
from aria_mem.services.indexer import Indexer
from aria_mem.services.reconciler import Reconciler, SweepReport

log = logging.getLogger(__name__)


@dataclass
class ReindexPlan:
    model: str
    dimension: int
    recreated: list[str]
    marked: int
    total: int
    done_before: int = 0
    """Already re-indexed by an earlier, interrupted run of the same model (resumed)."""

    @property
    def resumed(self) -> bool:
        return self.done_before > 0


class Reindexer:
    def __init__(
        self, store: MemoryStore, index: VectorIndex, embedder: Embedder, *, batch_size: int = 256
    ) -> None:
        self._store = store
        self._index = index
        self._embedder = embedder
        self._batch_size = batch_size

    def prepare(self, *, rebuild: bool, background: bool = False) -> ReindexPlan:
        """Learn the model's dimension, (re)create collections whose size differs, mark what
        needs a new vector pending and record the run. An unfinished run of the same model
        (killed, or stopped) is resumed instead: nothing already re-indexed is marked again."""
        dimension = self._embedder.dimension()
        recreated = []
        for collection in (MEMORIES_COLLECTION, KNOWLEDGE_COLLECTION):
            size = self._index.collection_size(collection)
            if size is not None and size != dimension:
                self._index.drop_collection(collection)
                recreated.append(collection)
            self._index.ensure_collection(collection, dimension)
        model = self._embedder.model_name
        unfinished = self._store.open_reindex()
        if unfinished is not None and unfinished["model"] == model and not recreated:
            total = int(unfinished["total"])
            pending = self._store.pending_count()
            log.info("resuming the re-index to %s: %d of %d left", model, pending, total)
            return ReindexPlan(model, dimension, [], 0, total, max(0, total - pending))
        marked = self._store.mark_pending_for_model(model, force=rebuild or bool(recreated))
        total = self._store.pending_count()
        self._store.start_reindex(model, total, background)
        log.info(
            "re-index to %s: %d-dimensional, %d memories to do, recreated %s",
            model,
            dimension,
            total,
            recreated or "nothing",
        )
        return ReindexPlan(model, dimension, recreated, marked, total)

    def run(
        self,
        progress: Callable[[int], None] | None = None,
        should_stop: Callable[[], bool] = lambda: False,
    ) -> tuple[int, int, SweepReport | None]:
        """Work through every pending memory; when none is left, sweep away the vectors of
        the old model and close the run. Returns (indexed, failed, sweep)."""
        report = Indexer(self._store, self._index, self._embedder).run_pending(
            batch_size=self._batch_size, progress=progress, should_stop=should_stop
        )
        if should_stop() or self._store.pending_count():
            return report.indexed + report.removed, report.failed, None
        sweep = Reconciler(self._store, self._index, self._embedder).sweep()
        self._store.finish_reindex(self._embedder.model_name)
        return report.indexed + report.removed, report.failed, sweep
