"""`forget`: a memory for good, or everything about a person."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from aria_mem.cli import mentions, render
from aria_mem.cli.context import emit_json, memory
from aria_mem.cli.memories import CompanionOpt, JsonOpt, result_json
from aria_mem.cli.mentions import TurnsChoice

if TYPE_CHECKING:
    from aria_mem.api import AriaMem


def _forget_everything(
    mem: AriaMem, memory_id: str | None, user: str | None, yes: bool, as_json: bool
) -> None:
    if memory_id is not None or not user:
        raise typer.BadParameter(
            "--everything takes --user U (whose) and no memory id", param_hint="--everything"
        )
    count = len(mem.list(user=user, everyone=False)) if not yes else 0
    question = (
        f"Forget everything about {render.safe(user)!r} (memories with every companion — "
        f"{count} with this one — conversations and stages)? This cannot be undone"
    )
    if not yes and not typer.confirm(question):
        raise typer.Exit(1)
    done = mem.forget_everything(user)
    erased = done.erased
    if as_json:
        emit_json(
            {
                "user": done.user,
                "memories": erased.memories,
                "conversations": erased.conversations,
                "turns": erased.turns,
                "relationships": erased.relationships,
                "vectors_removed": done.vectors_removed,
                "problem": done.problem,
            }
        )
        return
    render.console.print(
        f"Forgot {erased.memories} memories, {erased.conversations} conversations "
        f"({erased.turns} turns) and {erased.relationships} relationship stages of "
        f"{render.markup_safe(done.user)}"
        + ("" if done.vectors_removed else f"; {render.markup_safe(done.problem or '')}")
    )


def forget(
    ctx: typer.Context,
    memory_id: Annotated[
        str | None,
        typer.Argument(help="Memory id, or its first characters as `list` shows."),
    ] = None,
    everything: Annotated[
        bool,
        typer.Option(
            "--everything",
            help="Forget a person: every memory of --user with every companion, their "
            "conversations and relationship stages, and the vectors.",
        ),
    ] = False,
    user: Annotated[
        str | None,
        typer.Option(
            "--user",
            "-u",
            help="Whose memory (default: [identity] user); with --everything: whose, required.",
        ),
    ] = None,
    companion: CompanionOpt = None,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask.")] = False,
    turns: Annotated[
        TurnsChoice,
        typer.Option(
            "--turns",
            help="Stored chat turns that mention the memory: ask (at a terminal; otherwise "
            "kept, with the command that removes them), forget, or keep.",
            case_sensitive=False,
        ),
    ] = TurnsChoice.ASK,
    as_json: JsonOpt = False,
) -> None:
    """Forget a memory for good: its text is deleted from PostgreSQL and its vector removed
    (queued durably if the index is down). This cannot be undone. Chat turns that mention it
    (and would be replayed as history) are offered for forgetting too.

    Example: aria-mem forget 3f2a91c0 --yes --turns forget

    Example: aria-mem forget --everything --user sam
    """
    mem = memory(ctx)
    if everything:
        if companion is not None:
            raise typer.BadParameter(
                "--everything forgets the user with every companion; drop --companion",
                param_hint="--companion",
            )
        _forget_everything(mem, memory_id, user, yes, as_json)
        return
    if memory_id is None:
        raise typer.BadParameter("give a memory id, or --everything --user U", param_hint="ID")
    found = mem.get(memory_id, user=user, companion=companion)
    if not yes and not typer.confirm(f"Forget for good: {render.safe(found.text)!r}?"):
        raise typer.Exit(1)
    result = mem.forget(found.id, user=found.user_id, companion=found.companion_id)
    gone, kept = mentions.offer(mem, found, turns, may_ask=not (as_json or yes))
    if as_json:
        emit_json(result_json(result, "forgotten") | {"turns_forgotten": gone, "turns_kept": kept})
        return
    render.write_line("Forgotten", result)
    if gone:
        render.console.print(f"Forgot {gone} chat turn{'s' if gone != 1 else ''} that mentioned it")


def register(app: typer.Typer) -> None:
    app.command()(forget)
