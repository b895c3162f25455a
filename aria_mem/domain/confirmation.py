"""Step 8 of the trip, "Confirmation": PostgreSQL's final say over the candidates, as a rule
over the rows it sent.

The index may still hold a vector for a memory that was deleted, archived, expired, held back
until a later stage, or (after a bug elsewhere) for another user's or companion's memory; a
candidate is used only if its row exists, belongs to the pair and may be used now.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime

from aria_mem.domain.models import DropReason, Hit, Memory, Stage
from aria_mem.domain.usability import unusable_reason


@dataclass(frozen=True)
class Rejected:
    """A candidate PostgreSQL refused, and why; the ranking lists it first among the
    dropped."""

    memory_id: uuid.UUID
    reason: DropReason
    similarity: float
    memory: Memory | None = None
    """The row, when there is one (a deleted memory has none)."""


@dataclass(frozen=True)
class Confirmed:
    usable: list[tuple[Memory, float]] = field(default_factory=list)
    rejected: list[Rejected] = field(default_factory=list)
    problem: str | None = None
    """Why no candidate could be judged (the rows could not be read)."""


def confirm(
    hits: list[Hit],
    rows: Mapping[uuid.UUID, tuple[Memory, bool]],
    user_id: str,
    companion_id: str,
    stage: Stage,
    now: datetime,
) -> Confirmed:
    """``rows``: each memory that still exists, with whether PostgreSQL found it usable."""
    result = Confirmed()
    for hit in hits:
        row = rows.get(hit.id)
        if row is None:
            result.rejected.append(Rejected(hit.id, DropReason.DELETED, hit.score))
            continue
        memory, usable = row
        if (memory.user_id, memory.companion_id) != (user_id, companion_id):
            result.rejected.append(Rejected(hit.id, DropReason.OTHER_SCOPE, hit.score))
        elif not usable:
            reason = unusable_reason(memory, stage, now) or DropReason.HELD
            result.rejected.append(Rejected(hit.id, reason, hit.score, memory))
        else:
            result.usable.append((memory, hit.score))
    return result
