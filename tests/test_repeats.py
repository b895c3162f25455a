"""A candidate that mostly repeats one ranked above it is ranked lower (pure)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from aria_mem.domain.models import Stage
from aria_mem.domain.repeats import RepeatRule, find_repeats, overlap
from aria_mem.domain.selection import select
from aria_mem.domain.words import plain_words
from tests.factories import NOW, make_memory

MONDAY = "Sam's cousin phoned on Monday just to chat about the garden."
WEDNESDAY = "Sam's uncle phoned on Wednesday just to chat about the garden."
BROTHER = "Sam's older brother Lukas runs a small craft brewery outside Munich."


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


def test_the_answer_behind_two_near_repeats_moves_up_and_nothing_else_changes() -> None:
    monday, wednesday, brother = make_memory(MONDAY), make_memory(WEDNESDAY), make_memory(BROTHER)
    candidates = [(monday, 0.60), (wednesday, 0.59), (brother, 0.55)]

    def order(repeats: dict[object, float] | None) -> list[str]:
        selection = select(
            profile_pool=[],
            candidates=candidates,
            stage=Stage.ESTABLISHED,
            min_similarity=0.25,
            now=NOW,
            repeats=repeats,  # type: ignore[arg-type]
        )
        return [r.memory.text for r in selection.relevant]

    assert order(None) == [MONDAY, WEDNESDAY, BROTHER]
    found = find_repeats(candidates)
    assert order({mid: r.discount for mid, r in found.items()}) == [MONDAY, BROTHER, WEDNESDAY]


def test_the_bar_judges_the_relevance_not_the_discounted_similarity() -> None:
    first, again = make_memory(MONDAY), make_memory(MONDAY + " Again.")
    found = find_repeats([(first, 0.40), (again, 0.30)])
    assert found[again.id].discount == pytest.approx(0.5)  # every word of the first
    selection = select(
        profile_pool=[],
        candidates=[(first, 0.40), (again, 0.30)],
        stage=Stage.ESTABLISHED,
        min_similarity=0.25,
        now=NOW,
        repeats={again.id: found[again.id].discount},
    )
    assert [r.memory.id for r in selection.relevant] == [first.id, again.id]
    score = selection.relevant[1].score
    assert score is not None and score.similarity == 0.30 and score.repeat == 0.5
    assert score.contributions["similarity"] == 0.0  # never below nothing


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


WORDS = st.sampled_from(["garden", "phoned", "sam", "cousin", "brewery", "munich", "chat", "dog"])


@given(
    st.lists(
        st.tuples(st.lists(WORDS, min_size=1, max_size=6), st.floats(0.0, 1.0)),
        min_size=1,
        max_size=12,
    )
)
def test_discounts_stay_within_the_rule_and_spare_the_most_relevant(
    raw: list[tuple[list[str], float]],
) -> None:
    candidates = [(make_memory(" ".join(words)), r) for words, r in raw]
    rule = RepeatRule()
    found = find_repeats(candidates, rule)
    best = max(r for _, r in candidates)
    for memory, relevance in candidates:
        repeat = found.get(memory.id)
        if repeat is None:
            continue
        assert 0 < repeat.discount <= rule.weight * (1 - rule.overlap_bar) + 1e-9
        assert repeat.of != memory.id
        twin_words = next(plain_words(m.text) for m, _ in candidates if m.id == repeat.of)
        assert repeat.overlap == pytest.approx(overlap(plain_words(memory.text), twin_words))
        assert relevance < best or any(
            r == best and m.id != memory.id for m, r in candidates
        )  # the single most relevant memory is picked first, so it repeats nothing
