"""The search query for one message: the user's last two messages, previous one first.

Two messages fix the short follow-up: "my sister's getting married in June" then "I need to
find a gift" must find "the user's sister loves pottery"."""

from __future__ import annotations

MAX_MESSAGE_CHARS = 1000


def build_query(current: str, previous: str | None = None) -> str:
    parts = [p.strip()[:MAX_MESSAGE_CHARS] for p in (previous, current) if p and p.strip()]
    return "\n".join(parts)
