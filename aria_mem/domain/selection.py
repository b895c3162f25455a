"""From candidates to the memories that go into a prompt: threshold, ranking, profile and cap.

Pure: it gets the usable memories (PostgreSQL has already had its say) and their similarity,
and returns what goes in and what was dropped, with the reason for each, so that
`search --explain` can show the whole decision.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum

from aria_mem.domain.models import Memory, MemoryStatus, Stage
from aria_mem.domain.profile import select_profile
from aria_mem.domain.ranking import DEFAULT_WEIGHTS, RankingWeights, Score, score


class Section(StrEnum):
    PROFILE = "profile"
    RELEVANT = "relevant"


class DropReason(StrEnum):
    BELOW_THRESHOLD = "below the similarity threshold"
    CUT_BY_CAP = "cut by the memory cap"
    PROFILE_CUT_BY_CAP = "profile larger than the memory cap"
    DELETED = "deleted (the index still had a vector)"
    ARCHIVED = "archived"
    EXPIRED = "expired"
    HELD = "held until a closer relationship stage"
    OTHER_SCOPE = "belongs to another user or companion"
    NOT_INDEXED = "not indexed yet"
    OTHER_MODEL = "indexed under another embedding model"
    NOT_NEAR = "not among the nearest candidates"


def unusable_reason(memory: Memory, stage: Stage, now: datetime) -> DropReason | None:
    """Why PostgreSQL refuses a memory the index returned, or None if it may be used."""
    if memory.status is MemoryStatus.ARCHIVED:
        return DropReason.ARCHIVED
    if memory.expires_at is not None and memory.expires_at <= now:
        return DropReason.EXPIRED
    if not stage.allows(memory.held_until_stage):
        return DropReason.HELD
    return None


@dataclass(frozen=True)
class Ranked:
    memory: Memory
    section: Section
    score: Score | None
    """None for a profile memory the index did not bring up (it has no similarity)."""


@dataclass(frozen=True)
class Dropped:
    memory_id: uuid.UUID
    reason: DropReason
    similarity: float | None = None
    memory: Memory | None = None
    score: Score | None = None


@dataclass
class Selection:
    profile: list[Ranked] = field(default_factory=list)
    relevant: list[Ranked] = field(default_factory=list)
    dropped: list[Dropped] = field(default_factory=list)
    threshold: float = 0.0
    cap: int = 0

    @property
    def chosen(self) -> list[Ranked]:
        return self.profile + self.relevant


def select(
    *,
    profile_pool: Sequence[Memory],
    candidates: Sequence[tuple[Memory, float]],
    stage: Stage,
    min_similarity: float,
    now: datetime,
    weights: RankingWeights = DEFAULT_WEIGHTS,
) -> Selection:
    """``profile_pool``: usable profile-eligible memories; ``candidates``: usable memories
    the index found, with their cosine similarity."""
    result = Selection(threshold=weights.threshold(min_similarity, stage), cap=weights.cap(stage))
    similarity = {m.id: s for m, s in candidates}
    profile = select_profile(profile_pool)
    for memory in profile[: result.cap]:
        sim = similarity.get(memory.id)
        result.profile.append(
            Ranked(
                memory,
                Section.PROFILE,
                score(memory, sim, now, weights) if sim is not None else None,
            )
        )
    result.dropped.extend(
        Dropped(m.id, DropReason.PROFILE_CUT_BY_CAP, similarity.get(m.id), m)
        for m in profile[result.cap :]
    )
    in_profile = {m.id for m in profile}

    scored: list[Ranked] = []
    for memory, sim in candidates:
        if memory.id in in_profile:
            continue
        if sim < result.threshold:
            result.dropped.append(
                Dropped(
                    memory.id,
                    DropReason.BELOW_THRESHOLD,
                    sim,
                    memory,
                    score(memory, sim, now, weights),
                )
            )
            continue
        scored.append(Ranked(memory, Section.RELEVANT, score(memory, sim, now, weights)))
    scored.sort(key=lambda r: (-r.score.total if r.score else 0.0, str(r.memory.id)))
    room = max(0, result.cap - len(result.profile))
    result.relevant = scored[:room]
    result.dropped.extend(
        Dropped(
            r.memory.id,
            DropReason.CUT_BY_CAP,
            r.score.similarity if r.score else None,
            r.memory,
            r.score,
        )
        for r in scored[room:]
    )
    return result
