"""A reply on the terminal: streamed as it comes, each part shown as Markdown once complete.

Rendering happens block by block (a block ends at a blank line outside a code fence): the
block being written is live plain text, and it is redrawn as Markdown when it is finished. A
redraw only ever covers one block, so a long reply never has to repaint lines that have
scrolled off the screen.
"""

from __future__ import annotations

import re
import time

from rich.console import Console, RenderableType
from rich.live import Live
from rich.markdown import Markdown
from rich.text import Text

FENCES = ("```", "~~~")
LIST_ITEM = re.compile(r"\s*([-*+]|\d+[.)])(\s|$)")
"""Rich puts a blank line before a list itself; other blocks need one from us."""
REFRESH_SECONDS = 0.05


def finished_upto(text: str) -> int:
    """How much of ``text`` is complete Markdown blocks: the end of its last blank line that
    is outside a code fence (0 when none)."""
    inside_fence = False
    end = position = 0
    for line in text.splitlines(keepends=True):
        position += len(line)
        if not line.endswith("\n"):
            break
        stripped = line.strip()
        if stripped.startswith(FENCES):
            inside_fence = not inside_fence
        elif not stripped and not inside_fence:
            end = position
    return end


class MarkdownReply:
    """Feed it the reply's pieces (already made terminal-safe); ``finish`` when it is done,
    ``stop`` when it was interrupted (what was shown stays as it is)."""

    def __init__(self, console: Console) -> None:
        self._console = console
        self._pending = ""
        self._live: Live | None = None
        self._shown_at = 0.0
        self._blocks = 0

    def add(self, piece: str) -> None:
        self._pending += piece
        done = finished_upto(self._pending)
        if done:
            block, self._pending = self._pending[:done], self._pending[done:]
            if block.strip():
                self._show(Markdown(block), now=True)
                self._close()
                self._blocks += 1
        if self._pending.strip():
            self._show(Text(self._pending), now=False)

    def finish(self) -> None:
        if self._pending.strip():
            self._show(Markdown(self._pending), now=True)
        self._close()

    def stop(self) -> None:
        if self._live is not None:
            self._live.update(Text(self._pending))
        self._close()

    def _show(self, renderable: RenderableType, *, now: bool) -> None:
        if self._live is None:
            if self._blocks and not LIST_ITEM.match(self._pending):
                self._console.print()
            self._live = Live(
                renderable,
                console=self._console,
                auto_refresh=False,
                vertical_overflow="visible",
                redirect_stdout=False,
                redirect_stderr=False,
            )
            self._live.start()
            self._shown_at = time.monotonic()
            return
        self._live.update(renderable)
        if now or time.monotonic() - self._shown_at >= REFRESH_SECONDS:
            self._live.refresh()
            self._shown_at = time.monotonic()

    def _close(self) -> None:
        if self._live is not None:
            self._live.stop()
            self._live = None
