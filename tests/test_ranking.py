"""The ranking rules at their boundaries: formula, recency, usage, threshold, caps, profile,
selection and the query."""

from __future__ import annotations

import math
import uuid
from collections.abc import Sequence
from datetime import timedelta
from typing import Any

import pytest

from aria_mem.domain.models import DropReason, Memory, MemoryStatus, MemoryType, Stage
from aria_mem.domain.profile import select_profile
from aria_mem.domain.query import MAX_MESSAGE_CHARS, build_query
from aria_mem.domain.ranking import DEFAULT_WEIGHTS, RankingWeights, last_touched, score
from aria_mem.domain.selection import Section, Selection, select
from aria_mem.domain.usability import unusable_reason
from tests.factories import NOW, make_memory

W = DEFAULT_WEIGHTS


def test_weights_are_the_designs_but_recency_and_sum_to_one_with_time() -> None:
    assert (W.similarity, W.importance, W.emotion, W.usage) == (0.65, 0.12, 0.08, 0.05)
    assert W.recency == 0.05  # the design's 0.10, halved on real conversations (issue 35)
    assert W.time == 0.10  # the time signal's, beside the design's five
    total = W.similarity + W.importance + W.emotion + W.recency + W.usage + W.time
    assert math.isclose(total, 1.05)


def test_score_is_the_weighted_sum() -> None:
    m = make_memory(
        importance=0.8, emotional_significance=0.5, use_count=4, updated_at=NOW - timedelta(days=45)
    )
    s = score(m, 0.7, NOW)
    expected = (
        0.65 * 0.7
        + 0.12 * 0.8
        + 0.08 * 0.5
        + 0.05 * 0.5 ** (45 / 365)
        + 0.05 * math.log(5) / math.log(21)
    )
    assert s.total == pytest.approx(expected)
    assert s.contributions["similarity"] == pytest.approx(0.455)


@pytest.mark.parametrize(("days", "expected"), [(0, 1.0), (365, 0.5), (730, 0.25), (-3, 1.0)])
def test_recency_halves_every_365_days(days: float, expected: float) -> None:
    assert W.recency_signal(days) == pytest.approx(expected)


def test_recency_counts_from_the_latest_change_use_or_confirmation() -> None:
    old = NOW - timedelta(days=1000)
    for latest in ("updated_at", "last_used_at", "last_confirmed_at"):
        fields: dict[str, Any] = {
            "updated_at": old,
            "last_used_at": old,
            "last_confirmed_at": old,
            latest: NOW - timedelta(days=365),
        }
        m = make_memory(**fields)
        assert last_touched(m) == NOW - timedelta(days=365)
        assert score(m, 0.5, NOW).recency == pytest.approx(0.5)


@pytest.mark.parametrize(
    ("uses", "expected"),
    [
        (0, 0.0),
        (1, math.log(2) / math.log(21)),
        (10, math.log(11) / math.log(21)),
        (20, 1.0),
        (21, 1.0),
        (500, 1.0),
    ],
)
def test_usage_saturates_after_20_uses(uses: int, expected: float) -> None:
    assert W.usage_signal(uses) == pytest.approx(expected)


def test_threshold_is_raised_early_in_a_relationship() -> None:
    assert W.threshold(0.45, Stage.EARLY) == pytest.approx(0.50)
    assert W.threshold(0.45, Stage.ESTABLISHED) == pytest.approx(0.45)
    assert W.threshold(0.45, Stage.CLOSE) == pytest.approx(0.45)


@pytest.mark.parametrize(
    ("stage", "cap"), [(Stage.EARLY, 7), (Stage.ESTABLISHED, 12), (Stage.CLOSE, 15)]
)
def test_caps(stage: Stage, cap: int) -> None:
    assert W.cap(stage) == cap


def test_early_cap_is_at_least_two() -> None:
    small = RankingWeights(max_memories=3)
    assert small.cap(Stage.EARLY) == 2
    assert RankingWeights(max_memories=1).cap(Stage.EARLY) == 2


def _sel(
    candidates: Sequence[tuple[Memory, float]],
    stage: Stage = Stage.ESTABLISHED,
    profile: Sequence[Memory] | None = None,
) -> Selection:
    return select(
        profile_pool=profile or [],
        candidates=candidates,
        stage=stage,
        min_similarity=0.45,
        now=NOW,
    )


def test_similarity_at_the_bar_is_kept_and_just_below_is_dropped() -> None:
    at, below = make_memory("at"), make_memory("below")
    result = _sel([(at, 0.45), (below, 0.4499)])
    assert [r.memory.id for r in result.relevant] == [at.id]
    assert [(d.memory_id, d.reason) for d in result.dropped] == [
        (below.id, DropReason.BELOW_THRESHOLD)
    ]
    early = _sel([(at, 0.45), (make_memory("bar"), 0.50)], stage=Stage.EARLY)
    assert [r.memory.text for r in early.relevant] == ["bar"]


def test_relevant_memories_are_ordered_by_score_not_similarity() -> None:
    plain = make_memory("pizza", importance=0.1)
    weighty = make_memory("father", importance=0.9, emotional_significance=0.95)
    result = _sel([(plain, 0.62), (weighty, 0.60)])
    assert [r.memory.text for r in result.relevant] == ["father", "pizza"]


def test_cap_counts_the_profile_and_cuts_the_lowest() -> None:
    profile = [make_memory(f"p{i}", pinned=True) for i in range(3)]
    candidates = [(make_memory(f"r{i}"), 0.9 - i * 0.01) for i in range(12)]
    result = _sel(candidates, profile=profile)
    assert len(result.profile) == 3 and len(result.relevant) == 9
    cut = [d for d in result.dropped if d.reason is DropReason.CUT_BY_CAP]
    assert [d.memory.text for d in cut if d.memory] == ["r9", "r10", "r11"]
    early = _sel(candidates, stage=Stage.EARLY, profile=profile)
    assert len(early.chosen) == 7


def test_profile_larger_than_the_cap_is_cut_too() -> None:
    profile = [make_memory(f"p{i}", pinned=True, importance=1 - i / 100) for i in range(9)]
    result = _sel([], stage=Stage.EARLY, profile=profile)
    assert [r.memory.text for r in result.profile] == [f"p{i}" for i in range(7)]
    assert {d.reason for d in result.dropped} == {DropReason.PROFILE_CUT_BY_CAP}


def test_a_memory_is_never_in_both_sections() -> None:
    allergy = make_memory("peanuts", type=MemoryType.PROFILE_FACT, importance=0.9)
    result = _sel([(allergy, 0.8), (make_memory("other"), 0.7)], profile=[allergy])
    ids = [r.memory.id for r in result.chosen]
    assert len(ids) == len(set(ids)) == 2
    assert result.profile[0].section is Section.PROFILE
    kept = result.profile[0].score
    assert kept is not None and kept.similarity == 0.8


def test_profile_is_pinned_plus_five_most_important_profile_facts_and_boundaries() -> None:
    pinned = make_memory("pinned episode", pinned=True, importance=0.1)
    facts = [
        make_memory(f"fact {i}", type=MemoryType.PROFILE_FACT, importance=0.95 - i * 0.02)
        for i in range(6)
    ]
    boundary = make_memory("boundary", type=MemoryType.BOUNDARY, importance=0.75)
    low = make_memory("just below", type=MemoryType.PROFILE_FACT, importance=0.7499)
    other_type = make_memory("preference", type=MemoryType.PREFERENCE, importance=0.99)
    chosen = select_profile([low, boundary, other_type, *facts, pinned])
    assert [m.text for m in chosen] == ["pinned episode", *(f"fact {i}" for i in range(5))]
    few = select_profile([boundary, low])
    assert [m.text for m in few] == ["boundary"]


def test_profile_ties_go_to_the_most_recent_then_the_id() -> None:
    older = make_memory(
        "older", type=MemoryType.BOUNDARY, importance=0.8, updated_at=NOW - timedelta(days=10)
    )
    newer = make_memory("newer", type=MemoryType.BOUNDARY, importance=0.8)
    a = make_memory(
        "a",
        type=MemoryType.BOUNDARY,
        importance=0.8,
        id=uuid.UUID(int=1),
        updated_at=NOW - timedelta(days=20),
    )
    b = make_memory(
        "b",
        type=MemoryType.BOUNDARY,
        importance=0.8,
        id=uuid.UUID(int=2),
        updated_at=NOW - timedelta(days=20),
    )
    assert [m.text for m in select_profile([b, older, a, newer])] == ["newer", "older", "a", "b"]


def test_unusable_reasons() -> None:
    assert unusable_reason(make_memory(status=MemoryStatus.ARCHIVED), Stage.CLOSE, NOW) is (
        DropReason.ARCHIVED
    )
    assert unusable_reason(make_memory(expires_at=NOW), Stage.CLOSE, NOW) is DropReason.EXPIRED
    assert (
        unusable_reason(make_memory(expires_at=NOW + timedelta(seconds=1)), Stage.CLOSE, NOW)
        is None
    )
    held = make_memory(held_until_stage=Stage.CLOSE)
    assert unusable_reason(held, Stage.ESTABLISHED, NOW) is DropReason.HELD
    assert unusable_reason(held, Stage.CLOSE, NOW) is None


def test_query_puts_the_previous_message_first_and_caps_each_at_1000() -> None:
    assert build_query("I need a gift", "My sister is getting married") == (
        "My sister is getting married\nI need a gift"
    )
    assert build_query("hello", None) == "hello" == build_query("hello", "   ")
    long_prev, long_cur = "p" * 1500, "c" * 1001
    query = build_query(long_cur, long_prev)
    assert query == "p" * MAX_MESSAGE_CHARS + "\n" + "c" * MAX_MESSAGE_CHARS
    assert build_query("c" * 1000) == "c" * 1000
