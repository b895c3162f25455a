"""What the daemon does to keep the index healthy, and what it reports to `status`."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable
from datetime import UTC, datetime

from aria_mem.domain.hygiene import Retire, RetirementRule, ReviewItem, ReviewKind, stale
from aria_mem.domain.records import DaemonState, DimensionCheck, PassReport, SweepReport
from aria_mem.errors import ServiceError
from aria_mem.ports import DaemonStart, Embedder, Store, VectorIndex
from aria_mem.services.health import check_dimension
from aria_mem.services.reconciler import Reconciler

log = logging.getLogger(__name__)


RETIREMENT_BATCH = 200
"""Stale memories looked at per pass: a first pass over years of memories stays short."""


class Upkeep:
    def __init__(
        self,
        store: Store,
        index: VectorIndex,
        embedder: Embedder,
        *,
        retire: Retire = Retire.PROPOSE,
        retirement: RetirementRule = RetirementRule(),
        consolidate: Callable[[Callable[[], bool]], int] | None = None,
    ) -> None:
        """``retire``: what a pass does with stale memories: "propose" them for review,
        "apply" (archive them, reversible), or "off". ``consolidate``: a consolidation pass
        (``services.consolidator``) after the indexing, given when to stop; how many new
        memories it judged (None: none is made)."""
        self._store = store
        self._index = index
        self._embedder = embedder
        self._reconciler = Reconciler(store.queue, index, embedder)
        self._retire = retire
        self._retirement = retirement
        self._consolidate = consolidate

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

    def retire_stale(self, now: datetime) -> tuple[int, int]:
        """Stale memories (``domain.hygiene.stale``) archived or proposed for review: how
        many of each. Never a delete; a proposal a person rejected is not made again."""
        if self._retire == Retire.OFF:
            return 0, 0
        hygiene = self._store.hygiene
        retired = proposed = 0
        older = now - self._retirement.older_than
        for memory in hygiene.retirement_candidates(older, RETIREMENT_BATCH):
            why = stale(memory, now, self._retirement)
            if why is None:
                continue
            if self._retire == Retire.APPLY:
                hygiene.retire(memory.id, why)
                retired += 1
                continue
            item = ReviewItem(
                uuid.uuid4(),
                memory.user_id,
                memory.companion_id,
                ReviewKind.RETIRE,
                memory.id,
                None,
                why,
                now,
            )
            proposed += hygiene.propose(item)
        return retired, proposed

    def run_pass(self, should_stop: Callable[[], bool]) -> PassReport:
        try:
            retired, proposed = self.retire_stale(datetime.now(UTC))
        except ServiceError as exc:
            log.warning("hygiene pass skipped: %s", exc)
            retired = proposed = 0
        report = self._reconciler.run_pass(should_stop)
        report.retired, report.retirements_proposed = retired, proposed
        if self._consolidate is not None and not should_stop():
            try:
                report.consolidated = self._consolidate(should_stop)
            except ServiceError as exc:
                log.warning("consolidation pass stopped: %s", exc)
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
