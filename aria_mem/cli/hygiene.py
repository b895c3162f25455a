"""`history`, `restore` and `review`: what became of a memory over months, bringing one back,
and what awaits a person's decision (likely merges, likely conflicts, stale memories)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from aria_mem.cli import render, tidy
from aria_mem.cli.context import emit_json, memory
from aria_mem.cli.memories import CompanionOpt, IdArg, JsonOpt, UserOpt, result_json
from aria_mem.cli.render import markup_safe
from aria_mem.domain.memory_line import memory_to_record

if TYPE_CHECKING:
    from aria_mem.api import Decided, History, ReviewItem

review_app = typer.Typer(
    help="What awaits your decision: memories that seem to repeat or to change another, and "
    "stale ones the daemon proposes to retire. Without a subcommand: the list.\n\n"
    "Example: aria-mem review",
    invoke_without_command=True,
)
ItemArg = Annotated[str, typer.Argument(help="Review item id, or its first characters.")]


def history(
    ctx: typer.Context,
    memory_id: IdArg,
    user: UserOpt = None,
    companion: CompanionOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Every version of a fact (what it replaced, what replaced it) and what happened to each:
    merges, edits with the text before, supersessions, restores, retirements.

    Example: aria-mem history 3f2a9c1e
    """
    found = memory(ctx).history(memory_id, user=user, companion=companion)
    if as_json:
        emit_json(_history_json(found))
        return
    for version in found.chain:
        mark = "→" if version.id == found.memory.id else " "
        render.console.print(
            f"{mark} [cyan]{str(version.id)[:8]}[/cyan] {version.status.value:<10} "
            f"{version.created_at:%Y-%m-%d}  {markup_safe(version.text)}"
        )
    for event in found.events:
        other = f" {str(event.other_id)[:8]}" if event.other_id else ""
        said = f": {markup_safe(event.text)}" if event.text else ""
        why = f" ({markup_safe(event.detail)})" if event.detail else ""
        render.console.print(
            f"  {event.at:%Y-%m-%d %H:%M} {str(event.memory_id)[:8]} {event.kind.value}"
            f"{other}{said}{why}"
        )


def _history_json(found: History) -> dict[str, object]:
    return {
        "memory": str(found.memory.id),
        "chain": [memory_to_record(m) for m in found.chain],
        "events": [
            {
                "memory_id": str(e.memory_id),
                "kind": e.kind.value,
                "at": e.at.isoformat(),
                "other_id": str(e.other_id) if e.other_id else None,
                "text": e.text,
                "detail": e.detail,
            }
            for e in found.events
        ],
    }


def restore(
    ctx: typer.Context,
    memory_id: IdArg,
    user: UserOpt = None,
    companion: CompanionOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Bring back a superseded or retired memory: active and brought up again.

    Example: aria-mem restore 3f2a9c1e
    """
    result = memory(ctx).restore(memory_id, user=user, companion=companion)
    if as_json:
        emit_json(result_json(result, "restored"))
    else:
        render.write_line("Restored", result)


def _item_json(item: ReviewItem) -> dict[str, object]:
    return {
        "id": str(item.id),
        "kind": item.kind.value,
        "user": item.user_id,
        "companion": item.companion_id,
        "memory_id": str(item.memory_id),
        "other_id": str(item.other_id) if item.other_id else None,
        "reason": item.reason,
        "created_at": item.created_at.isoformat(),
    }


@review_app.callback()
def review(
    ctx: typer.Context,
    user: UserOpt = None,
    companion: CompanionOpt = None,
    all_: Annotated[bool, typer.Option("--all", help="Every user and companion.")] = False,
    limit: Annotated[int | None, typer.Option(help="At most this many.")] = None,
    offset: Annotated[int, typer.Option(help="Skip this many first (for paging).")] = 0,
    as_json: JsonOpt = False,
) -> None:
    """What awaits your decision, oldest first, with why.

    Example: aria-mem review --limit 20 --offset 20
    """
    if ctx.invoked_subcommand is not None:
        return
    mem = memory(ctx)
    items = mem.review.list(
        user=user, companion=companion, everyone=all_, limit=limit, offset=offset
    )
    if as_json:
        emit_json([_item_json(i) for i in items])
        return
    if not items:
        render.console.print("Nothing awaits your decision")
        return
    known = mem.review.memories(items, user=user, companion=companion, everyone=all_)
    for item in items:
        render.console.print(
            f"[cyan]{str(item.id)[:8]}[/cyan] {item.kind.value}: {markup_safe(item.reason)}"
        )
        for named in (item.memory_id, item.other_id):
            if named is not None:
                text = known[named].text if named in known else "(forgotten since)"
                render.console.print(f"    {str(named)[:8]} {markup_safe(text)}")
    total = mem.review.count(user=user, companion=companion, everyone=all_)
    shown = offset + len(items)
    if offset or shown < total:
        rest = f": --offset {shown} shows the next ones" if shown < total else ""
        render.console.print(f"{offset + 1}-{shown} of {total}{rest}")
    render.console.print(
        "`aria-mem review accept ID` does what it proposes; `reject ID` keeps both as they are"
    )


def _decided(done: Decided, as_json: bool) -> None:
    if as_json:
        emit_json(
            _item_json(done.item)
            | {
                "accepted": done.accepted,
                "result": result_json(done.result, "changed") if done.result else None,
            }
        )
        return
    what = "Accepted" if done.accepted else "Rejected — both kept as they are"
    render.console.print(f"{what}: {done.item.kind.value} [cyan]{str(done.item.id)[:8]}[/cyan]")


@review_app.command("accept")
def accept(
    ctx: typer.Context,
    item: ItemArg,
    user: UserOpt = None,
    companion: CompanionOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Do what the item proposes: merge, supersede the older memory, or retire (each can be
    undone with `aria-mem restore`).

    Example: aria-mem review accept 7c1d2e3f
    """
    _decided(memory(ctx).review.accept(item, user=user, companion=companion), as_json)


@review_app.command("reject")
def reject(
    ctx: typer.Context,
    item: ItemArg,
    user: UserOpt = None,
    companion: CompanionOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Keep both memories as they are; the item is closed.

    Example: aria-mem review reject 7c1d2e3f
    """
    _decided(memory(ctx).review.reject(item, user=user, companion=companion), as_json)


@review_app.command("edit")
def edit(
    ctx: typer.Context,
    item: ItemArg,
    text: Annotated[str, typer.Option(help="What is true now, in one sentence.")],
    user: UserOpt = None,
    companion: CompanionOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Say it right: the older memory gets this text (its old text stays in its history) and
    the other one is folded into it.

    Example: aria-mem review edit 7c1d2e3f --text "The user lives in Lisbon."
    """
    done = memory(ctx).review.edit(item, text, user=user, companion=companion)
    _decided(done, as_json)


def register(app: typer.Typer) -> None:
    app.command()(history)
    app.command()(restore)
    app.add_typer(review_app, name="review")
    app.command()(tidy.tidy)
