"""The fusion of the nearest vectors and the word matches (pure)."""

from __future__ import annotations

import uuid

import pytest
from hypothesis import given
from hypothesis import strategies as st

from aria_mem.domain.fusion import FusionWeights, LexicalHit, fuse, lexical_only

A, B, C, D = (uuid.UUID(int=i) for i in range(1, 5))


def test_a_memory_no_word_matches_keeps_exactly_its_cosine() -> None:
    fused = fuse([(A, 0.61), (B, 0.5)], [], {}, 30)
    assert [(m, e.relevance, e.similarity, e.dense_rank) for m, e in fused.items()] == [
        (A, 0.61, 0.61, 1),
        (B, 0.5, 0.5, 2),
    ]
    assert all(e.lexical_rank is None and e.lexical_score is None for e in fused.values())


def test_words_add_their_weighed_share_to_the_cosine() -> None:
    weights = FusionWeights(lexical_weight=0.4)
    fused = fuse([(A, 0.6), (B, 0.5)], [LexicalHit(B, 0.5), LexicalHit(A, 0.1)], {}, 30, weights)
    # The score is the share of the message's rare words the memory holds (0..1): no
    # normalising by the best match, so a weak best match lifts little.
    assert fused[B].relevance == pytest.approx(0.5 + 0.4 * 0.5)
    assert fused[A].relevance == pytest.approx(0.6 + 0.4 * 0.1)
    assert list(fused) == [B, A]
    assert (fused[B].fused_rank, fused[B].lexical_rank, fused[B].dense_rank) == (1, 1, 2)


def test_the_lift_is_the_same_at_any_cosine() -> None:
    loose = fuse([(A, 0.3)], [LexicalHit(A, 0.5)], {}, 30)[A].relevance - 0.3
    close = fuse([(A, 0.8)], [LexicalHit(A, 0.5)], {}, 30)[A].relevance - 0.8
    assert loose == pytest.approx(close) == pytest.approx(0.5 * FusionWeights().lexical_weight)


def test_a_word_only_match_needs_its_looked_up_cosine_and_never_passes_one() -> None:
    fused = fuse([(A, 0.5)], [LexicalHit(C, 0.3), LexicalHit(D, 0.2)], {C: 0.42}, 30)
    assert C in fused and D not in fused  # D has no vector under this model
    assert fused[C].dense_rank is None and fused[C].similarity == 0.42
    assert fused[C].relevance == pytest.approx(0.42 + 0.3 * FusionWeights().lexical_weight)


def test_only_the_best_candidates_by_relevance_are_kept() -> None:
    weights = FusionWeights(lexical_weight=0.2)
    fused = fuse([(A, 0.6), (B, 0.59), (C, 0.5)], [LexicalHit(C, 0.4)], {}, 2, weights)
    assert list(fused) == [A, B]  # C's lift (0.08) does not reach B
    fused = fuse([(A, 0.6), (B, 0.59), (C, 0.55)], [LexicalHit(C, 0.4)], {}, 2, weights)
    assert list(fused) == [C, A]  # 0.55 + 0.08 = 0.63


def test_lexical_only_lists_the_word_matches_the_vectors_missed_in_order() -> None:
    assert lexical_only(
        [(A, 0.5)], [LexicalHit(C, 0.3), LexicalHit(A, 0.2), LexicalHit(B, 0.1)]
    ) == [
        C,
        B,
    ]


@given(
    st.lists(st.floats(0, 1), min_size=1, max_size=20),
    st.lists(st.floats(0.001, 1), max_size=20),
)
def test_relevance_is_never_below_the_cosine_nor_above_it_plus_the_weight(
    cosines: list[float], scores: list[float]
) -> None:
    ids = [uuid.UUID(int=i + 1) for i in range(len(cosines))]
    lexical = [LexicalHit(i, s) for i, s in zip(ids, scores, strict=False)]
    fused = fuse(list(zip(ids, cosines, strict=True)), lexical, {}, 100)
    weight = FusionWeights().lexical_weight
    for e in fused.values():
        assert e.similarity is not None
        assert e.similarity <= e.relevance <= e.similarity + weight + 1e-9
    assert [e.fused_rank for e in fused.values()] == list(range(1, len(fused) + 1))
    relevances = [e.relevance for e in fused.values()]
    assert relevances == sorted(relevances, reverse=True)
