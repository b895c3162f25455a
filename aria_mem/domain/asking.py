"""A question as it is put in the review queue when the memories it names changed since it was
thought of, free of I/O.

A consolidation pass reads a memory's neighbours, then asks about a pair; meanwhile a person
may merge one of them from the review page, or forget it. The memory a question names is then
no longer active, and a merge moved the open questions about it before this one was queued.
So a question is asked about the memories as they stand when it is queued: about the memory
that stands for one merged away or superseded (``moved_question``, as if it had been open when
that happened), and not at all about a memory forgotten or retired, a pair that is now one, or
a memory of another user or companion (an imported chain can name one).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import datetime

from aria_mem.domain.hygiene import ReviewItem, last_said, moved_question, other_of
from aria_mem.domain.models import Memory, MemoryStatus

MAX_MOVES = 8
"""How many memories standing for one another a question follows (a merged memory itself
merged or superseded since); past it, the question is not asked."""


def as_it_stands(
    item: ReviewItem,
    find: Callable[[uuid.UUID], Memory | None],
    merged: Callable[[Memory, Memory], datetime | None],
    *,
    retired_stand: bool = False,
) -> ReviewItem | None:
    """``item`` as it is to be asked now: ``find`` gives a memory as it stands (None when
    forgotten; the store holds it against change until the question is queued), ``merged``
    when a pass merged a memory no longer active into the one that stands for it (its
    history's merge event; None when it did not). Any other supersession is read as a
    replacement, a person's merge on the review page included: a likely repeat is then asked
    as a likely change, the reading that never takes the current fact out of every prompt.
    None when nothing is left to ask. ``retired_stand``: a retired memory still stands (a
    question already open stays on it, as retiring leaves it), so only the moves are made.

    When the kept memory's fact was last stated: a pass's merge confirms it when the merged
    one was said. One made by an earlier aria-mem confirmed it at the merge's own time (its
    ``last_confirmed_at`` is the merge event's), which says nothing of when it was said; while
    that is its last confirmation, it counts as said when it was written, or when the merged
    one was last said, whichever is later (a memory said after both is still asked second:
    accepting a likely change lets the latest statement win)."""
    for _ in range(MAX_MOVES + 1):
        named = [i for i in (item.memory_id, item.other_id) if i is not None]
        memories = [find(i) for i in named]
        if any(m is None for m in memories):
            return None
        gone = next((m for m in memories if m and not _stands(m, retired_stand)), None)
        if gone is None:
            return item
        if gone.status is not MemoryStatus.SUPERSEDED or gone.superseded_by is None:
            return None
        holder = find(gone.superseded_by)
        if holder is None or (holder.user_id, holder.companion_id) != (
            item.user_id,
            item.companion_id,
        ):  # an imported chain may name another pair's memory: never asked about here
            return None
        other_id = other_of(item, gone.id)
        other = None if other_id is None else find(other_id)
        folded_at = merged(gone, holder)
        confirmed_by_merge = folded_at is not None and holder.last_confirmed_at == folded_at
        said = holder.created_at if confirmed_by_merge else last_said(holder)
        said_at = max(said, last_said(gone))
        moved = moved_question(item, holder, other, said_at=said_at, merged=folded_at is not None)
        if moved is None:
            return None
        item = moved
    return None


def _stands(memory: Memory, retired_stand: bool) -> bool:
    if memory.status is MemoryStatus.ACTIVE:
        return True
    return retired_stand and memory.status is MemoryStatus.ARCHIVED
