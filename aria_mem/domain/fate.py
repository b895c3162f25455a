"""Why a memory was, or was not, in a retrieval (`search --why`): pure reasoning over the
result and, when the search never saw the memory, what PostgreSQL holds about it."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime

from aria_mem.domain.models import DropReason, IndexState, Memory
from aria_mem.domain.retrieval import SearchResult
from aria_mem.domain.selection import Dropped, Ranked
from aria_mem.domain.usability import unusable_reason


@dataclass(frozen=True)
class Fate:
    memory_id: uuid.UUID
    outcome: str
    detail: str
    ranked: Ranked | None = None
    dropped: Dropped | None = None


def in_result(result: SearchResult, memory_id: uuid.UUID) -> Fate | None:
    """The memory's fate if the retrieval saw it (chosen or dropped), else None."""
    for position, ranked in enumerate(result.chosen, start=1):
        if ranked.memory.id == memory_id:
            how = (
                f"score {ranked.score.total:.3f}"
                if ranked.score
                else "always included (not brought up by the search)"
            )
            return Fate(
                memory_id, f"selected #{position} ({ranked.section.value})", how, ranked=ranked
            )
    for dropped in result.dropped:
        if dropped.memory_id == memory_id:
            sim = f"similarity {dropped.similarity:.3f}" if dropped.similarity is not None else ""
            bar = (
                f" (bar {result.selection.threshold:.2f})"
                if dropped.reason is DropReason.BELOW_THRESHOLD
                else ""
            )
            return Fate(memory_id, f"dropped: {dropped.reason.value}", sim + bar, dropped=dropped)
    return None


def unseen(
    result: SearchResult, memory_id: uuid.UUID, memory: Memory | None, now: datetime
) -> Fate:
    """Why a memory the retrieval never saw stayed out (``memory``: what PostgreSQL holds,
    None when it does not exist)."""
    if memory is None:
        return Fate(memory_id, "dropped: does not exist", "deleted, or never stored")
    if memory.user_id != result.user_id or memory.companion_id != result.companion_id:
        return Fate(
            memory_id,
            f"dropped: {DropReason.OTHER_SCOPE.value}",
            f"it belongs to {memory.user_id} / {memory.companion_id}",
        )
    reason = unusable_reason(memory, result.stage, now)
    if reason is not None:
        return Fate(memory_id, f"dropped: {reason.value}", "PostgreSQL does not allow it")
    if memory.index_state is IndexState.PENDING:
        return Fate(
            memory_id,
            f"dropped: {DropReason.NOT_INDEXED.value}",
            memory.index_error or "the next sync or daemon pass indexes it",
        )
    if memory.indexed_model != result.model:
        return Fate(
            memory_id,
            f"dropped: {DropReason.OTHER_MODEL.value}",
            f"indexed with {memory.indexed_model}, searching with {result.model}",
        )
    return Fate(
        memory_id,
        f"dropped: {DropReason.NOT_NEAR.value}",
        f"the index returned {result.candidates} nearer memories",
    )
