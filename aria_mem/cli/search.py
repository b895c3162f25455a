"""`search` (what would the companion remember for this message, and why) and `stage`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

from aria_mem.cli import render, search_view
from aria_mem.cli.context import emit_json, memory, operation
from aria_mem.cli.memories import CompanionOpt, JsonOpt, UserOpt
from aria_mem.cli.render import markup_safe

if TYPE_CHECKING:
    from aria_mem.api import AriaMem


def search(
    ctx: typer.Context,
    message: Annotated[str, typer.Argument(help="The user's message.")],
    previous: Annotated[
        str | None,
        typer.Option(
            "--previous", "-p", help="The user's message before it (short follow-ups need it)."
        ),
    ] = None,
    explain: Annotated[
        bool,
        typer.Option(
            "--explain",
            "-x",
            help="Every signal, every contribution, and what was dropped and why.",
        ),
    ] = False,
    why: Annotated[
        str | None,
        typer.Option(help="Explain the fate of one memory (id or its first characters)."),
    ] = None,
    prompt: Annotated[
        bool, typer.Option("--prompt", help="Print the exact sections that would go to the model.")
    ] = False,
    user: UserOpt = None,
    companion: CompanionOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Show which memories the companion would bring up for a message, and why.

    Runs the same retrieval as a chat turn (query from the previous and current message,
    nearest vectors filtered to this user, companion and model, fused with PostgreSQL's
    word matches; PostgreSQL's check, ranking, profile and cap) but does not count as a use
    of the memories it shows. --explain shows, for each memory, its cosine, its place among
    the word matches, its place after fusion, and, for one that mostly repeats the profile
    or a more similar memory, which one and what that took off its similarity ("found").

    Example: aria-mem search "I need to find a gift" --previous "My sister is getting
    married in June" --explain
    """
    args = {"message": message, "previous": previous, "user": user, "companion": companion}
    args["why"] = why
    if explain and not as_json:  # the table needs the search itself: in-process
        _explain(memory(ctx), args, prompt=prompt)
        return
    data = operation(ctx, "search", args)
    if as_json:
        emit_json(data)
        return
    search_view.ranked_list(data)
    if "why" in data:
        search_view.fate(data["why"])
    if prompt:
        search_view.prompt(data["prompt"])
    for reason in data["degraded"]:
        render.err_console.print(f"[yellow]degraded:[/yellow] {markup_safe(reason)}")


def _explain(mem: AriaMem, args: dict[str, Any], *, prompt: bool) -> None:
    mem.warm_up()
    result = mem.search(
        args["message"], previous=args["previous"], user=args["user"], companion=args["companion"]
    )
    search_view.explain(result)
    if args["why"] is not None:
        fate = mem.why(result, args["why"])
        search_view.fate(
            {"id": str(fate.memory_id), "outcome": fate.outcome, "detail": fate.detail}
        )
    if prompt:
        search_view.prompt(result.prompt)
    for reason in result.degraded:
        render.err_console.print(f"[yellow]degraded:[/yellow] {markup_safe(reason)}")


def stage(
    ctx: typer.Context,
    new_stage: Annotated[
        str | None,
        typer.Argument(
            metavar="[STAGE]", help="early, established or close; omit to show the current one."
        ),
    ] = None,
    user: UserOpt = None,
    companion: CompanionOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Show or set the relationship stage of a user and companion.

    The stage moves the similarity bar (+0.05 early) and the memory cap (x0.6 early, x1.25
    close), and releases memories held until it.

    Example: aria-mem stage established
    """
    mem = memory(ctx)
    if new_stage is not None:
        report = mem.relationship.set_stage(new_stage, user=user, companion=companion)
        if report.errors:
            render.err_console.print(
                "[yellow]held memories will be (un)indexed by the next "
                f"sync:[/yellow] {markup_safe('; '.join(report.errors))}"
            )
    current = mem.relationship.stage(user=user, companion=companion)
    user_id = user if user is not None else mem.settings.identity.user
    companion_id = companion if companion is not None else mem.settings.identity.companion
    if as_json:
        emit_json({"user": user_id, "companion": companion_id, "stage": current.value})
    else:
        render.console.print(
            f"{markup_safe(user_id)} / {markup_safe(companion_id)}: {current.value}"
        )


def register(app: typer.Typer) -> None:
    app.command()(search)
    app.command()(stage)
