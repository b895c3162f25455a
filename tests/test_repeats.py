"""A candidate that mostly repeats the profile or a more similar candidate is ranked lower
(pure)."""

from __future__ import annotations

import uuid

import pytest
from hypothesis import given
from hypothesis import strategies as st

from aria_mem.domain.models import Memory, MemoryType, Stage
from aria_mem.domain.repeats import RepeatRule, find_repeats
from aria_mem.domain.selection import Selection, select
from aria_mem.domain.words import plain_words
from tests.factories import NOW, make_memory

MONDAY = "Sam's cousin phoned on Monday just to chat about the garden."
WEDNESDAY = "Sam's uncle phoned on Wednesday just to chat about the garden."
BROTHER = "Sam's older brother Lukas runs a small craft brewery outside Munich."


def overlap(a: frozenset[str], b: frozenset[str]) -> float:
    """The rule's overlap as its docstring defines it: the share of the smaller word set the
    other holds too (the module computes it with bit masks)."""
    if not a or not b:
        return 0.0
    return len(a & b) / min(len(a), len(b))


def _select(
    candidates: list[tuple[Memory, float]],
    rule: RepeatRule | None = RepeatRule(),
    profile: list[Memory] | None = None,
) -> Selection:
    return select(
        profile_pool=profile or [],
        candidates=candidates,
        stage=Stage.ESTABLISHED,
        min_similarity=0.25,
        now=NOW,
        repeats=rule,
    )


def test_overlap_is_the_share_of_the_shorter_memorys_words() -> None:
    short, long = plain_words("Sam phoned about the garden"), plain_words(WEDNESDAY)
    assert overlap(short, long) == pytest.approx(1.0)  # all four of its words
    assert overlap(plain_words(MONDAY), plain_words(WEDNESDAY)) == pytest.approx(6 / 8)
    assert overlap(plain_words(MONDAY), frozenset()) == 0.0


def test_a_near_repeat_pays_for_what_it_shares_beyond_the_bar_and_names_its_twin() -> None:
    monday, wednesday, brother = make_memory(MONDAY), make_memory(WEDNESDAY), make_memory(BROTHER)
    found = find_repeats([(monday, 0.60), (wednesday, 0.59), (brother, 0.55)])
    assert set(found) == {wednesday.id}
    assert found[wednesday.id].of == monday.id
    assert found[wednesday.id].overlap == pytest.approx(6 / 8)
    assert found[wednesday.id].discount == pytest.approx(6 / 8 - 0.5)


def test_the_answer_behind_a_near_repeat_moves_up_and_explain_matches_the_score() -> None:
    monday, wednesday, brother = make_memory(MONDAY), make_memory(WEDNESDAY), make_memory(BROTHER)
    candidates = [(monday, 0.60), (wednesday, 0.59), (brother, 0.55)]
    plain = _select(candidates, rule=None)
    assert [r.memory.text for r in plain.relevant] == [MONDAY, WEDNESDAY, BROTHER]
    assert plain.repeats == {}
    ruled = _select(candidates)
    assert [r.memory.text for r in ruled.relevant] == [MONDAY, BROTHER, WEDNESDAY]
    repeated = ruled.relevant[2].score
    assert repeated is not None
    assert repeated.similarity == 0.59  # what the bar judged
    assert repeated.repeat == pytest.approx(ruled.repeats[wednesday.id].discount)
    assert repeated.contributions["similarity"] == pytest.approx(0.65 * (0.59 - 0.25))
    assert repeated.total == pytest.approx(sum(repeated.contributions.values()))


def test_the_bar_judges_the_similarity_and_the_discount_never_goes_below_nothing() -> None:
    first, again = make_memory(MONDAY), make_memory(MONDAY + " Again.")
    selection = _select([(first, 0.40), (again, 0.30)])
    assert [r.memory.id for r in selection.relevant] == [first.id, again.id]
    assert selection.repeats[again.id].overlap == 1.0  # every word of the first
    assert selection.repeats[again.id].discount == pytest.approx(0.30)  # not 0.5
    score = selection.relevant[1].score
    assert score is not None and score.similarity == 0.30 and score.repeat == pytest.approx(0.30)
    assert score.contributions["similarity"] == pytest.approx(0.0)


def test_a_memory_below_the_bar_is_dropped_as_such_and_repeats_nothing() -> None:
    first, again = make_memory(MONDAY), make_memory(MONDAY + " Again.")
    selection = _select([(first, 0.40), (again, 0.20)])
    assert [r.memory.id for r in selection.relevant] == [first.id]
    assert [d.memory_id for d in selection.dropped] == [again.id]
    assert selection.repeats == {}


def test_the_profile_is_taken_first_and_never_discounted() -> None:
    fact = make_memory(
        "Sam is allergic to peanuts and carries an adrenaline pen everywhere.",
        type=MemoryType.PROFILE_FACT,
        importance=0.9,
    )
    copy = make_memory("Sam is allergic to peanuts and carries an adrenaline pen to work.")
    other = make_memory(BROTHER)
    # The copy is more similar to the message than the profile fact, yet it is the repeat.
    selection = _select([(copy, 0.7), (fact, 0.6), (other, 0.5)], profile=[fact])
    assert [r.memory.id for r in selection.profile] == [fact.id]
    assert set(selection.repeats) == {copy.id}
    assert selection.repeats[copy.id].of == fact.id
    assert [r.memory.id for r in selection.relevant] == [other.id, copy.id]


def test_a_short_fact_inside_a_longer_different_one_is_not_a_repeat() -> None:
    mum, own = (
        make_memory("Sam's mum's birthday is in May."),
        make_memory("Sam's birthday is in May."),
    )
    assert overlap(plain_words(own.text), plain_words(mum.text)) == 1.0  # all three words
    assert find_repeats([(mum, 0.6), (own, 0.55)]) == {}
    assert set(find_repeats([(mum, 0.6), (own, 0.55)], RepeatRule(min_shared=3))) == {own.id}


def test_distinct_memories_and_a_rule_turned_off_change_nothing() -> None:
    memories = [(make_memory(BROTHER), 0.6), (make_memory("Dev cycles everywhere."), 0.5)]
    assert find_repeats(memories) == {}
    twins = [(make_memory(MONDAY), 0.6), (make_memory(WEDNESDAY), 0.5)]
    assert find_repeats(twins, RepeatRule(weight=0)) == {}
    assert find_repeats(twins[:1]) == {}


def _greedy_by_hand(
    candidates: list[tuple[Memory, float]], rule: RepeatRule
) -> dict[uuid.UUID, tuple[uuid.UUID, float]]:
    """The rule as the docstring states it, the slow way: every round, every remaining
    candidate's discount from everything taken so far."""
    words = {m.id: plain_words(m.text) for m, _ in candidates}
    order = sorted(candidates, key=lambda c: (-c[1], c[0].id))
    remaining = list(range(len(order)))
    taken: list[uuid.UUID] = []
    found: dict[uuid.UUID, tuple[uuid.UUID, float]] = {}

    def closest(memory: Memory) -> tuple[float, uuid.UUID | None]:
        best: tuple[float, uuid.UUID | None] = (rule.overlap_bar, None)
        for other in taken:
            shared = len(words[memory.id] & words[other])
            share = overlap(words[memory.id], words[other])
            if shared >= rule.min_shared and share > best[0]:
                best = (share, other)
        return best

    def value(i: int) -> float:
        memory, similarity = order[i]
        share = closest(memory)[0]
        return similarity - min(similarity, rule.weight * (share - rule.overlap_bar))

    while remaining:
        pick = min(remaining, key=lambda i: (-value(i), i))
        remaining.remove(pick)
        memory, similarity = order[pick]
        twin = closest(memory)[1]
        if twin is not None and similarity - value(pick) > 0:
            found[memory.id] = (twin, similarity - value(pick))
        taken.append(memory.id)
    return found


WORDS = st.sampled_from(
    ["garden", "phoned", "sam", "cousin", "brewery", "munich", "chat", "dog", "monday", "tea"]
)


@given(
    st.lists(
        st.tuples(
            st.lists(WORDS, min_size=1, max_size=8),
            st.sampled_from([0.3, 0.4, 0.45, 0.5, 0.55, 0.6, 0.7]),
        ),
        min_size=1,
        max_size=10,
    ),
    st.sampled_from([0.3, 0.5]),
)
def test_the_quick_pick_is_the_greedy_pick_the_docstring_states(
    raw: list[tuple[list[str], float]], bar: float
) -> None:
    candidates = [(make_memory(" ".join(words)), similarity) for words, similarity in raw]
    rule = RepeatRule(overlap_bar=bar, min_shared=2)
    found = find_repeats(candidates, rule)
    expected = _greedy_by_hand(candidates, rule)
    assert {mid: (r.of, round(r.discount, 9)) for mid, r in found.items()} == {
        mid: (twin, round(discount, 9)) for mid, (twin, discount) in expected.items()
    }
