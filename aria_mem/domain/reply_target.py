"""Which of the companion's earlier messages is the user replying to? A cheap heuristic that
runs beside retrieval: the recent companion message sharing the most content words with the
user's message, or, for a short message that shares none, the companion's last message."""

from __future__ import annotations

import re
from collections.abc import Sequence

from aria_mem.domain.budget import Turn
from aria_mem.domain.prompt import neutralize

_WORD = re.compile(r"[^\W\d_]{3,}", re.UNICODE)
_STOP = {
    "the",
    "and",
    "you",
    "your",
    "for",
    "that",
    "this",
    "with",
    "are",
    "was",
    "what",
    "have",
    "but",
    "not",
    "about",
    "just",
    "how",
    "can",
    "all",
    "its",
    "it's",
    "i'm",
}
LOOK_BACK = 6
SHORT_MESSAGE_WORDS = 8
QUOTE_CHARS = 200


def _words(text: str) -> set[str]:
    return {w for w in (m.lower() for m in _WORD.findall(text)) if w not in _STOP}


def reply_target(history: Sequence[Turn], message: str) -> str | None:
    """The companion message the user most likely answers, or None."""
    recent = [t.content for t in history if t.role == "assistant"][-LOOK_BACK:]
    if not recent:
        return None
    said = _words(message)
    best, best_overlap = None, 0
    for candidate in reversed(recent):  # the most recent wins a tie
        overlap = len(said & _words(candidate))
        if overlap > best_overlap:
            best, best_overlap = candidate, overlap
    if best is not None:
        return best
    if len(message.split()) <= SHORT_MESSAGE_WORDS:
        return recent[-1]
    return None


def reply_hint(target: str | None) -> str:
    if not target:
        return ""
    quoted = neutralize(target)
    if len(quoted) > QUOTE_CHARS:
        quoted = quoted[: QUOTE_CHARS - 1] + "…"
    return f'The user is most likely replying to your earlier message: "{quoted}"'
