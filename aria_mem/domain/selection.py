"""Steps 9 and 10 of the trip, "Bar and repeat rule" then "Ranking": from the confirmed
candidates to the memories that go into a prompt.

Pure: it gets the usable memories (PostgreSQL has already had its say, step 8) and their
relevance, and returns what goes in and what was dropped, with the reason for each, so that
`search --explain` can show the whole decision. In order: the profile is chosen and cut to the
stage's cap; candidates below the similarity bar are dropped; the repeat rule
(``domain.repeats``) finds the near-repeats among the rest, the profile taken first; then each
candidate is scored once, its repeat discount included, ranked, and cut to the cap.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from aria_mem.domain.confirmation import Rejected
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
    memory: Memory | None = None
    score: Score | None = None
    unscored: float | None = None
    """The relevance of a candidate dropped before it was scored (refused by PostgreSQL, or
    a profile memory the cap cut); a scored one's is in its score."""

    @property
    def similarity(self) -> float | None:
        """The relevance the bar and the formula judged (None: not a candidate)."""
        return self.score.similarity if self.score is not None else self.unscored


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

    @property
    def repeats(self) -> dict[uuid.UUID, Repeat]:
        """The candidates ranked lower because they mostly repeat the profile or a more
        similar candidate (read from their scores, where the verdict is kept)."""
        scored = [(r.memory.id, r.score) for r in self.relevant]
        scored += [(d.memory_id, d.score) for d in self.dropped]
        return {mid: s.repeated for mid, s in scored if s is not None and s.repeated is not None}


def select(
    *,
    profile_pool: Sequence[Memory],
    candidates: Sequence[tuple[Memory, float]],
    stage: Stage,
    min_similarity: float,
    now: datetime,
    weights: RankingWeights = DEFAULT_WEIGHTS,
    rejected: Sequence[Rejected] = (),
    repeats: RepeatRule | None = None,
    question: Asked | None = None,
    time_rule: TimeRule = DEFAULT_TIME,
) -> Selection:
    """``profile_pool``: usable profile-eligible memories; ``candidates``: usable memories
    the index found, with their relevance; ``rejected``: what PostgreSQL already refused
    (listed first among the dropped); ``repeats``: the rule that ranks a candidate lower when
    it mostly repeats the profile or a more similar candidate (``domain.repeats``; None: not
    applied); ``question``: what the message asks of time (``domain.when``; None: nothing),
    which lifts the memories dated in the days it names."""
    threshold, cap = weights.threshold(min_similarity, stage), weights.cap(stage)
    similarity = {m.id: s for m, s in candidates}
    profile = select_profile(profile_pool)
    kept, in_profile = profile[:cap], {m.id for m in profile}
    # Step 9: the bar, then the repeat rule on what passes it, the profile taken first.
    contenders = [(m, s) for m, s in candidates if m.id not in in_profile]
    passed = [(m, s) for m, s in contenders if s >= threshold]
    found = find_repeats(passed, repeats, ahead=kept) if repeats is not None else {}

    # Step 10: every candidate scored once, its repeat discount included; ranked; capped.
    def score(memory: Memory, sim: float) -> Score:
        dated = 0.0
        if question is not None:
            dated = time_signal(
                question, memory.event_from, memory.event_until, memory.created_at, time_rule
            )
        return score_of(memory, sim, now, weights, found.get(memory.id), dated)

    kept_profile = [
        Ranked(m, Section.PROFILE, score(m, similarity[m.id]) if m.id in similarity else None)
        for m in kept
    ]
    dropped = [Dropped(r.memory_id, r.reason, r.memory, unscored=r.similarity) for r in rejected]
    dropped += [
        Dropped(m.id, DropReason.PROFILE_CUT_BY_CAP, m, unscored=similarity.get(m.id))
        for m in profile[cap:]
    ]
    scored: list[Ranked] = []
    for memory, sim in contenders:
        if sim < threshold:
            below = score(memory, sim)
            dropped.append(Dropped(memory.id, DropReason.BELOW_THRESHOLD, memory, below))
        else:
            scored.append(Ranked(memory, Section.RELEVANT, score(memory, sim)))
    scored.sort(key=lambda r: (-r.score.total if r.score else 0.0, r.memory.id))
    room = max(0, cap - len(kept_profile))
    dropped.extend(
        Dropped(r.memory.id, DropReason.CUT_BY_CAP, r.memory, r.score) for r in scored[room:]
    )
    return Selection(tuple(kept_profile), tuple(scored[:room]), tuple(dropped), threshold, cap)
