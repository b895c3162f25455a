"""Keeping aria-mem healthy, through the public API: status, sync, reindex, migrate."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from aria_mem import config, providers
from aria_mem.domain.records import MemoryCounts, SyncReport
from aria_mem.errors import UsageError
from aria_mem.wiring import Adapters

if TYPE_CHECKING:
    from aria_mem.api.context import Context
    from aria_mem.services.health import StatusReport
    from aria_mem.services.reindexer import ReindexOutcome, ReindexPlan


@dataclass(frozen=True)
class Migrated:
    applied: tuple[str, ...]
    version: int


@dataclass(frozen=True)
class Stopped:
    index_owner_pid: int | None
    """The aria-mem process that owned the embedded index and was asked to stop; None: none."""
    postgres: bool
    """The embedded PostgreSQL server was running and is now stopped."""


class RunningService(Protocol):
    """The aria-mem service run by this process (see ``run_service``)."""

    def in_place(self) -> bool:
        """False once its index folder was removed or replaced under it."""
        ...

    def close(self) -> None: ...


def run_service(
    settings: config.Settings, *, stopped: Callable[[], bool] = lambda: False
) -> RunningService | None:
    """Run the aria-mem service of ``settings`` in this process until ``close()``: the one
    process that holds the embedded index and the in-process model for every aria-mem command
    (``aria-mem daemon`` does this). A service started on demand is replaced; while another
    daemon runs it, this waits to take over (None when ``stopped()`` turns true first)."""
    from aria_mem.wiring import host_service

    return host_service(settings, started="daemon", stopped=stopped)


class Admin:
    """Keeping aria-mem healthy: status, sync, reindex, migrate, and stopping what runs in
    the background (``memory.admin``)."""

    def __init__(self, context: Context) -> None:
        self._context = context

    def stop(self) -> Stopped:
        """Stop what aria-mem runs in the background on this machine: the aria-mem service
        (it lets go of the index cleanly), then the embedded PostgreSQL server. The next call
        that needs them starts them again. This object's own connections are closed first."""
        self._context.close()
        owner, postgres = self._context.adapters.stop_local_services()
        return Stopped(owner, postgres)

    def status(self, *, compare_vectors: bool = True) -> StatusReport:
        """PostgreSQL, the index and the model: reachable, how fast, do they agree on the
        vector size; counts; readable data; the daemon. ``report.ok`` is False when
        something is broken. ``compare_vectors=False`` leaves out the id-by-id comparison of
        the index with PostgreSQL, for a client that asks often."""
        from aria_mem.services import health

        self._context.follow(now=True)
        return health.collect(
            lambda: self._context.store,
            lambda: self._context.index,
            lambda: self._context.embedder,
            self._context.adapters.targets(),
            self._context.settings.daemon.reconcile_interval,
            compare_vectors=compare_vectors,
        )

    def counts(self, *, user: str | None = None, companion: str | None = None) -> MemoryCounts:
        """How many memories the user and companion have, by state (and the companion's
        knowledge passages): what one of them may be told, unlike ``status``, which counts
        everyone's."""
        return self._context.store.memories.counts(self._context.scope(user, companion))

    def sync(self, progress: Callable[[int], None] | None = None) -> SyncReport:
        """Compare the index with PostgreSQL memory by memory under the current model (what
        it lacks, or what was indexed under another model, is put back pending), then index
        every pending memory and passage and carry out queued vector removals now (the
        daemon does it every minute)."""
        from aria_mem.services.reconciler import Reconciler

        context = self._context
        context.follow(now=True)
        reconciler = Reconciler(
            context.store.queue,
            context.index,
            context.embedder,
            batch_size=context.settings.embedder.batch_size,
        )
        return reconciler.sync(progress)

    def migrate(self) -> Migrated:
        """Apply database migrations (every call that needs the store also does)."""
        given = self._context.given_store()
        store = given or self._context.adapters.unmigrated_store()
        try:
            applied = store.migrate()
            return Migrated(tuple(applied), store.schema_version())
        finally:
            if store is not given:
                store.close()

    def daemon_running(self) -> bool:
        """Is a daemon reconciling this database now (its heartbeat is fresh, or its process
        on this machine is alive)?"""
        from aria_mem.services import health

        return health.daemon_running(
            self._context.store.daemon.daemon_state(),
            self._context.settings.daemon.reconcile_interval,
        )

    def reindex(
        self,
        *,
        model: str | None = None,
        provider: str | None = None,
        background: bool = False,
        on_start: Callable[[ReindexPlan], None] | None = None,
        progress: Callable[[int], None] | None = None,
    ) -> ReindexOutcome:
        """Re-embed every memory and passage. With ``model``: switch models (written to the
        config file; a model that does not answer is refused first), recreate collections
        whose vector size changes, remove the old model's vectors at the end. Without it:
        rebuild the index from PostgreSQL. Resumes an interrupted run of the same model.
        ``background`` leaves the work to the running daemon."""
        if provider is not None:
            try:
                providers.embedding_provider(provider)
            except ValueError as exc:
                raise UsageError(f"The embedding {exc}") from exc
            if model is None:
                raise UsageError("A provider is switched to with a model: give the model too")
        if model is not None:
            self._switch_model(provider or self._context.settings.embedder.provider, model)
        from aria_mem.services.reindexer import Reindexer, ReindexOutcome

        reindexer = Reindexer(
            self._context.store.queue,
            self._context.store.daemon,
            self._context.index,
            self._context.embedder,
            batch_size=self._context.settings.embedder.batch_size,
        )
        plan = reindexer.prepare(rebuild=model is None, background=background)
        if on_start is not None:
            on_start(plan)
        if background:
            return ReindexOutcome(plan, 0, 0, None, background=True)
        return reindexer.run(plan, progress=progress)

    def _switch_model(self, provider: str, model: str) -> None:
        trial = config.with_overrides(
            self._context.settings, embedder={"provider": provider, "model": model}
        )
        trial_adapters = Adapters(trial)
        try:  # refuse a model that does not answer (an in-process one loads in the service)
            trial_adapters.embedder.dimension()
        finally:
            trial_adapters.close()
        config.save_keys(
            self._context.settings.config_path, {"embedder": {"provider": provider, "model": model}}
        )
        self._context.reopen(config.load(self._context.settings.config_path))
