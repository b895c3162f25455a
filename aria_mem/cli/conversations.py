"""`conversations`: the chat turns aria-mem keeps, to see and to forget (they are memory
too: a resumed chat replays them as history)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table

from aria_mem.cli import mentions, render
from aria_mem.cli.context import emit_json, memory, read_stdin_text
from aria_mem.cli.memories import CompanionOpt, JsonOpt, UserOpt
from aria_mem.cli.render import markup_safe, safe
from aria_mem.errors import UsageError
from aria_mem.private import open_private_output

if TYPE_CHECKING:
    from aria_mem.api import AriaMem, ConversationSummary

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
    found = memory(ctx).conversations.list(user=user, companion=companion)
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
def show(
    ctx: typer.Context,
    conversation_id: IdArg,
    user: UserOpt = None,
    companion: CompanionOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Every turn of one conversation of the user and companion, oldest first.

    Example: aria-mem conversations show 5c1d2e3f
    """
    found, turns = memory(ctx).conversations.get(conversation_id, user=user, companion=companion)
    if as_json:
        emit_json(_json(found) | {"messages": [{"role": r, "content": c} for r, c in turns]})
        return
    for role, content in turns:
        render.console.print(f"[bold]{role}[/bold]> {markup_safe(content, keep_lines=True)}")


@conversations_app.command()
def forget(
    ctx: typer.Context,
    conversation_id: Annotated[
        str | None,
        typer.Argument(help="Conversation id, or its first characters as `list` shows."),
    ] = None,
    mentioning: Annotated[
        str | None,
        typer.Option(
            "--mentioning",
            help="Instead of a whole conversation: every turn of the user and companion that "
            'mentions this (most of its words), e.g. a fact you had forgotten; "-" reads it '
            "from stdin (arguments are visible to other local accounts).",
        ),
    ] = None,
    user: UserOpt = None,
    companion: CompanionOpt = None,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Forget a conversation for good (its turns are deleted and never replayed again), or
    the turns that mention something.

    Example: aria-mem conversations forget 5c1d2e3f --yes

    Example: aria-mem conversations forget --mentioning "my sister Maya"
    """
    mem = memory(ctx)
    if mentioning is not None:
        text = read_stdin_text() if mentioning == "-" else mentioning
        _forget_mentions(mem, text, user, companion, yes, as_json)
        return
    if conversation_id is None:
        raise typer.BadParameter("give a conversation id, or --mentioning TEXT", param_hint="ID")
    found, _turns = mem.conversations.get(conversation_id, user=user, companion=companion)
    first = safe(found.first_message[:60])
    if not yes and not typer.confirm(f"Forget the conversation that began {first!r}?"):
        raise typer.Exit(1)
    _found, removed = mem.conversations.forget(
        str(found.id), user=found.user_id, companion=found.companion_id
    )
    if as_json:
        emit_json({"forgotten": str(found.id), "turns": removed})
    else:
        render.console.print(f"Forgot conversation {str(found.id)[:8]} ({removed} turns)")


@conversations_app.command("export")
def export_(
    ctx: typer.Context,
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", help='File to write (default, or "-": stdout).'),
    ] = None,
    user: UserOpt = None,
    companion: CompanionOpt = None,
) -> None:
    """Write the conversations of the user and companion, every turn with its time, as JSON
    Lines that `aria-mem import` restores. A file is written readable by you only (0600).

    Example: aria-mem conversations export -o talks.jsonl
    """
    mem = memory(ctx)
    if output is None or str(output) == "-":
        mem.conversations.export(sys.stdout, user=user, companion=companion)
        return
    with open_private_output(output) as stream:
        count = mem.conversations.export(stream, user=user, companion=companion)
    render.err_console.print(f"Exported {count} conversations to {markup_safe(str(output))}")


def _forget_mentions(
    mem: AriaMem, text: str, user: str | None, companion: str | None, yes: bool, as_json: bool
) -> None:
    if not text.strip():
        raise UsageError("--mentioning is empty — give the words the turns hold")
    found = mem.conversations.turns_mentioning(text, user=user, companion=companion)
    if not found:
        if as_json:
            emit_json({"turns": 0})
        else:
            render.console.print("No stored chat turn mentions that.")
        return
    if not yes:
        mentions.show(found)
        if not typer.confirm(f"Forget these {len(found)} turns for good?"):
            raise typer.Exit(1)
    gone = mem.conversations.forget_turns(found, user=user, companion=companion)
    if as_json:
        emit_json({"turns": gone})
    else:
        render.console.print(f"Forgot {gone} chat turn{'s' if gone != 1 else ''}")


def register(app: typer.Typer) -> None:
    app.add_typer(conversations_app, name="conversations")
