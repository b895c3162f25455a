"""`export` and `import`: every memory as JSON Lines, to see, back up or move."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from aria_mem.cli import render
from aria_mem.cli.context import emit_json, services
from aria_mem.domain.models import Memory
from aria_mem.domain.validation import memory_from_record, memory_to_record
from aria_mem.errors import ValidationError
from aria_mem.services.indexer import SyncReport

BATCH = 5000


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
    stream = open(output, "w", encoding="utf-8") if output else sys.stdout  # noqa: SIM115
    count = 0
    try:
        for memory in store.iter_all():
            stream.write(json.dumps(memory_to_record(memory), ensure_ascii=False) + "\n")
            count += 1
    finally:
        if output:
            stream.close()
    if output:
        render.err_console.print(f"Exported {count} memories to {output}")


def parse_lines(path: Path, *, skip_invalid: bool) -> tuple[list[Memory], list[str]]:
    """Validate every line; return the memories and the problems (``line N: ...``)."""
    memories: list[Memory] = []
    problems: list[str] = []
    try:
        handle = open(path, encoding="utf-8")  # noqa: SIM115
    except OSError as exc:
        raise ValidationError(f"Cannot read {path}: {exc.strerror}") from exc
    with handle:
        try:
            for number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                try:
                    memories.append(memory_from_record(json.loads(line)))
                except json.JSONDecodeError as exc:
                    problems.append(f"line {number}: not valid JSON ({exc.msg})")
                except ValidationError as exc:
                    problems.append(f"line {number}: {exc}")
        except UnicodeDecodeError as exc:
            raise ValidationError(f"{path} is not UTF-8 text: {exc}") from exc
    if problems and not skip_invalid:
        shown = "\n  ".join(problems[:20])
        more = f"\n  … and {len(problems) - 20} more" if len(problems) > 20 else ""
        raise ValidationError(
            f"{path} has {len(problems)} invalid line(s); nothing was imported:\n  {shown}{more}"
            "\nFix them, or pass --skip-invalid to import the valid lines only"
        )
    return memories, problems


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
    memories, problems = parse_lines(file, skip_invalid=skip_invalid)
    svc = services(ctx)
    inserted = updated = merged = 0
    for start in range(0, len(memories), BATCH):
        result = svc.store.import_memories(memories[start : start + BATCH])
        inserted += result.inserted
        updated += result.updated
        merged += result.merged_duplicates
    summary: dict[str, object] = {
        "inserted": inserted,
        "updated": updated,
        "merged_duplicates": merged,
        "invalid_lines": problems,
    }
    report_errors: list[str] = []
    if not no_index and memories:
        report = _index_with_progress(ctx, total=len(memories), quiet=as_json)
        report_errors = report.errors
        summary.update(
            indexed=report.indexed, index_failed=report.failed, index_errors=report.errors
        )
    if as_json:
        emit_json(summary)
        return
    render.console.print(
        f"Imported {len(memories)} memories: {inserted} new, {updated} updated, "
        f"{merged} merged into facts already known."
    )
    for problem in problems:
        render.err_console.print(f"[yellow]skipped[/yellow] {escape(problem)}")
    if "indexed" in summary and summary["index_failed"]:
        errors = escape("; ".join(report_errors))
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
