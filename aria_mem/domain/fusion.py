"""Step 7 of the trip, "Fusion": two candidate lists, one ranking: the nearest vectors
(step 4) and the best word matches (step 6), fused.

A calibrated blend rather than reciprocal rank fusion, because the ranking formula and its
similarity floor (docs/design.md) are written in cosine: RRF's scores are ranks, on which the
floor and the 0.65 weight would mean nothing. The fused relevance stays on the cosine scale:

    relevance = cosine + lexical_weight x words                      (words: 0..1)

``words`` is the word search's score: the share of the message's words the memory holds, each
weighed by how rare it is among the pair's memories (``domain.words.rarity``; 0 when no word
matches, 1 when it holds them all). So a memory that holds the one rare word of the message (a
name, a place) gains most, one that shares only a word many memories have gains little, and a
memory no word matches keeps exactly its cosine.

The lift is the same at any cosine: the words are evidence apart from the meaning, and on real
conversations (scripts/bench_real.py) adding them finds more answers than closing part of the
distance the cosine leaves (the noisy OR shipped before, which gave a loosely related memory
the most and a close one little): docs/retrieval.md has the figures.

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
    lexical_weight: float = 0.45
    """What a memory holding every word of the message adds to its cosine (in proportion for
    fewer, rarer words counting more). Measured through the whole pipeline on both real sets
    of scripts/bench_real.py and on ours (scripts/bench_quality.py; docs/performance.md):
    0.4 to 0.5 win on all four; 0.45 keeps the design's own example (a father's death above a
    pizza preference for "pizza night with my dad", where "pizza" is one of three rare words)
    with room."""
    lexical_candidates: int = 30
    """How many word matches PostgreSQL returns, beside the index's nearest vectors."""


DEFAULT_FUSION = FusionWeights()


@dataclass(frozen=True)
class LexicalHit:
    id: uuid.UUID
    score: float
    """The share of the message's rare words the memory holds, each weighed by its rarity
    among the pair's memories: 0..1."""
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


def relevance(similarity: float, lexical_score: float | None, weights: FusionWeights) -> float:
    words = weights.lexical_weight * (lexical_score or 0.0)
    if words <= 0:
        return similarity  # exactly the cosine
    return similarity + words


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
    scored: list[tuple[float, uuid.UUID, float, int | None, float | None]] = []
    for mid in dict.fromkeys([*dense_rank, *lexical_by_id]):
        similarity = cosine.get(mid)
        if similarity is None:
            continue
        lexical_rank, lexical_score = lexical_by_id.get(mid, (None, None))
        fused = relevance(similarity, lexical_score, weights)
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
