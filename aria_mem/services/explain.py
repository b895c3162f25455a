"""What a person asks about a turn: why a memory was (or was not) brought up, and what every
prompt holds whatever the message (the profile), straight from PostgreSQL."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

from aria_mem.domain import fate
from aria_mem.domain.fate import Fate
from aria_mem.domain.profile import select_profile
from aria_mem.domain.ranking import DEFAULT_WEIGHTS
from aria_mem.domain.retrieval import Profile, SearchResult
from aria_mem.errors import NotFoundError
from aria_mem.ports import MemoryRepository, RetrievalReads


def fate_of(memories: MemoryRepository, result: SearchResult, memory_id: uuid.UUID) -> Fate:
    seen = fate.in_result(result, memory_id)
    if seen is not None:
        return seen
    try:
        stored = memories.get(memory_id)
    except NotFoundError:
        stored = None
    return fate.unseen(result, memory_id, stored, datetime.now(UTC))


def profile_of(reads: RetrievalReads, user_id: str, companion_id: str, timeout: float) -> Profile:
    stage, pool = reads.retrieval_context(user_id, companion_id, timeout=timeout)
    return Profile(tuple(select_profile(pool)[: DEFAULT_WEIGHTS.cap(stage)]), stage)
