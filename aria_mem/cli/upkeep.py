"""`daemon` and `reindex`: keeping the index in step with PostgreSQL."""

from __future__ import annotations

import logging
import signal
import sys
from types import FrameType
from typing import Annotated

import typer
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskProgressColumn,
    TextColumn,
    TimeRemainingColumn,
)

from aria_mem import config
from aria_mem.cli import render
from aria_mem.cli.context import emit_json, services, state
from aria_mem.cli.render import markup_safe
from aria_mem.daemon import Daemon
from aria_mem.services import health
from aria_mem.services.reindexer import Reindexer
from aria_mem.wiring import Services


def daemon(
    ctx: typer.Context,
    interval: Annotated[
        float | None,
        typer.Option(help="Seconds between passes (default: [daemon] reconcile_interval)."),
    ] = None,
    sweep_interval: Annotated[
        float, typer.Option(help="Seconds between full orphan sweeps.")
    ] = 600.0,
    once: Annotated[bool, typer.Option(help="Start, run one pass, and exit.")] = False,
) -> None:
    """Run the reconciler in the foreground (for systemd): index pending memories, remove
    vectors that may no longer be used, sweep orphans, and report to `status`.

    Logs plain lines to stderr, one per pass. SIGTERM or Ctrl-C stops it between batches.

    Example: aria-mem daemon --interval 30
    """
    root = logging.getLogger()
    for handler in list(root.handlers):
        root.removeHandler(handler)
    logging.basicConfig(
        level=min(root.level or logging.INFO, logging.INFO),
        format="%(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    path = state(ctx).config_path

    def load() -> config.Settings:
        settings = config.load(path)
        if interval is not None:
            settings = config.with_overrides(settings, daemon={"reconcile_interval": interval})
        return settings

    load()  # a broken config is reported now, as a usage error
    runner = Daemon(load, sweep_interval=sweep_interval)

    def on_signal(signum: int, frame: FrameType | None) -> None:
        logging.getLogger("aria_mem.daemon").info("signal %d received", signum)
        runner.stop()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    raise typer.Exit(runner.run(once=once))


def reindex(
    ctx: typer.Context,
    model: Annotated[
        str | None,
        typer.Option(help="Switch to this embedding model (written to the config file)."),
    ] = None,
    provider: Annotated[
        str | None,
        typer.Option(
            help="ollama, lmstudio or sentence-transformers (with --model; default: unchanged)."
        ),
    ] = None,
    background: Annotated[
        bool,
        typer.Option(help="Hand the work to the running daemon; `aria-mem status` shows progress."),
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON for scripts.")] = False,
) -> None:
    """Re-embed every memory with the configured (or a new) embedding model.

    With --model: switch models (the config file is updated), learn the new vector size,
    recreate collections whose size differs, re-embed, and remove the old model's vectors at
    the end. Without it: rebuild the whole index from PostgreSQL (e.g. after the index
    directory was lost). Resumable: if it is stopped, run it again (or let the daemon) and it
    continues where it stopped. Searches meanwhile use only vectors of the new model.

    Example: aria-mem reindex --model nomic-embed-text --provider ollama
    """
    st = state(ctx)
    svc = services(ctx)
    if provider is not None and provider not in config.PROVIDERS:
        raise typer.BadParameter(
            f"use one of {', '.join(config.PROVIDERS)}", param_hint="--provider"
        )
    if provider is not None and model is None:
        raise typer.BadParameter("give --model with --provider", param_hint="--provider")
    if model is not None:
        chosen = provider or svc.settings.embedder.provider
        trial = config.with_overrides(svc.settings, embedder={"provider": chosen, "model": model})
        Services(trial).embedder.dimension()  # refuse a model that does not answer
        config.save_keys(
            svc.settings.config_path, {"embedder": {"provider": chosen, "model": model}}
        )
        svc.close()
        svc = Services(config.load(st.config_path))
        st.replace_services(svc)
        render.err_console.print(
            f"Switched to {markup_safe(svc.embedder.model_name)} "
            f"(written to {markup_safe(str(svc.settings.config_path))})"
        )
    reindexer = Reindexer(
        svc.store, svc.index, svc.embedder, batch_size=svc.settings.embedder.batch_size
    )
    plan = reindexer.prepare(rebuild=model is None, background=background)
    summary: dict[str, object] = {
        "model": plan.model,
        "dimension": plan.dimension,
        "recreated": plan.recreated,
        "total": plan.total,
        "resumed_after": plan.done_before,
    }
    if background:
        alive = _daemon_alive(svc)
        summary["daemon_running"] = alive
        if as_json:
            emit_json(summary)
        else:
            render.console.print(
                f"{plan.total} memories queued for {markup_safe(plan.model)}; "
                + (
                    "the daemon is working on them — `aria-mem status` shows progress"
                    if alive
                    else "[yellow]no daemon is running[/]: "
                    "start `aria-mem daemon` or run `aria-mem reindex` "
                    "without --background"
                )
            )
        return
    with Progress(
        TextColumn("re-indexing"),
        BarColumn(),
        MofNCompleteColumn(),
        TaskProgressColumn(),
        TextColumn("{task.fields[rate]}"),
        TimeRemainingColumn(),
        console=render.err_console,
        disable=as_json,
    ) as bar:
        task = bar.add_task("reindex", total=plan.total, completed=plan.done_before, rate="")

        def advance(n: int) -> None:
            bar.advance(task, n)
            elapsed = bar.tasks[0].elapsed or 0.0
            done = bar.tasks[0].completed - plan.done_before
            bar.update(task, rate=f"{done / elapsed:,.0f}/s" if elapsed else "")

        done, failed, sweep = reindexer.run(progress=advance)
    summary.update(
        done=done,
        failed=failed,
        old_vectors_removed=sweep.orphans_removed if sweep else None,
        finished=sweep is not None,
    )
    if as_json:
        emit_json(summary)
    else:
        if plan.resumed:
            render.err_console.print(
                f"Resumed an interrupted re-index: {plan.done_before} of {plan.total} were done"
            )
        render.console.print(
            f"Re-indexed {done} memories with {markup_safe(plan.model)} ({plan.dimension} dims)"
            + (f"; recreated {', '.join(plan.recreated)}" if plan.recreated else "")
            + (f"; removed {sweep.orphans_removed} old vectors" if sweep else "")
            + (
                f"; [yellow]{failed} failed and stay pending[/yellow] — run it again when the "
                "model answers"
                if failed
                else ""
            )
        )
    if failed or sweep is None:
        raise typer.Exit(1)


def _daemon_alive(svc: Services) -> bool:
    return health.daemon_running(svc.store.daemon_state(), svc.settings.daemon.reconcile_interval)


def register(app: typer.Typer) -> None:
    app.command()(daemon)
    app.command()(reindex)
