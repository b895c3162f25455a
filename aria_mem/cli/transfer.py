"""`export` and `import`: every memory as JSON Lines, to see, back up or move."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from aria_mem.api import Imported
from aria_mem.cli import render
from aria_mem.cli.context import emit_json, memory
from aria_mem.cli.render import markup_safe


def export(
    ctx: typer.Context,
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", help='File to write (default, or "-": stdout).'),
    ] = None,
    everything: Annotated[
        bool,
        typer.Option(
            "--everything",
            help="Also the relationship stages, the conversations with every turn, and what "
            "the companions learned: all `import` needs on a new machine.",
        ),
    ] = False,
    user: Annotated[
        str | None, typer.Option("--user", "-u", help="Only this user's (default: everyone's).")
    ] = None,
) -> None:
    """Write every memory, every field, as JSON Lines (one memory per line); with
    --everything, everything else a companion remembers too. The file is written readable
    by you only (0600).

    Example: aria-mem export -o memories.jsonl

    Example: aria-mem export --everything --user sam -o sam.jsonl
    """
    mem = memory(ctx)
    if output is None or str(output) == "-":
        mem.transfer.export(sys.stdout, user=user, everything=everything)
        return
    done = mem.transfer.export_file(output, user=user, everything=everything)
    rest = done.rest
    extra = (
        f", {rest.conversations} conversations ({rest.turns} turns), {rest.stages} "
        f"relationship stages, {rest.sources} learned sources ({rest.passages} passages), "
        f"{rest.events} history events"
        if everything
        else ""
    )
    render.err_console.print(
        f"Exported {done.memories} memories{extra} to {markup_safe(str(output))}"
    )


@contextmanager
def _progress(quiet: bool) -> Iterator[tuple[Callable[[int], None], Callable[[int], None]]]:
    """(set the total, advance) for a progress bar on stderr."""
    with Progress(
        TextColumn("indexing"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=render.err_console,
        disable=quiet,
        transient=True,
    ) as bar:
        task = bar.add_task("index", total=None)
        yield (lambda total: bar.update(task, total=total)), (lambda n: bar.advance(task, n))


def import_(
    ctx: typer.Context,
    file: Annotated[
        Path, typer.Argument(help='A JSON Lines file as `export` writes it; "-" reads stdin.')
    ],
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
    """Import memories (and, from an `export --everything` file, conversations, stages and
    learned sources) from JSON Lines, idempotently by id.

    Every line is validated first: a bad line is reported with its number and nothing is
    stored, unless --skip-invalid is given. Rows equal to what is stored are left alone;
    the others are then indexed.

    Example: aria-mem import memories.jsonl

    Example: ssh old-machine aria-mem export | aria-mem import -
    """
    source = sys.stdin.buffer if str(file) == "-" else file
    with _progress(quiet=as_json) as (start, advance):
        report = memory(ctx).transfer.import_file(
            source, skip_invalid=skip_invalid, index=not no_index, progress=advance, on_start=start
        )
    outcome = report.stored
    summary: dict[str, object] = {
        "inserted": outcome.inserted,
        "updated": outcome.updated,
        "unchanged": outcome.unchanged,
        "merged_duplicates": outcome.merged_duplicates,
        "repeated_lines": report.repeated,
        "invalid_lines": list(report.problems),
        "pending": report.pending,
    }
    restored = report.restored
    summary.update(
        conversations=restored.conversations,
        conversations_kept=restored.conversations_kept,
        turns=restored.turns,
        stages=restored.stages,
        sources=restored.sources,
        sources_unchanged=restored.sources_unchanged,
        events=restored.events,
    )
    if report.index is not None:
        summary.update(
            indexed=report.index.indexed,
            index_failed=report.index.failed,
            index_errors=report.index.errors,
        )
    if as_json:
        emit_json(summary)
        return
    render.console.print(
        f"Imported {report.lines:,} memories: {outcome.inserted:,} new, {outcome.updated:,} "
        f"updated, {outcome.unchanged:,} unchanged, {outcome.merged_duplicates:,} merged into "
        "facts already known."
    )
    if restored.conversations or restored.conversations_kept:
        render.console.print(
            f"Conversations: {restored.conversations} restored ({restored.turns} turns), "
            f"{restored.conversations_kept} already here."
        )
    if restored.stages:
        render.console.print(f"Relationship stages moved on: {restored.stages}.")
    if restored.sources or restored.sources_unchanged:
        render.console.print(
            f"Learned sources: {restored.sources} restored, {restored.sources_unchanged} "
            "already here."
        )
    if restored.events:
        render.console.print(f"History events restored: {restored.events:,}.")
    for problem in report.problems:
        render.err_console.print(f"[yellow]skipped[/yellow] {markup_safe(problem)}")
    if report.pending:
        render.console.print(_pending_line(report))


def _pending_line(report: Imported) -> str:
    """How many wait for the index, counted in PostgreSQL (not the indexer's failures: it
    stops at the first batch the model refuses), and why."""
    everyone = " (all that wait in this store, this import's among them)"
    if report.index is None:
        return (
            f"{report.pending:,} wait for the index{everyone} — `aria-mem sync` or the daemon "
            "indexes them"
        )
    why = f" ({markup_safe('; '.join(report.index.errors))})" if report.index.errors else ""
    if not report.index.errors:
        return (
            f"{report.pending:,} wait for the index{everyone}: this import's were indexed; "
            "`aria-mem sync` or the daemon indexes the rest"
        )
    return (
        f"[yellow]{report.pending:,} not indexed yet[/yellow]{why} — they stay pending"
        f"{everyone}; `aria-mem sync` or the daemon indexes them once the model answers"
    )


def register(app: typer.Typer) -> None:
    app.command()(export)
    app.command("import")(import_)
