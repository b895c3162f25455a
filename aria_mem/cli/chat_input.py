"""Reading the user's messages in `aria-mem chat`.

In a terminal, prompt_toolkit gives line editing (arrows, Ctrl-A, Ctrl-K, …), a history kept
in a private file per user and companion, Alt-Enter for a new line, and a pasted block of
several lines arriving as one message (bracketed paste). Anywhere else (a pipe, a script) each
line is a message. In both, a message written between triple quotes may span lines.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from aria_mem.errors import ConfigError

if TYPE_CHECKING:
    from rich.console import Console

QUOTES = '"""'


class MessageReader(Protocol):
    interactive: bool
    """Whether Ctrl-C at the prompt only clears the line (a terminal) or ends the session."""

    def read(self, *, continuation: bool = False) -> str:
        """One line (or a pasted block); EOFError at the end of input."""
        ...


def collect(first: str, more: Callable[[], str]) -> str:
    """The message that starts with ``first``: a line that opens with triple quotes goes on,
    line by line from ``more``, until a line that ends with them."""
    stripped = first.strip()
    if not stripped.startswith(QUOTES):
        return first
    body = stripped[len(QUOTES) :]
    if body.endswith(QUOTES):
        return body[: -len(QUOTES)].strip()
    lines = [body]
    while True:
        line = more()
        if line.rstrip().endswith(QUOTES):
            lines.append(line.rstrip()[: -len(QUOTES)])
            break
        lines.append(line)
    return "\n".join(lines).strip("\n")


class TerminalReader:
    interactive = True

    def __init__(self, history: Path | None) -> None:
        from prompt_toolkit import PromptSession
        from prompt_toolkit.formatted_text import FormattedText
        from prompt_toolkit.history import FileHistory, InMemoryHistory
        from prompt_toolkit.key_binding import KeyBindings

        bindings = KeyBindings()

        @bindings.add("escape", "enter")
        def _new_line(event: object) -> None:
            event.current_buffer.insert_text("\n")  # type: ignore[attr-defined]

        self._session: PromptSession[str] = PromptSession(
            history=FileHistory(str(history)) if history else InMemoryHistory(),
            key_bindings=bindings,
            multiline=False,
            prompt_continuation="...> ",
            enable_history_search=False,
        )
        self._prompt = FormattedText([("ansicyan bold", "you"), ("", "> ")])
        self._more = FormattedText([("ansicyan", "..."), ("", "> ")])

    def read(self, *, continuation: bool = False) -> str:
        return self._session.prompt(self._more if continuation else self._prompt)


class PlainReader:
    interactive = False

    def __init__(self, console: Console) -> None:
        self._console = console

    def read(self, *, continuation: bool = False) -> str:
        return self._console.input("...> " if continuation else "[bold cyan]you[/bold cyan]> ")


def reader_for(console: Console, history: Callable[[], Path]) -> tuple[MessageReader, str | None]:
    """The terminal reader when both ends are a terminal, else plain lines; and a notice
    when the history file could not be opened (the session goes on without keeping it)."""
    if not (sys.stdin.isatty() and sys.stdout.isatty()) or os.environ.get("TERM") == "dumb":
        return PlainReader(console), None
    try:
        return TerminalReader(history()), None
    except (OSError, ConfigError) as exc:
        return TerminalReader(None), f"line history not kept: {exc}"
