"""`export` and `import`: every memory as JSON Lines, to see, back up or move."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from aria_mem.cli import render
from aria_mem.cli.context import emit_json, services
from aria_mem.cli.render import markup_safe
from aria_mem.domain.validation import memory_to_record
from aria_mem.errors import UsageError
from aria_mem.private import open_private
from aria_mem.services.indexer import SyncReport
from aria_mem.services.transfer import import_lines, read_lines


def export(
    ctx: typer.Context,
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="File to write (default: stdout).")
    ] = None,
) -> None:
    """Write every memory, every field, as JSON Lines (one memory per line).

    Example: aria-mem export -o memories.jsonl
    """
    store = services(ctx).store
    try:
        stream = open_private(output) if output else sys.stdout
    except OSError as exc:
        raise UsageError(f"Cannot write {output}: {exc.strerror or exc}") from exc
    count = 0
    try:
        for memory in store.iter_all():
            stream.write(json.dumps(memory_to_record(memory), ensure_ascii=False) + "\n")
            count += 1
    finally:
        if output:
            stream.close()
    if output:
        render.err_console.print(f"Exported {count} memories to {markup_safe(str(output))}")


def import_(
    ctx: typer.Context,
    file: Annotated[Path, typer.Argument(help="A JSON Lines file as `export` writes it.")],
    skip_invalid: Annotated[
        bool, typer.Option("--skip-invalid", help="Import the valid lines and report the others.")
    ] = False,
    no_index: Annotated[
        bool,
        typer.Option(
            "--no-index", help="Only store; leave indexing to the daemon or `aria-mem sync`."
        ),
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON for scripts.")] = False,
) -> None:
    """Import memories from JSON Lines, idempotently by memory id.

    Every line is validated first: a bad line is reported with its number and nothing is
    stored, unless --skip-invalid is given. Imported memories are then indexed.

    Example: aria-mem import memories.jsonl
    """
    parsed = read_lines(file, skip_invalid=skip_invalid)
    svc = services(ctx)
    outcome = import_lines(svc.store, parsed.lines, skip_invalid=skip_invalid)
    problems = parsed.problems + outcome.rejected
    summary: dict[str, object] = {
        "inserted": outcome.inserted,
        "updated": outcome.updated,
        "unchanged": outcome.unchanged,
        "merged_duplicates": outcome.merged_duplicates,
        "repeated_lines": parsed.repeated,
        "invalid_lines": problems,
    }
    report_errors: list[str] = []
    if not no_index and parsed.lines:
        report = _index_with_progress(ctx, total=svc.store.pending_count(), quiet=as_json)
        report_errors = report.errors
        summary.update(
            indexed=report.indexed, index_failed=report.failed, index_errors=report.errors
        )
    if as_json:
        emit_json(summary)
        return
    render.console.print(
        f"Imported {len(parsed.lines)} memories: {outcome.inserted} new, {outcome.updated} "
        f"updated, {outcome.unchanged} unchanged, {outcome.merged_duplicates} merged into "
        "facts already known."
    )
    for problem in problems:
        render.err_console.print(f"[yellow]skipped[/yellow] {markup_safe(problem)}")
    if "indexed" in summary and summary["index_failed"]:
        errors = markup_safe("; ".join(report_errors))
        render.console.print(
            f"[yellow]{summary['index_failed']} not indexed yet[/yellow] "
            f"({errors}) — they stay pending; "
            "run `aria-mem sync` when the service is back"
        )


def _index_with_progress(ctx: typer.Context, total: int, quiet: bool) -> SyncReport:
    indexer = services(ctx).indexer
    with Progress(
        TextColumn("indexing"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=render.err_console,
        disable=quiet,
        transient=True,
    ) as bar:
        task = bar.add_task("index", total=total)
        return indexer.run_pending(progress=lambda n: bar.advance(task, n))


def register(app: typer.Typer) -> None:
    app.command()(export)
    app.command("import")(import_)
