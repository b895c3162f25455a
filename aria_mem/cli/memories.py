"""Commands that create, show and change memories."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, TypeAlias

import typer

from aria_mem.api import MemoryStatus, MemoryType
from aria_mem.cli import render, tsv
from aria_mem.cli.context import emit_json, memory, operation, parse_when, read_stdin_text
from aria_mem.cli.render import markup_safe
from aria_mem.domain.memory_line import memory_to_record

if TYPE_CHECKING:
    from aria_mem.api import AriaMem, WriteResult

UserOpt = Annotated[
    str | None,
    typer.Option(
        "--user", "-u", envvar="ARIA_MEM_USER", help="User id (default: [identity] user)."
    ),
]
CompanionOpt = Annotated[
    str | None,
    typer.Option(
        "--companion",
        "-c",
        envvar="ARIA_MEM_COMPANION",
        help="Companion (persona) id (default: [identity] companion).",
    ),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON for scripts.")]
IdArg = Annotated[str, typer.Argument(help="Memory id, or its first characters as `list` shows.")]

TYPES = ", ".join(t.value for t in MemoryType)


def result_json(result: WriteResult, action: str) -> dict[str, object]:
    return {
        "action": action,
        "memory": memory_to_record(result.memory),
        "index_state": result.memory.index_state.value,
        "indexed": result.indexed,
        "problem": result.problem,
        "superseded": str(result.superseded.id) if result.superseded else None,
        "review_items": result.review,
        "note": result.note,
    }


def remember(
    ctx: typer.Context,
    text: Annotated[
        str, typer.Argument(help='The fact to remember, in one sentence; "-" reads it from stdin.')
    ],
    type_: Annotated[str, typer.Option("--type", "-t", help=f"One of: {TYPES}.")] = "EpisodicEvent",
    importance: Annotated[float, typer.Option("--importance", "-i", help="0..1")] = 0.5,
    emotion: Annotated[
        float, typer.Option("--emotion", "-e", help="Emotional significance, 0..1.")
    ] = 0.0,
    confidence: Annotated[float, typer.Option(help="How sure we are, 0..1.")] = 0.8,
    reason: Annotated[str, typer.Option(help="Why this is worth remembering.")] = "",
    pin: Annotated[bool, typer.Option("--pin", help="Always include it in the profile.")] = False,
    expires: Annotated[
        str | None,
        typer.Option(help="When it stops being true: ISO date/time or a span (30d, 12h, 2w)."),
    ] = None,
    hold_until: Annotated[
        str | None,
        typer.Option(
            help="Keep it out of prompts until the relationship reaches this stage "
            "(early, established, close)."
        ),
    ] = None,
    no_merge: Annotated[
        bool,
        typer.Option("--no-merge", help="Store it as given, even if it repeats a memory."),
    ] = False,
    replaces: Annotated[
        str | None,
        typer.Option(
            help="The memory (id or its first characters) this fact replaces: it is kept in "
            "its history (`aria-mem history`) and never brought up again."
        ),
    ] = None,
    user: UserOpt = None,
    companion: CompanionOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Remember a fact about the user.

    Saved in PostgreSQL first, then embedded and indexed. If the embedding model or the index
    is unreachable the memory is still saved (pending) and indexed later; the exit code is 0.
    A fact already known is confirmed; one that says what a memory says in other words is
    merged into it (--no-merge stores it as given); one that seems to change a memory is
    queued for `aria-mem review`. When a fact has changed, say which memory it replaces.

    While a command runs, its arguments can be read by any local account (/proc/PID/cmdline):
    give a private fact as "-" and pipe it in, as in the second example.

    Example: aria-mem remember "The user is allergic to peanuts." -t ProfileFact -i 0.9

    Example: echo "The user has a cat called Miso." | aria-mem remember -

    Example: aria-mem remember "The user moved to Lisbon." --replaces 3f2a9c1e
    """
    from aria_mem.operations import write_from_wire

    when = parse_when(expires)
    args = {
        "text": read_stdin_text() if text == "-" else text,
        "type": type_,
        "importance": importance,
        "emotion": emotion,
        "confidence": confidence,
        "reason": reason,
        "pinned": pin,
        "expires": None if when is None else when.isoformat(),
        "hold_until": hold_until,
        "merge": not no_merge,
        "replaces": replaces,
        "user": user,
        "companion": companion,
    }
    result = write_from_wire(operation(ctx, "remember", args))
    action = "merged" if result.merged else "created" if result.created else "confirmed"
    if as_json:
        emit_json(result_json(result, "restored" if result.restored else action))
        return
    if result.merged:
        verb = "Said before in other words — merged into"
    elif result.restored:
        verb = "Said again after it was replaced or retired — restored"
    else:
        verb = "Remembered" if result.created else "Already known — confirmed"
    render.write_line(verb, result)
    if result.restored:
        render.console.print(f"  {markup_safe(result.note)}")
    if result.superseded is not None:
        render.console.print(
            f"  It replaces [cyan]{str(result.superseded.id)[:8]}[/cyan] "
            f"({markup_safe(result.superseded.text)}) — `aria-mem history` shows both"
        )
    if result.review:
        render.console.print(
            f"  It may change {result.review} known memor{'y' if result.review == 1 else 'ies'}"
            " — `aria-mem review` to decide"
        )


def list_(
    ctx: typer.Context,
    user: UserOpt = None,
    companion: CompanionOpt = None,
    all_: Annotated[bool, typer.Option("--all", help="Every user and companion.")] = False,
    status: Annotated[str, typer.Option(help="active, archived or any.")] = "any",
    limit: Annotated[int | None, typer.Option(help="At most this many.")] = None,
    newest: Annotated[bool, typer.Option("--newest", help="Newest first.")] = False,
    type_: Annotated[
        str | None, typer.Option("--type", "-t", help=f"Only this type: {TYPES}.")
    ] = None,
    grep: Annotated[
        str | None,
        typer.Option("--grep", "-g", help="Only memories whose text holds this (any case)."),
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """List memories, oldest first (--newest: newest first).

    In a terminal a table; piped, every column tab-separated, one memory per line, never
    wrapped (a header line first).

    Example: aria-mem list --status active --json

    Example: aria-mem list --newest --limit 5 --type ProfileFact --grep sister

    Example: aria-mem list | grep -c peanuts
    """
    wanted = None
    if status != "any":
        try:
            wanted = MemoryStatus(status)
        except ValueError:
            raise typer.BadParameter("use active, archived or any", param_hint="--status") from None
    args = {"user": user, "companion": companion, "everyone": all_, "limit": limit}
    args |= {"status": None if wanted is None else wanted.value, "type": type_, "grep": grep}
    args["newest"] = newest
    from aria_mem.operations import memory_from_wire

    memories = [memory_from_wire(m) for m in operation(ctx, "list", args, start=False)]
    if as_json:
        emit_json([memory_to_record(m) | {"index_state": m.index_state.value} for m in memories])
    elif not sys.stdout.isatty():
        sys.stdout.write(tsv.memory_tsv(memories) + "\n")
    elif not memories:
        render.console.print('No memories yet — add one with `aria-mem remember "..."`')
    else:
        render.console.print(render.memory_table(memories))


def show(
    ctx: typer.Context,
    memory_id: IdArg,
    user: UserOpt = None,
    companion: CompanionOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Show everything stored about one memory of the user and companion.

    Example: aria-mem show 3f2a91c0

    Example: aria-mem show 3f2a91c0 --user sam
    """
    args = {"memory": memory_id, "user": user, "companion": companion}
    from aria_mem.operations import memory_from_wire

    found = memory_from_wire(operation(ctx, "show", args, start=False))
    if as_json:
        emit_json(
            memory_to_record(found)
            | {
                "index_state": found.index_state.value,
                "indexed_model": found.indexed_model,
                "index_attempts": found.index_attempts,
                "index_error": found.index_error,
            }
        )
    else:
        render.console.print(render.memory_detail(found))


def edit(
    ctx: typer.Context,
    memory_id: IdArg,
    text: Annotated[str | None, typer.Option(help="New text (re-embedded).")] = None,
    importance: Annotated[float | None, typer.Option("--importance", "-i")] = None,
    emotion: Annotated[float | None, typer.Option("--emotion", "-e")] = None,
    confidence: Annotated[float | None, typer.Option()] = None,
    reason: Annotated[str | None, typer.Option()] = None,
    expires: Annotated[str | None, typer.Option(help="ISO date/time or a span (30d).")] = None,
    no_expiry: Annotated[bool, typer.Option("--no-expiry", help="Remove the expiry.")] = False,
    user: UserOpt = None,
    companion: CompanionOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Change a memory of the user and companion (the config's, or --user / --companion).
    It is marked pending so its vector is recomputed.

    Example: aria-mem edit 3f2a9c1e --text "The user's sister loves ceramics."
    """
    result = memory(ctx).update(
        memory_id,
        text=text,
        importance=importance,
        emotional_significance=emotion,
        confidence=confidence,
        reason=reason,
        expires=parse_when(expires),
        clear_expiry=no_expiry,
        user=user,
        companion=companion,
    )
    _report(result, "edited", "Edited", as_json)


def _report(result: WriteResult, action: str, verb: str, as_json: bool) -> None:
    if as_json:
        emit_json(result_json(result, action))
    else:
        render.write_line(verb, result)


Act: TypeAlias = "Callable[[AriaMem, str, str | None, str | None], WriteResult]"


def _flag_command(
    act: Act, action: str, verb: str, doc: str
) -> Callable[[typer.Context, str, str | None, str | None, bool], None]:
    """`pin`, `unpin`, `archive`, `unarchive`, `confirm`: one call of the API (``act``) on a
    memory of the user and companion (the config's, or --user / --companion)."""

    def command(
        ctx: typer.Context,
        memory_id: IdArg,
        user: UserOpt = None,
        companion: CompanionOpt = None,
        as_json: JsonOpt = False,
    ) -> None:
        _report(act(memory(ctx), memory_id, user, companion), action, verb, as_json)

    command.__doc__ = doc
    return command


pin = _flag_command(
    lambda mem, ref, user, companion: mem.update(ref, pinned=True, user=user, companion=companion),
    "pinned",
    "Pinned",
    "Pin a memory: it is always in the profile.\n\nExample: aria-mem pin 3f2a9c1e",
)
unpin = _flag_command(
    lambda mem, ref, user, companion: mem.update(ref, pinned=False, user=user, companion=companion),
    "unpinned",
    "Unpinned",
    "Unpin a memory.\n\nExample: aria-mem unpin 3f2a9c1e",
)
archive = _flag_command(
    lambda mem, ref, user, companion: mem.update(
        ref, archived=True, user=user, companion=companion
    ),
    "archived",
    "Archived",
    "Archive a memory: kept, but never brought into a prompt.\n\n"
    "Example: aria-mem archive 3f2a9c1e",
)
unarchive = _flag_command(
    lambda mem, ref, user, companion: mem.update(
        ref, archived=False, user=user, companion=companion
    ),
    "unarchived",
    "Unarchived",
    "Bring an archived memory back.\n\nExample: aria-mem unarchive 3f2a9c1e",
)
confirm = _flag_command(
    lambda mem, ref, user, companion: mem.confirm(ref, user=user, companion=companion),
    "confirmed",
    "Confirmed",
    "Record that the user said it again (refreshes its recency).\n\n"
    "Example: aria-mem confirm 3f2a9c1e",
)


def register(app: typer.Typer) -> None:
    app.command()(remember)
    app.command("list")(list_)
    app.command()(show)
    app.command()(edit)
    for name, fn in (
        ("pin", pin),
        ("unpin", unpin),
        ("archive", archive),
        ("unarchive", unarchive),
        ("confirm", confirm),
    ):
        app.command(name)(fn)
