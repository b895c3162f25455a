"""`aria-mem daemon`: keeps the index healthy.

At start it checks PostgreSQL, applies migrations, checks the embedding model's vector size
against the collections (a mismatch is recorded for `status` and logged, and no vector of the
wrong size is written), requeues memories indexed under another model, and sweeps orphans.
Then every ``reconcile_interval`` seconds it runs one bounded reconciler pass and writes a
heartbeat and the pass's result to PostgreSQL; every ``sweep_interval`` it sweeps again. It
never exits for a passing fault: it logs, backs off and catches up. SIGTERM and SIGINT stop it
between batches. Only one daemon reconciles a database at a time (an advisory lock); another
one says so and waits.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from aria_mem.adapters.postgres.daemon_lock import DaemonLock
from aria_mem.config import Settings
from aria_mem.domain.models import KNOWLEDGE_COLLECTION, MEMORIES_COLLECTION
from aria_mem.errors import AriaMemError, ServiceError
from aria_mem.services.reconciler import Reconciler
from aria_mem.wiring import Services

log = logging.getLogger("aria_mem.daemon")

MAX_BACKOFF = 60.0


class Daemon:
    def __init__(
        self, load_settings: Callable[[], Settings], *, sweep_interval: float = 600.0
    ) -> None:
        self._load_settings = load_settings
        self._sweep_interval = sweep_interval
        self._stop = threading.Event()
        self._svc: Services | None = None
        self._lock: DaemonLock | None = None
        self._config_mtime: float | None = None
        self._started_at = datetime.now(UTC)

    def stop(self) -> None:
        self._stop.set()

    # -- setup --------------------------------------------------------------------------

    def _services(self) -> Services:
        if self._svc is None:
            settings = self._load_settings()
            self._svc = Services(settings)
            path = settings.config_path
            self._config_mtime = path.stat().st_mtime if path.exists() else None
        return self._svc

    def _wait(self, seconds: float) -> bool:
        """Sleep unless asked to stop; True if asked to stop."""
        return self._stop.wait(seconds)

    def _acquire_lock(self) -> bool:
        svc = self._services()
        if self._lock is None:
            self._lock = DaemonLock(svc.dsn, svc.settings.postgres.connect_timeout)
        told = False
        while not self._stop.is_set():
            if self._lock.try_acquire():
                log.info("reconciling this database (pid %d)", os.getpid())
                return True
            if not told:
                state = svc.store.daemon_state() or {}
                log.warning(
                    "another aria-mem daemon (pid %s on %s) reconciles this database; "
                    "waiting to take over",
                    state.get("pid", "?"),
                    state.get("host", "?"),
                )
                told = True
            self._wait(svc.settings.daemon.reconcile_interval)
        return False

    def _check_dimension(self) -> dict[str, Any]:
        svc = self._services()
        result: dict[str, Any] = {
            "model": svc.embedder.model_name,
            "checked_at": datetime.now(UTC).isoformat(),
        }
        try:
            dimension = svc.embedder.dimension()
        except ServiceError as exc:
            result.update(ok=None, error=f"embedding model not reachable: {exc}")
            log.warning("dimension check postponed: %s", exc)
            return result
        sizes = {
            c: svc.index.collection_size(c) for c in (MEMORIES_COLLECTION, KNOWLEDGE_COLLECTION)
        }
        mismatched = {c: s for c, s in sizes.items() if s is not None and s != dimension}
        result.update(ok=not mismatched, model_dimension=dimension, collections=sizes)
        if mismatched:
            result["error"] = (
                ", ".join(f"'{c}' holds {s}-dimensional vectors" for c, s in mismatched.items())
                + f" but {svc.embedder.model_name} makes {dimension}-dimensional ones — run "
                "`aria-mem reindex` to rebuild for this model"
            )
            log.error("dimension mismatch: %s; no vectors will be written", result["error"])
        return result

    def _start(self) -> None:
        svc = self._services()
        svc.store.migrate()
        svc.store.save_daemon_state(
            pid=os.getpid(),
            host=socket.gethostname(),
            started_at=self._started_at,
            heartbeat_at=datetime.now(UTC),
            reconcile_interval=svc.settings.daemon.reconcile_interval,
            stopped_at=None,
        )
        dimension = self._check_dimension()
        svc.store.save_daemon_state(dimension=dimension)
        if dimension.get("ok"):
            requeued = svc.store.mark_pending_for_model(svc.embedder.model_name)
            if requeued:
                log.info(
                    "%d memories were indexed under another model; re-embedding them", requeued
                )
            self._sweep()

    def _sweep(self) -> None:
        svc = self._services()
        try:
            report = Reconciler(svc.store, svc.index, svc.embedder).sweep()
        except ServiceError as exc:
            log.warning("orphan sweep failed: %s", exc)
            return
        svc.store.save_daemon_state(
            last_sweep={**report.as_dict(), "at": datetime.now(UTC).isoformat()}
        )
        log.info(
            "sweep: %d points in the index, %d orphans removed, %d missing requeued (%.0f ms)",
            report.index_points,
            report.orphans_removed,
            report.missing_requeued,
            report.duration_ms,
        )

    def _config_changed(self) -> bool:
        if self._svc is None:
            return False
        path = self._svc.settings.config_path
        mtime = path.stat().st_mtime if path.exists() else None
        return mtime != self._config_mtime

    def _reload(self) -> None:
        log.info("config changed; reloading")
        self._close_services()
        self._start()

    def _close_services(self) -> None:
        if self._svc is not None:
            self._svc.close()
            self._svc = None

    # -- the loop -----------------------------------------------------------------------

    def run_pass(self) -> None:
        svc = self._services()
        state = svc.store.daemon_state() or {}
        dimension = state.get("dimension") or {}
        if not dimension.get("ok"):  # unknown or mismatched: look again (reindex may have run)
            dimension = self._check_dimension()
            svc.store.save_daemon_state(dimension=dimension)
        if dimension.get("ok") is False:
            svc.store.save_daemon_state(heartbeat_at=datetime.now(UTC))
            return  # a mismatch: write nothing until `aria-mem reindex` fixes it
        report = Reconciler(svc.store, svc.index, svc.embedder).run_pass(self._stop.is_set)
        now = datetime.now(UTC)
        svc.store.save_daemon_state(
            heartbeat_at=now, last_pass={**report.as_dict(), "at": now.isoformat()}
        )
        run = svc.store.open_reindex()
        if run and run["model"] == svc.embedder.model_name and not report.pending_left:
            self._sweep()
            svc.store.finish_reindex(run["model"])
            log.info("re-index to %s finished", run["model"])
        level = logging.WARNING if report.errors else logging.INFO
        log.log(
            level,
            "pass: indexed=%d removed=%d deletions=%d failed=%d pending=%d took=%.0fms%s",
            report.indexed,
            report.removed,
            report.deletions_done,
            report.failed,
            report.pending_left,
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
                if self._config_changed():
                    self._reload()
                self.run_pass()
                if time.monotonic() - last_sweep >= self._sweep_interval:
                    self._sweep()
                    last_sweep = time.monotonic()
                backoff = 1.0
                if once:
                    break
                self._wait(self._services().settings.daemon.reconcile_interval)
            except AriaMemError as exc:
                log.warning("%s — retrying in %.0fs", exc, backoff)
                if self._wait(backoff):
                    break
                backoff = min(MAX_BACKOFF, backoff * 2)
                if once and backoff > 8:
                    self._shutdown()
                    return 1
        self._shutdown()
        return 0

    def _shutdown(self) -> None:
        log.info("stopping")
        if self._svc is not None and self._lock is not None and self._lock.still_held():
            try:
                self._svc.store.save_daemon_state(stopped_at=datetime.now(UTC))
            except AriaMemError as exc:
                log.warning("could not record the stop: %s", exc)
        self._close_services()
        if self._lock is not None:
            self._lock.release()
