"""`aria-mem daemon`: keeps the index healthy, through the public API.

At start it checks PostgreSQL, applies migrations, checks the embedding model's vector size
against the collections (a mismatch is recorded for `status` and logged, and no vector of the
wrong size is written), requeues entries indexed under another model, and sweeps orphans.
Then every ``reconcile_interval`` seconds it runs one bounded reconciler pass and writes a
heartbeat and the pass's result to PostgreSQL; every ``sweep_interval`` it sweeps again. It
never exits for a passing fault: it logs, backs off and catches up. SIGTERM and SIGINT stop it
between batches, and it records that it stopped. Only one daemon reconciles a database at a
time (an advisory lock); another one says so and waits.
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime

from aria_mem.api import AriaMem, hooks
from aria_mem.config import Settings
from aria_mem.errors import AriaMemError, StoreError
from aria_mem.ports import DaemonLock

log = logging.getLogger("aria_mem.daemon")

MAX_BACKOFF = 60.0


class Daemon:
    def __init__(
        self,
        load_settings: Callable[[], Settings],
        *,
        sweep_interval: float = 600.0,
        serving: Callable[[], bool] = lambda: True,
    ) -> None:
        """``serving``: whether the service this process runs still serves its index folder
        (False once the folder was removed: the daemon then exits with 1, to be started
        afresh, instead of writing to deleted shards)."""
        self._load_settings = load_settings
        self._serving = serving
        self._sweep_interval = sweep_interval
        self._stop = threading.Event()
        self._mem: AriaMem | None = None
        self._lock: DaemonLock | None = None
        self._config_mtime: float | None = None
        self._started_at = datetime.now(UTC)

    def stop(self) -> None:
        self._stop.set()

    def stopping(self) -> bool:
        return self._stop.is_set()

    # -- setup --------------------------------------------------------------------------

    def _memory(self) -> AriaMem:
        if self._mem is None:
            settings = self._load_settings()
            self._mem = AriaMem(settings)
            path = settings.config_path
            self._config_mtime = path.stat().st_mtime if path.exists() else None
        return self._mem

    def _wait(self, seconds: float) -> bool:
        """Sleep unless asked to stop; True if asked to stop."""
        return self._stop.wait(seconds)

    def _acquire_lock(self) -> bool:
        mem = self._memory()
        if self._lock is None:
            self._lock = hooks.daemon_lock(mem)
        told = False
        while not self._stop.is_set():
            if self._lock.try_acquire():
                return True
            if not told:
                state = hooks.upkeep(mem).state()
                log.warning(
                    "another aria-mem daemon (pid %s on %s) reconciles this database; "
                    "waiting to take over",
                    state.pid if state else "?",
                    state.host if state else "?",
                )
                told = True
            self._wait(mem.settings.daemon.reconcile_interval)
        return False

    def _start(self, *, reloaded: bool = False) -> None:
        mem = self._memory()
        upkeep = hooks.upkeep(mem)
        upkeep.started(
            hooks.DaemonStart(
                os.getpid(),
                socket.gethostname(),
                self._started_at,
                mem.settings.daemon.reconcile_interval,
            )
        )
        if not reloaded:  # once its record says so
            log.info("reconciling this database (pid %d)", os.getpid())
        if upkeep.check_dimension().ok:
            requeued = upkeep.requeue_other_models()
            if requeued:
                log.info("%d entries were indexed under another model; re-embedding", requeued)
            self._sweep()

    def _sweep(self) -> None:
        report = hooks.upkeep(self._memory()).sweep()
        if report is not None:
            log.info(
                "sweep: %d points in the index, %d orphans removed, %d missing requeued (%.0f ms)",
                report.index_points,
                report.orphans_removed,
                report.missing_requeued,
                report.duration_ms,
            )

    def _config_changed(self) -> bool:
        if self._mem is None:
            return False
        path = self._mem.settings.config_path
        mtime = path.stat().st_mtime if path.exists() else None
        return mtime != self._config_mtime

    def _reload(self) -> None:
        log.info("config changed; reloading")
        self._close()
        self._start(reloaded=True)

    def _close(self) -> None:
        if self._mem is not None:
            self._mem.close()
            self._mem = None

    # -- the loop -----------------------------------------------------------------------

    def run_pass(self) -> None:
        upkeep = hooks.upkeep(self._memory())
        state = upkeep.state()
        dimension = state.dimension if state else None
        if dimension is None or not dimension.ok:  # unknown or mismatched: look again
            dimension = upkeep.check_dimension()  # (a reindex may have fixed it)
        if dimension.ok is False:
            upkeep.heartbeat()
            return  # a mismatch: write nothing until `aria-mem reindex` fixes it
        report = upkeep.run_pass(self._stop.is_set)
        finished = upkeep.finish_reindex_if_done(report)
        if finished:
            log.info("re-index to %s finished", finished)
        idle = not (
            report.retired
            or report.retirements_proposed
            or report.consolidated
            or report.indexed
            or report.removed
            or report.deletions_done
            or report.failed
            or report.pending_left
            or report.errors
        )
        level = logging.WARNING if report.errors else logging.DEBUG if idle else logging.INFO
        log.log(
            level,
            "pass: indexed=%d removed=%d deletions=%d failed=%d pending=%d retired=%d"
            " proposed_retirements=%d consolidated=%d took=%.0fms%s",
            report.indexed,
            report.removed,
            report.deletions_done,
            report.failed,
            report.pending_left,
            report.retired,
            report.retirements_proposed,
            report.consolidated,
            report.duration_ms,
            f" errors: {'; '.join(report.errors)}" if report.errors else "",
        )

    def run(self, *, once: bool = False) -> int:
        backoff = 1.0
        started = False
        last_sweep = time.monotonic()
        while not self._stop.is_set():
            try:
                if not started:
                    if not self._acquire_lock():
                        break
                    self._start()
                    started = True
                    last_sweep = time.monotonic()
                elif self._lock is not None and not self._lock.still_held():
                    log.warning("lost the daemon lock (PostgreSQL restarted?); taking it again")
                    started = False
                    continue
                if not self._serving():
                    log.error("the index folder was removed under the service; exiting")
                    self._shutdown()
                    return 1
                if self._config_changed():
                    self._reload()
                self.run_pass()
                if time.monotonic() - last_sweep >= self._sweep_interval:
                    self._sweep()
                    last_sweep = time.monotonic()
                backoff = 1.0
                if once:
                    break
                self._wait(self._memory().settings.daemon.reconcile_interval)
            except AriaMemError as exc:
                log.warning("%s — retrying in %.0fs", exc, backoff)
                if isinstance(exc, StoreError):
                    self._reconnect()
                    started = False
                if self._wait(backoff):
                    break
                backoff = min(MAX_BACKOFF, backoff * 2)
                if once and backoff > 8:
                    self._shutdown()
                    return 1
        self._shutdown()
        return 0

    def _reconnect(self) -> None:
        """Build the store and the lock afresh at the next attempt: an embedded PostgreSQL
        that restarted may listen in a new socket folder (one with a long data path gets a
        fresh private folder each start), which only a new connection string reaches."""
        if self._lock is not None:
            with contextlib.suppress(AriaMemError):
                self._lock.release()
            self._lock = None
        self._close()

    def _shutdown(self) -> None:
        log.info("stopping")
        if self._mem is not None and self._lock is not None and self._lock.still_held():
            try:
                hooks.upkeep(self._mem).stopped()
            except AriaMemError as exc:
                log.warning("could not record the stop: %s", exc)
        self._close()
        if self._lock is not None:
            self._lock.release()
