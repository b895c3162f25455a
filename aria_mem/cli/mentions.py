"""Offering to forget the chat turns that mention a memory being forgotten: a fact deleted
from memory must not live on in the stored turns a resumed chat replays."""

from __future__ import annotations

import sys
from enum import Enum
from typing import TYPE_CHECKING

from aria_mem.cli import render
from aria_mem.cli.render import markup_safe

if TYPE_CHECKING:
    from aria_mem.api import AriaMem, Memory, StoredTurn

SHOWN = 10


class TurnsChoice(Enum):
    ASK = "ask"
    FORGET = "forget"
    KEEP = "keep"


def offer(
    mem: AriaMem, forgotten: Memory, choice: TurnsChoice, *, may_ask: bool
) -> tuple[int, int]:
    """(turns forgotten, turns kept) that mention ``forgotten``; with ASK, asks when it may
    and a person is at the terminal, otherwise keeps them and says how to remove them."""
    found = mem.conversations.turns_mentioning(
        forgotten.text, user=forgotten.user_id, companion=forgotten.companion_id
    )
    if not found:
        return 0, 0
    wanted = choice is TurnsChoice.FORGET
    if choice is TurnsChoice.ASK and may_ask and sys.stdin.isatty():
        wanted = ask_to_forget(found)
    if not wanted:
        if choice is TurnsChoice.ASK:
            verb = "mentions" if len(found) == 1 else "mention"
            render.err_console.print(
                f"[yellow]{_these(found)} still {verb} it[/yellow] — `aria-mem conversations "
                f"forget --mentioning - --yes --user {_quoted(forgotten.user_id)} --companion "
                f"{_quoted(forgotten.companion_id)}`, with the memory's text on stdin, removes "
                "them"
            )
        return 0, len(found)
    gone = mem.conversations.forget_turns(
        found, user=forgotten.user_id, companion=forgotten.companion_id
    )
    return gone, len(found) - gone


def ask_to_forget(found: list[StoredTurn]) -> bool:
    """Show the turns and ask whether they go too (no answer, or anything but yes: they stay)."""
    show(found)
    answer = render.console.input(f"Forget {_these(found)} too? \\[y/N] ")  # not markup
    return answer.strip().lower() in ("y", "yes")


def show(found: list[StoredTurn]) -> None:
    for turn in found[:SHOWN]:
        render.console.print(
            f"  {str(turn.conversation_id)[:8]} [bold]{turn.role}[/bold]> "
            f"{markup_safe(turn.content[:160])}",
            highlight=False,
        )
    if len(found) > SHOWN:
        render.console.print(f"  … and {len(found) - SHOWN} more")


def _these(found: list[StoredTurn]) -> str:
    return f"{len(found)} stored chat turn{'s' if len(found) != 1 else ''}"


def _quoted(text: str) -> str:
    """For a shell, and printed through Rich markup (brackets escaped)."""
    return "'" + markup_safe(text).replace("'", "'\\''") + "'"
