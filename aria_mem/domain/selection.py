"""From candidates to the memories that go into a prompt: threshold, ranking, profile and cap.

Pure: it gets the usable memories (PostgreSQL has already had its say) and their similarity,
and returns what goes in and what was dropped, with the reason for each, so that
`search --explain` can show the whole decision.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from enum import StrEnum

from aria_mem.domain.models import DropReason, Memory, Stage
from aria_mem.domain.profile import select_profile
from aria_mem.domain.ranking import DEFAULT_WEIGHTS, RankingWeights, Score
from aria_mem.domain.ranking import score as score_of
from aria_mem.domain.repeats import Repeat, RepeatRule, find_repeats
from aria_mem.domain.time_signal import DEFAULT_TIME, Asked, TimeRule, time_signal


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
    repeats: Mapping[uuid.UUID, Repeat] = field(default_factory=dict)
    """The candidates ranked lower because they mostly repeat the profile or a more similar
    candidate."""

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
    repeats: RepeatRule | None = None,
    question: Asked | None = None,
    time_rule: TimeRule = DEFAULT_TIME,
) -> Selection:
    """``profile_pool``: usable profile-eligible memories; ``candidates``: usable memories
    the index found, with their similarity; ``rejected``: what PostgreSQL already refused
    (listed first among the dropped); ``repeats``: the rule that ranks a candidate lower when
    it mostly repeats the profile or a more similar candidate (``domain.repeats``; None: not
    applied); ``question``: what the message asks of time (``domain.when``; None: nothing),
    which lifts the memories dated in the days it names."""
    threshold, cap = weights.threshold(min_similarity, stage), weights.cap(stage)
    similarity = {m.id: s for m, s in candidates}

    def score(memory: Memory, sim: float) -> Score:
        dated = 0.0
        if question is not None:
            dated = time_signal(
                question, memory.event_from, memory.event_until, memory.created_at, time_rule
            )
        return score_of(memory, sim, now, weights, time=dated)

    profile = select_profile(profile_pool)
    kept_profile = [
        Ranked(
            memory,
            Section.PROFILE,
            score(memory, similarity[memory.id]) if memory.id in similarity else None,
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
                    score(memory, sim),
                )
            )
            continue
        scored.append(Ranked(memory, Section.RELEVANT, score(memory, sim)))
    found = _repeats(scored, kept_profile, repeats)
    scored = [
        replace(r, score=replace(r.score, repeat=found[r.memory.id].discount))
        if r.memory.id in found and r.score is not None
        else r
        for r in scored
    ]
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
    return Selection(
        tuple(kept_profile), tuple(scored[:room]), tuple(dropped), threshold, cap, found
    )


def _repeats(
    scored: Sequence[Ranked],
    profile: Sequence[Ranked],
    rule: RepeatRule | None,
) -> dict[uuid.UUID, Repeat]:
    """The relevant candidates that mostly repeat the profile or a more similar candidate.
    Similarity, not the whole score, decides which of two near-repeats is the one to keep:
    by the score, a recent piece of small talk would make the older fact the message asks
    about its repeat."""
    if rule is None:
        return {}
    return find_repeats(
        [(r.memory, r.score.similarity) for r in scored if r.score],
        rule,
        ahead=[r.memory for r in profile],
    )
