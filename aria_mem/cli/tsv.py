"""Output for a pipe: every column, tab-separated, one record per line, never wrapped."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from aria_mem.cli.render import safe

if TYPE_CHECKING:
    from aria_mem.api import Memory

MEMORY_COLUMNS = (
    "id",
    "user",
    "companion",
    "type",
    "importance",
    "emotion",
    "confidence",
    "pinned",
    "status",
    "held_until",
    "index",
    "uses",
    "created",
    "updated",
    "text",
)


def _cell(value: str) -> str:
    """One tab-separated cell: safe, and with no tab or line break to split it."""
    return safe(value).replace("\t", " ").replace("\n", " ")


def memory_tsv(memories: Sequence[Memory]) -> str:
    """Every column, one memory per line, tab-separated and never wrapped: what a pipe into
    grep, cut or awk wants (the table is for a terminal)."""
    lines = ["\t".join(MEMORY_COLUMNS)]
    for m in memories:
        cells = (
            str(m.id),
            m.user_id,
            m.companion_id,
            m.type.value,
            f"{m.importance:.2f}",
            f"{m.emotional_significance:.2f}",
            f"{m.confidence:.2f}",
            "yes" if m.pinned else "no",
            m.status.value,
            m.held_until_stage.value if m.held_until_stage else "",
            m.index_state.value,
            str(m.use_count),
            m.created_at.isoformat(timespec="seconds"),
            m.updated_at.isoformat(timespec="seconds"),
            m.text,
        )
        lines.append("\t".join(_cell(c) for c in cells))
    return "\n".join(lines)
