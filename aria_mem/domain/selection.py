"""From candidates to the memories that go into a prompt: threshold, ranking, profile and cap.

Pure: it gets the usable memories (PostgreSQL has already had its say) and their similarity,
and returns what goes in and what was dropped, with the reason for each, so that
`search --explain` can show the whole decision.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from aria_mem.domain.models import DropReason, Memory, Stage
from aria_mem.domain.profile import select_profile
from aria_mem.domain.ranking import DEFAULT_WEIGHTS, RankingWeights, Score, score


class Section(StrEnum):
    PROFILE = "profile"
    RELEVANT = "relevant"


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


@dataclass(frozen=True)
class Selection:
    profile: tuple[Ranked, ...] = ()
    relevant: tuple[Ranked, ...] = ()
    dropped: tuple[Dropped, ...] = ()
    threshold: float = 0.0
    cap: int = 0

    @property
    def chosen(self) -> list[Ranked]:
        return [*self.profile, *self.relevant]


def select(
    *,
    profile_pool: Sequence[Memory],
    candidates: Sequence[tuple[Memory, float]],
    stage: Stage,
    min_similarity: float,
    now: datetime,
    weights: RankingWeights = DEFAULT_WEIGHTS,
    rejected: Sequence[Dropped] = (),
    repeats: Mapping[uuid.UUID, float] | None = None,
) -> Selection:
    """``profile_pool``: usable profile-eligible memories; ``candidates``: usable memories
    the index found, with their cosine similarity; ``rejected``: what PostgreSQL already
    refused (listed first among the dropped); ``repeats``: what to take off a candidate's
    similarity in the formula (not at the bar) because it repeats one ranked above it."""
    discounts = repeats or {}
    threshold, cap = weights.threshold(min_similarity, stage), weights.cap(stage)
    similarity = {m.id: s for m, s in candidates}
    profile = select_profile(profile_pool)
    kept_profile = [
        Ranked(
            memory,
            Section.PROFILE,
            score(memory, similarity[memory.id], now, weights) if memory.id in similarity else None,
        )
        for memory in profile[:cap]
    ]
    dropped: list[Dropped] = list(rejected)
    dropped.extend(
        Dropped(m.id, DropReason.PROFILE_CUT_BY_CAP, similarity.get(m.id), m) for m in profile[cap:]
    )
    in_profile = {m.id for m in profile}

    scored: list[Ranked] = []
    for memory, sim in candidates:
        if memory.id in in_profile:
            continue
        if sim < threshold:
            dropped.append(
                Dropped(
                    memory.id,
                    DropReason.BELOW_THRESHOLD,
                    sim,
                    memory,
                    score(memory, sim, now, weights, discounts.get(memory.id, 0.0)),
                )
            )
            continue
        ranked = score(memory, sim, now, weights, discounts.get(memory.id, 0.0))
        scored.append(Ranked(memory, Section.RELEVANT, ranked))
    scored.sort(key=lambda r: (-r.score.total if r.score else 0.0, r.memory.id))
    room = max(0, cap - len(kept_profile))
    dropped.extend(
        Dropped(
            r.memory.id,
            DropReason.CUT_BY_CAP,
            r.score.similarity if r.score else None,
            r.memory,
            r.score,
        )
        for r in scored[room:]
    )
    return Selection(tuple(kept_profile), tuple(scored[:room]), tuple(dropped), threshold, cap)
