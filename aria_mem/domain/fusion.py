"""Step 7 of the trip, "Fusion": two candidate lists, one ranking: the nearest vectors
(step 4) and the best word matches (step 6), fused.

A calibrated blend rather than reciprocal rank fusion, because the ranking formula and its
similarity floor (docs/design.md) are written in cosine: RRF's scores are ranks, on which the
0.45 floor and the 0.65 weight would mean nothing. The fused relevance stays on the cosine scale:

    words     = lexical_weight x lexical / best lexical of this message      (0..0.17)
    relevance = 1 - (1 - cosine) x (1 - words)

a noisy OR of the two kinds of evidence: the words close part of the distance the cosine
leaves, so they lift a loosely related memory (cosine 0.3, the best word match: +0.119) more
than a close one (cosine 0.8: +0.034), and a word match overtakes only memories that are
barely nearer in meaning. ``lexical`` is PostgreSQL's ts_rank_cd score (0 when no word
matches): the best word match of the message gets the whole weight, the others in proportion
(more of the message's words, closer together, count more).

A memory the words do not match keeps exactly its cosine, so the floor and the formula mean
for it what the design says. A lexical-only match (not among the nearest vectors) gets its real
cosine from the index, looked up for it alone, then its lift; one with no vector under the
current model (still pending) cannot be compared by meaning and is left out. Relevance is what
the ranking formula's "similarity" and the floor then see; `search --explain` shows the parts.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum

from aria_mem.domain.models import Memory


class CandidateSource(StrEnum):
    """Where candidates come from: ``fused`` (the default) or ``dense``, the nearest
    vectors alone, kept to compare against and as a way back."""

    FUSED = "fused"
    DENSE = "dense"


@dataclass(frozen=True)
class FusionWeights:
    lexical_weight: float = 0.17
    """The share of the distance the cosine leaves that the best word match closes.
    Measured with scripts/bench_quality.py on both its sets (hit@5 / hit@10, with the repeat
    rule of ``domain.repeats``): 0.10 gives personas 81.0 / 84.5 and observations 89.1 /
    95.3, 0.15 the same and 89.1 / 96.4, 0.2 81.0 / 82.1 and 90.2 / 95.9: from 0.18 on, word
    noise pushes paraphrased answers of personas out. 0.17 (with the 365-day recency
    half-life) wins on both real sets of scripts/bench_real.py and loses nothing on ours
    (docs/performance.md). Above about 0.22 the design's own example (a father's death
    outranking a pizza preference for "pizza night with my dad") turns over."""
    lexical_candidates: int = 30
    """How many word matches PostgreSQL returns, beside the index's nearest vectors."""


DEFAULT_FUSION = FusionWeights()


@dataclass(frozen=True)
class LexicalHit:
    id: uuid.UUID
    score: float
    """ts_rank_cd normalised to 0..1."""
    memory: Memory | None = None
    """The row, when the store read it with the match: the word search returns only usable
    memories of the pair, so a word-only candidate needs no second read to be validated."""


@dataclass(frozen=True)
class Evidence:
    """What each source said about one candidate, for the ranking and for `--explain`."""

    similarity: float | None
    """Cosine from the index; None when the memory has no vector under the current model."""
    dense_rank: int | None
    """1-based place among the nearest vectors (None: not among them)."""
    lexical_rank: int | None
    """1-based place among the word matches (None: not among them)."""
    lexical_score: float | None
    relevance: float
    """What the ranking formula and the floor see as the similarity."""
    fused_rank: int = 0
    """1-based place after fusion."""


def relevance(
    similarity: float, lexical_score: float | None, best_lexical: float, weights: FusionWeights
) -> float:
    share = (lexical_score or 0.0) / best_lexical if best_lexical > 0 else 0.0
    words = weights.lexical_weight * share
    if words <= 0:
        return similarity  # exactly the cosine, not a float's round trip through 1 - x
    return 1.0 - (1.0 - min(1.0, similarity)) * (1.0 - words)


def fuse(
    dense: Sequence[tuple[uuid.UUID, float]],
    lexical: Sequence[LexicalHit],
    looked_up: Mapping[uuid.UUID, float],
    limit: int,
    weights: FusionWeights = DEFAULT_FUSION,
) -> dict[uuid.UUID, Evidence]:
    """``dense``: the index's nearest (id, cosine), best first; ``lexical``: PostgreSQL's word
    matches, best first; ``looked_up``: the cosine of lexical-only matches that have a vector.
    Returns the best ``limit`` candidates by relevance, in order."""
    dense_rank = {mid: i for i, (mid, _) in enumerate(dense, 1)}
    cosine = {**looked_up, **dict(dense)}
    lexical_by_id = {h.id: (i, h.score) for i, h in enumerate(lexical, 1)}
    best_lexical = max((h.score for h in lexical), default=0.0)
    scored: list[tuple[float, uuid.UUID, float, int | None, float | None]] = []
    for mid in dict.fromkeys([*dense_rank, *lexical_by_id]):
        similarity = cosine.get(mid)
        if similarity is None:
            continue
        lexical_rank, lexical_score = lexical_by_id.get(mid, (None, None))
        fused = relevance(similarity, lexical_score, best_lexical, weights)
        scored.append((fused, mid, similarity, lexical_rank, lexical_score))
    scored.sort(key=lambda s: (-s[0], s[1]))  # a UUID orders as its text does
    return {
        mid: Evidence(similarity, dense_rank.get(mid), lexical_rank, lexical_score, fused, place)
        for place, (fused, mid, similarity, lexical_rank, lexical_score) in enumerate(
            scored[:limit], 1
        )
    }


def lexical_only(
    dense: Sequence[tuple[uuid.UUID, float]], lexical: Sequence[LexicalHit]
) -> list[uuid.UUID]:
    """The word matches the nearest vectors missed: their cosine must be looked up."""
    seen = {mid for mid, _ in dense}
    return [h.id for h in lexical if h.id not in seen]
