"""`conversations`: the chat turns aria-mem keeps, to see and to forget (they are memory
too: a resumed chat replays them as history)."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Table

from aria_mem.api import ConversationSummary
from aria_mem.cli import render
from aria_mem.cli.context import emit_json, memory
from aria_mem.cli.memories import CompanionOpt, JsonOpt, UserOpt
from aria_mem.cli.render import markup_safe, safe

conversations_app = typer.Typer(
    help="See and forget stored chat conversations.\n\nExample: aria-mem conversations list",
    no_args_is_help=True,
)
IdArg = Annotated[
    str, typer.Argument(help="Conversation id, or its first characters as `list` shows.")
]


def _json(found: ConversationSummary) -> dict[str, object]:
    return {
        "id": str(found.id),
        "user": found.user_id,
        "companion": found.companion_id,
        "updated_at": found.updated_at.isoformat(),
        "turns": found.turns,
        "first_message": found.first_message,
    }


@conversations_app.command("list")
def list_(
    ctx: typer.Context,
    user: UserOpt = None,
    companion: CompanionOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """The conversations of the user and companion, most recent first.

    Example: aria-mem conversations list --json
    """
    found = memory(ctx).conversations(user=user, companion=companion)
    if as_json:
        emit_json([_json(c) for c in found])
        return
    if not found:
        render.console.print("No conversations yet — `aria-mem chat` starts one")
        return
    table = Table(header_style="bold")
    for column in ("id", "updated", "turns", "first message"):
        table.add_column(column, overflow="fold")
    for c in found:
        table.add_row(
            str(c.id)[:8],
            c.updated_at.strftime("%Y-%m-%d %H:%M"),
            str(c.turns),
            safe(c.first_message[:80]),
        )
    render.console.print(table)


@conversations_app.command()
def show(ctx: typer.Context, conversation_id: IdArg, as_json: JsonOpt = False) -> None:
    """Every turn of one conversation, oldest first.

    Example: aria-mem conversations show 5c1d2e3f
    """
    found, turns = memory(ctx).conversation(conversation_id)
    if as_json:
        emit_json(_json(found) | {"messages": [{"role": r, "content": c} for r, c in turns]})
        return
    for role, content in turns:
        render.console.print(f"[bold]{role}[/bold]> {markup_safe(content, keep_lines=True)}")


@conversations_app.command()
def forget(
    ctx: typer.Context,
    conversation_id: IdArg,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Forget a conversation for good: its turns are deleted and never replayed again.

    Example: aria-mem conversations forget 5c1d2e3f --yes
    """
    mem = memory(ctx)
    found, _turns = mem.conversation(conversation_id)
    first = safe(found.first_message[:60])
    if not yes and not typer.confirm(f"Forget the conversation that began {first!r}?"):
        raise typer.Exit(1)
    _found, removed = mem.forget_conversation(str(found.id))
    if as_json:
        emit_json({"forgotten": str(found.id), "turns": removed})
    else:
        render.console.print(f"Forgot conversation {str(found.id)[:8]} ({removed} turns)")


def register(app: typer.Typer) -> None:
    app.add_typer(conversations_app, name="conversations")
