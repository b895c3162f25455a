"""`tidy`: a consolidation pass now (the daemon runs one each interval), what passes did and
why, and undoing one of their actions."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

from aria_mem.cli import render
from aria_mem.cli.context import emit_json, memory
from aria_mem.cli.memories import CompanionOpt, JsonOpt, UserOpt
from aria_mem.cli.render import markup_safe

if TYPE_CHECKING:
    from aria_mem.api import Consolidation, TidyReport


def _action_json(action: Consolidation) -> dict[str, object]:
    return {
        "id": str(action.id),
        "outcome": action.outcome.value,
        "user": action.user_id,
        "companion": action.companion_id,
        "memory_id": str(action.memory_id),
        "other_id": str(action.other_id) if action.other_id else None,
        "reason": action.reason,
        "at": action.at.isoformat(),
        "undone_at": action.undone_at.isoformat() if action.undone_at else None,
    }


def _report_json(report: TidyReport) -> dict[str, object]:
    return {
        "looked": report.looked,
        "merged": report.merged,
        "superseded": report.superseded,
        "queued": report.queued,
        "unsure": report.unsure,
        "left": report.left,
        "waiting": report.waiting,
        "judge": report.judge or None,
        "notes": report.notes,
        "actions": [_action_json(a) for a in report.actions],
    }


def _summary(report: TidyReport) -> str:
    who = f"judged by {report.judge}" if report.judge else "by the rule (no chat model)"
    return (
        f"Looked at {report.looked:,} new memories ({who}): {report.merged:,} merged, "
        f"{report.superseded:,} superseded, {report.queued:,} put to you "
        f"({report.unsure:,} unsure), {report.left:,} left as they are"
        + (f", {report.waiting:,} waiting" if report.waiting else "")
    )


def _print_action(action: Consolidation) -> None:
    undone = " (undone)" if action.undone_at else ""
    other = f" {str(action.other_id)[:8]}" if action.other_id else ""
    render.console.print(
        f"[cyan]{str(action.id)[:8]}[/cyan] {action.at:%Y-%m-%d %H:%M} "
        f"{str(action.memory_id)[:8]} {action.outcome.value}{other}{undone}: "
        f"{markup_safe(action.reason)}"
    )


def tidy(
    ctx: typer.Context,
    user: UserOpt = None,
    companion: CompanionOpt = None,
    all_: Annotated[bool, typer.Option("--all", help="Every user and companion.")] = False,
    limit: Annotated[
        int | None, typer.Option(min=1, help="Judge at most this many new memories.")
    ] = None,
    list_: Annotated[
        bool, typer.Option("--list", help="Show what passes did and why; run nothing.")
    ] = False,
    undo: Annotated[
        str | None,
        typer.Option(help="Undo one action of a pass (its id from --list, or the start)."),
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Consolidate now: every memory written since the last pass is judged against its
    nearest older ones (the chat model with [hygiene] judge = "on", else the rule): a repeat
    is merged, a change supersedes what it changes, anything unsure waits in `aria-mem
    review`. The daemon does the same each interval.

    Example: aria-mem tidy
    """
    mem = memory(ctx)
    if undo is not None:
        done = mem.review.undo(undo, user=user, companion=companion)
        if as_json:
            emit_json({"undone": undo, "done": done})
        else:
            render.console.print(f"Undone: {done}")
        return
    if list_:
        actions = mem.review.passes(user=user, companion=companion, everyone=all_)
        if as_json:
            emit_json([_action_json(a) for a in actions])
            return
        if not actions:
            render.console.print("No pass has done anything yet")
        for action in actions:
            _print_action(action)
        return
    with Progress(
        TextColumn("consolidating"),
        BarColumn(),
        MofNCompleteColumn(),
        console=render.err_console,
        disable=as_json,
        transient=True,
    ) as bar:
        task = bar.add_task("tidy", total=None)
        report = mem.review.tidy(
            user=user,
            companion=companion,
            everyone=all_,
            limit=limit,
            progress=lambda done, total: bar.update(task, completed=done, total=total),
        )
    if as_json:
        emit_json(_report_json(report))
        return
    for action in report.actions:
        _print_action(action)
    for note in report.notes:
        render.err_console.print(markup_safe(note))
    render.console.print(_summary(report))
    if report.actions:
        render.console.print(
            "`aria-mem tidy --undo ID` undoes one; `aria-mem review` lists the questions"
        )
