"""The ranking formula, with every weight and constant in one small class.

    score = 0.65 x similarity + 0.12 x importance + 0.08 x emotional significance
          + 0.05 x recency + 0.05 x usage + 0.10 x dated

dated = 1 for a memory dated in the days the message names ("in August", "two weeks ago";
``domain.time_signal``), else 0. The design's five weights are the seed's; the time weight
is this project's (docs/performance.md has the figures). All are ``[ranking]`` settings.
The seed's half-life was 90 days; 365 wins on both real conversation sets (LoCoMo's span
months, and a 90-day half-life put the first months' facts behind recent small talk) and
loses nothing on ours. The seed's recency weight was 0.10: with the words added to the cosine
(``domain.fusion``), 0.05 wins on both real sets and on ours (docs/performance.md).

recency = 0.5 ^ (age_days / 365), the age counted from the latest of the last change, the last
use and the last confirmation; usage = min(1, ln(1 + uses) / ln(21)), which flattens out after
about 20 uses so that favourites cannot take over.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime

from aria_mem.domain.models import Memory, Stage
from aria_mem.domain.repeats import Repeat


@dataclass(frozen=True)
class RankingWeights:
    similarity: float = 0.65
    importance: float = 0.12
    emotion: float = 0.08
    recency: float = 0.05
    usage: float = 0.05
    time: float = 0.10
    recency_half_life_days: float = 365.0
    usage_saturation: int = 20
    early_threshold_raise: float = 0.05
    max_candidates: int = 30
    max_memories: int = 12
    early_cap_factor: float = 0.6
    early_cap_minimum: int = 2
    close_cap_factor: float = 1.25

    def recency_signal(self, age_days: float) -> float:
        return float(0.5 ** (max(0.0, age_days) / self.recency_half_life_days))

    def usage_signal(self, uses: int) -> float:
        return min(1.0, math.log1p(max(0, uses)) / math.log1p(self.usage_saturation))

    def threshold(self, min_similarity: float, stage: Stage) -> float:
        """The similarity bar: raised early in a relationship."""
        raise_by = self.early_threshold_raise if stage is Stage.EARLY else 0.0
        return min_similarity + raise_by

    def cap(self, stage: Stage) -> int:
        """How many memories a prompt holds, profile included."""
        if stage is Stage.EARLY:
            return max(
                self.early_cap_minimum, math.floor(self.max_memories * self.early_cap_factor)
            )
        if stage is Stage.CLOSE:
            return math.floor(self.max_memories * self.close_cap_factor)
        return self.max_memories


DEFAULT_WEIGHTS = RankingWeights()
DEFAULT_MIN_SIMILARITY = 0.45
"""The similarity bar a candidate's relevance must reach, for models with the cosine scale of
mxbai-embed-large; smaller models get their own (``config.SUGGESTED_MIN_SIMILARITY``)."""


@dataclass(frozen=True)
class Score:
    """Every signal and its weighted contribution, for `search --explain`."""

    similarity: float
    importance: float
    emotion: float
    recency: float
    usage: float
    weights: RankingWeights
    repeated: Repeat | None = None
    """Set when the memory mostly repeats the profile or a more similar candidate
    (``domain.repeats``): its discount is taken off the similarity in the formula. The one
    place the repeat rule's verdict on a candidate is kept."""
    time: float = 0.0
    """1 when the message names a date or a period and the memory is dated in it
    (``domain.when``); 0 for most."""

    @property
    def repeat(self) -> float:
        """What the repeat rule took off the similarity (never more than it); 0 for most."""
        return self.repeated.discount if self.repeated is not None else 0.0

    @property
    def contributions(self) -> dict[str, float]:
        w = self.weights
        return {
            "similarity": w.similarity * max(0.0, self.similarity - self.repeat),
            "importance": w.importance * self.importance,
            "emotion": w.emotion * self.emotion,
            "recency": w.recency * self.recency,
            "usage": w.usage * self.usage,
            "time": w.time * self.time,
        }

    @property
    def total(self) -> float:
        return sum(self.contributions.values())


def last_touched(memory: Memory) -> datetime:
    """The latest of the last change, the last use and the last confirmation."""
    moments = [memory.updated_at, memory.last_used_at, memory.last_confirmed_at]
    return max(m for m in moments if m is not None)


def score(
    memory: Memory,
    similarity: float,
    now: datetime,
    weights: RankingWeights = DEFAULT_WEIGHTS,
    repeated: Repeat | None = None,
    time: float = 0.0,
) -> Score:
    age_days = (now - last_touched(memory)).total_seconds() / 86400
    return Score(
        similarity=similarity,
        importance=memory.importance,
        emotion=memory.emotional_significance,
        recency=weights.recency_signal(age_days),
        usage=weights.usage_signal(memory.use_count),
        weights=weights,
        repeated=repeated,
        time=time,
    )
