"""The profile: always in the prompt, whatever the message, straight from PostgreSQL.

Pinned memories, then up to five of the most important ProfileFact and Boundary memories with
importance >= 0.75. Ties in importance go to the most recently touched, then to the id, so the
choice is stable."""

from __future__ import annotations

import uuid
from collections.abc import Iterable

from aria_mem.domain.models import Memory, MemoryType
from aria_mem.domain.ranking import last_touched

PROFILE_TYPES = (MemoryType.PROFILE_FACT, MemoryType.BOUNDARY)
MIN_PROFILE_IMPORTANCE = 0.75
MAX_PROFILE_FACTS = 5


def _order(memory: Memory) -> tuple[float, float, uuid.UUID]:
    return (-memory.importance, -last_touched(memory).timestamp(), memory.id)


def select_profile(candidates: Iterable[Memory]) -> list[Memory]:
    """``candidates`` are usable memories of one user and companion."""
    pool = list(candidates)
    pinned = sorted((m for m in pool if m.pinned), key=_order)
    facts = sorted(
        (
            m
            for m in pool
            if not m.pinned and m.type in PROFILE_TYPES and m.importance >= MIN_PROFILE_IMPORTANCE
        ),
        key=_order,
    )
    return pinned + facts[:MAX_PROFILE_FACTS]
