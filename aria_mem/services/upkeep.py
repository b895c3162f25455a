"""What the daemon does to keep the index healthy, and what it reports to `status`."""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import UTC, datetime

from aria_mem.domain.records import DaemonState, DimensionCheck, PassReport, SweepReport
from aria_mem.errors import ServiceError
from aria_mem.ports import DaemonStart, Embedder, Store, VectorIndex
from aria_mem.services.health import check_dimension
from aria_mem.services.reconciler import Reconciler

log = logging.getLogger(__name__)


class Upkeep:
    def __init__(self, store: Store, index: VectorIndex, embedder: Embedder) -> None:
        self._store = store
        self._index = index
        self._embedder = embedder
        self._reconciler = Reconciler(store.queue, index, embedder)

    @property
    def model(self) -> str:
        return self._embedder.model_name

    def started(self, start: DaemonStart) -> None:
        self._store.migrate()
        self._store.daemon.daemon_started(start)

    def check_dimension(self) -> DimensionCheck:
        """Check the model's vector size against the collections and record the result."""
        found = check_dimension(self._index, self._embedder)
        self._store.daemon.daemon_heartbeat(dimension=found)
        if found.ok is None:
            log.warning("dimension check postponed: %s", found.error)
        elif not found.ok:
            log.error("dimension mismatch: %s; no vectors will be written", found.error)
        return found

    def requeue_other_models(self) -> int:
        """Entries indexed under another model become pending, to be re-embedded."""
        return self._store.queue.mark_pending_for_model(self.model)

    def sweep(self) -> SweepReport | None:
        """The orphan sweep, recorded; None (and logged) when a service failed."""
        try:
            report = self._reconciler.sweep()
        except ServiceError as exc:
            log.warning("orphan sweep failed: %s", exc)
            return None
        report.at = datetime.now(UTC).isoformat()
        self._store.daemon.daemon_heartbeat(last_sweep=report)
        return report

    def run_pass(self, should_stop: Callable[[], bool]) -> PassReport:
        report = self._reconciler.run_pass(should_stop)
        report.at = datetime.now(UTC).isoformat()
        self._store.daemon.daemon_heartbeat(last_pass=report)
        return report

    def finish_reindex_if_done(self, report: PassReport) -> str | None:
        """Close a re-index run of the current model once nothing is left (after a sweep
        that removes the old model's vectors); the model, when one was finished."""
        run = self._store.daemon.open_reindex()
        if run is None or run.model != self.model or report.pending_left:
            return None
        self.sweep()
        self._store.daemon.finish_reindex(run.model)
        return run.model

    def heartbeat(self) -> None:
        self._store.daemon.daemon_heartbeat()

    def stopped(self) -> None:
        self._store.daemon.daemon_stopped()

    def state(self) -> DaemonState | None:
        return self._store.daemon.daemon_state()
