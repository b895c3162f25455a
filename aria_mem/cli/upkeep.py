"""`daemon` and `reindex`: keeping the index in step with PostgreSQL."""

from __future__ import annotations

import logging
import signal
import threading
import time
from collections.abc import Callable
from types import FrameType
from typing import TYPE_CHECKING, Annotated

import typer
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskProgressColumn,
    TextColumn,
    TimeRemainingColumn,
)

from aria_mem.cli import render
from aria_mem.cli.context import emit_json, memory, state
from aria_mem.cli.logs import configure_daemon_logging
from aria_mem.cli.render import markup_safe
from aria_mem.errors import ServiceError, UsageError

if TYPE_CHECKING:
    from aria_mem import config
    from aria_mem.api import ReindexPlan
    from aria_mem.listeners import Listener


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
    mcp_http: Annotated[
        str | None,
        typer.Option(
            "--mcp-http",
            metavar="HOST:PORT",
            help="Also serve MCP over streamable HTTP on this loopback address (see "
            "`aria-mem mcp`), from the daemon's own process; clients need the bearer "
            "token (`aria-mem mcp --print-config`).",
        ),
    ] = None,
    allow_remote: Annotated[
        bool, typer.Option("--allow-remote", help="Let --mcp-http listen beyond loopback.")
    ] = False,
) -> None:
    """Run the aria-mem service in the foreground (for systemd), with the reconciler: the
    one process that holds the embedded index and the in-process model for every command
    (one that a command started in the background is replaced), and that indexes pending
    memories, removes vectors that may no longer be used, sweeps orphans and reports to
    `status`.

    Logs to stderr: a line per pass that did something (idle passes only with -vv), with
    journald priorities under systemd. SIGTERM or Ctrl-C stops it between batches.
    With --mcp-http it also serves MCP clients (the config's user and companion), each
    request with the bearer token that `aria-mem mcp --print-config` puts in their entry; the
    token is read at start, so restart the daemon after `aria-mem mcp --rotate-token`.

    Example: aria-mem daemon --interval 30 --mcp-http 127.0.0.1:8765
    """
    from aria_mem import config, operations
    from aria_mem.api import RunningService, remote, run_service
    from aria_mem.daemon import Daemon

    configure_daemon_logging(min(logging.getLogger().level or logging.INFO, logging.INFO))
    path = state(ctx).config_path

    def load() -> config.Settings:
        settings = config.load(path)
        if interval is not None:
            settings = config.with_overrides(settings, daemon={"reconcile_interval": interval})
        return settings

    settings = load()  # a broken config is reported now, as a usage error
    service: RunningService | None = None
    runner = Daemon(
        load,
        sweep_interval=sweep_interval,
        serving=lambda: service is None or service.in_place(),
    )

    def on_signal(signum: int, frame: FrameType | None) -> None:
        logging.getLogger("aria_mem.daemon").info("signal %d received", signum)
        runner.stop()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    remote.answer_operations(operations.handle, operations.OPERATIONS)  # as one on demand
    service = run_service(settings, stopped=runner.stopping)
    if service is None:
        raise typer.Exit(0)
    mcp_stopped = threading.Event()
    try:
        if mcp_http is not None:
            mcp_stopped = _serve_mcp_beside(settings, mcp_http, allow_remote, runner.stop)
        code = runner.run(once=once)
    finally:
        service.close()
        operations.close_all()
    raise typer.Exit(1 if mcp_stopped.is_set() else code)


def _serve_mcp_beside(
    settings: config.Settings, address: str, allow_remote: bool, stop_daemon: Callable[[], None]
) -> threading.Event:
    """The MCP server in a thread of the daemon, with its own AriaMem (thread-safe; on the
    embedded index it reaches the shards this process owns). It holds the port for the
    daemon's life: a client whose server is down sends its token to whatever listens there,
    so a port another program holds is refused at start, and should the server stop, the
    daemon stops too (set on the returned event), loudly, rather than leave the port free."""
    from aria_mem.api import AriaMem

    try:
        from aria_mem import mcp_server
    except ImportError as exc:
        raise UsageError(
            f"--mcp-http needs the MCP SDK ({exc.name} is missing) — pip install 'aria-mem[mcp]'"
        ) from exc
    from aria_mem.listeners import listener
    from aria_mem.mcp_guard import load_token, parse_address, token_path

    host, port = parse_address(address, allow_remote=allow_remote, option="mcp_http")
    token = load_token()  # read here: a bad token file stops the daemon with its message
    holder = listener(host, port)
    if holder.listening:
        raise ServiceError(_taken(holder.address, holder.describe()))
    log = logging.getLogger("aria_mem.daemon")
    stopped = threading.Event()
    bound = threading.Event()
    identity = settings.identity

    def serve() -> None:
        try:
            mcp_server.serve(
                AriaMem(settings),
                user=identity.user,
                companion=identity.companion,
                http=(host, port),
                token=token,
                listening=bound,
            )
        finally:
            log.error("the MCP server on %s stopped; stopping the daemon", holder.address)
            stopped.set()
            stop_daemon()

    thread = threading.Thread(target=serve, name="aria-mem-mcp", daemon=True)
    thread.start()
    now = _await_listening(host, port, thread, bound)
    if not now.known:
        log.warning(
            "the MCP server listens on %s, but who else could have listened there cannot be "
            "told (%s)",
            now.address,
            now.why,
        )
    log.info(
        "serving MCP on http://%s/mcp to clients with the bearer token in %s",
        holder.address,
        token_path(),
    )
    return stopped


def _await_listening(
    host: str, port: int, thread: threading.Thread, bound: threading.Event
) -> Listener:
    """Up to 60 s for the MCP server to listen: the port shown as this account's, or, where
    its owner cannot be read (no /proc/net), the server's own word that it bound it."""
    from aria_mem.listeners import listener

    deadline = time.monotonic() + 60
    while True:
        now = listener(host, port)
        if now.yours or (not now.known and bound.is_set()):
            return now
        if not thread.is_alive() or time.monotonic() >= deadline:
            raise ServiceError(_taken(now.address, now.describe()))
        time.sleep(0.05)


def _taken(where: str, who: str) -> str:
    return (
        f"Cannot serve MCP on {where}: it is held by {who}. MCP clients would send their "
        "token to it — stop that program or give --mcp-http another port (and "
        "`aria-mem mcp --rotate-token` if a client has already connected)"
    )


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
    mem = memory(ctx)
    before = mem.settings.embedder.effective_model
    with Progress(
        TextColumn("re-indexing"),
        BarColumn(),
        MofNCompleteColumn(),
        TaskProgressColumn(),
        TextColumn("{task.fields[rate]}"),
        TimeRemainingColumn(),
        console=render.err_console,
        disable=as_json or background,
    ) as bar:
        task = bar.add_task("reindex", total=None, rate="")
        resumed_from = 0

        def started(plan: ReindexPlan) -> None:
            nonlocal resumed_from
            resumed_from = plan.done_before
            bar.update(task, total=plan.total, completed=plan.done_before)

        def advance(n: int) -> None:
            bar.advance(task, n)
            elapsed = bar.tasks[0].elapsed or 0.0
            done = bar.tasks[0].completed - resumed_from
            bar.update(task, rate=f"{done / elapsed:,.0f}/s" if elapsed else "")

        outcome = mem.admin.reindex(
            model=model,
            provider=provider,
            background=background,
            on_start=started,
            progress=advance,
        )
    plan = outcome.plan
    if model is not None and not as_json:
        render.err_console.print(
            f"Switched from {markup_safe(before)} to {markup_safe(plan.model)} "
            f"(written to {markup_safe(str(mem.settings.config_path))})"
        )
    summary: dict[str, object] = {
        "model": plan.model,
        "dimension": plan.dimension,
        "recreated": list(plan.recreated),
        "total": plan.total,
        "resumed_after": plan.done_before,
    }
    if background:
        alive = mem.admin.daemon_running()
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
    summary.update(
        done=outcome.done,
        failed=outcome.failed,
        old_vectors_removed=outcome.sweep.orphans_removed if outcome.sweep else None,
        finished=outcome.finished,
    )
    if as_json:
        emit_json(summary)
    else:
        if plan.resumed:
            render.err_console.print(
                f"Resumed an interrupted re-index: {plan.done_before} of {plan.total} were done"
            )
        render.console.print(
            f"Re-indexed {outcome.done} memories with {markup_safe(plan.model)} "
            f"({plan.dimension} dims)"
            + (f"; recreated {', '.join(plan.recreated)}" if plan.recreated else "")
            + (f"; removed {outcome.sweep.orphans_removed} old vectors" if outcome.sweep else "")
            + (
                f"; [yellow]{outcome.failed} failed and stay pending[/yellow] — run it again "
                "when the model answers"
                if outcome.failed
                else ""
            )
        )
    if outcome.failed or not outcome.finished:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command()(daemon)
    app.command()(reindex)
