"""The merge rule's particulars (``domain.particulars``): two near wordings are merged without
a judgement only when neither states a number, date, time, amount, name, negation, kin or
liking word the other does not. Any pair that differs in one such token is never merged, and a
judge's joined wording that leaves out any one particular of either side never stands for
both (``domain.joining.says_both``)."""

from __future__ import annotations

from collections.abc import Collection

import pytest
from hypothesis import given
from hypothesis import strategies as st

from aria_mem.domain.hygiene import HygieneRule, different_content, is_repeat
from aria_mem.domain.joining import clash, says_both
from aria_mem.domain.models import Memory, MemoryType
from aria_mem.domain.particulars import particulars, unshared
from tests.factories import make_memory

RULE = HygieneRule(merge_similarity=0.7, conflict_similarity=0.55)


def _memory(text: str) -> Memory:
    return make_memory(text, type=MemoryType.PROFILE_FACT)


LOOK_ALIKES = [
    ("The user has two cats.", "The user has three cats."),
    ("The user has 2 cats.", "The user has two dogs."),
    ("The user's flight is on Monday.", "The user's flight is on Friday."),
    ("The user's birthday is in March.", "The user's birthday is in May."),
    ("The user's dentist appointment is at 5pm.", "The user's dentist appointment is at 3pm."),
    ("The user runs 5 km every morning.", "The user runs 5 miles every morning."),
    ("The user's rent is $900.", "The user's rent is $950."),
    ("The user's sister loves pottery.", "The user's brother loves pottery."),
    ("Sam lives in Berlin.", "Sam lives in Lisbon."),
    ("The user eats meat.", "The user doesn't eat meat."),
    ("The user likes jazz.", "The user hates jazz."),
    ("The user has a daughter, Saga.", "The user has a daughter."),
    ("The user's son is twelve.", "The user's son is 13."),
    ("The user goes swimming twice a week.", "The user goes swimming three times a week."),
    ("The user's friend number 1-2 plays chess.", "The user's friend number 2-1 plays chess."),
]


@pytest.mark.parametrize(("first", "second"), LOOK_ALIKES)
def test_look_alikes_are_never_merged(first: str, second: str) -> None:
    for a, b in ((first, second), (second, first)):
        assert different_content(a, b) is not None
        assert not is_repeat(a, _memory(b), 1.0, RULE)


SAME_FACTS = [
    ("The user has 2 cats.", "The user has two cats."),
    ("The user's rent is $900.", "The user's rent is 900 dollars."),
    ("The meeting is at 5pm.", "The meeting is at 17:00."),
    ("The user runs 5 km.", "The user runs 5 kilometres."),
    ("The user goes running every morning.", "Every morning the user goes for a run."),
    ("Visits Anna every weekend.", "The user visits Anna every weekend."),
    ("Anna's kids love Lego.", "Anna's children love Lego."),
    ("The user turned twenty-five on 3 June.", "The user turned 25 on June 3rd."),
]


@pytest.mark.parametrize(("first", "second"), SAME_FACTS)
def test_the_same_particulars_in_other_words_may_merge(first: str, second: str) -> None:
    assert unshared(first, second) == ()
    assert is_repeat(first, _memory(second), 0.96, RULE)


def test_each_kind_of_particular_is_read() -> None:
    found = {
        (p.kind, p.value)
        for p in particulars(
            "Twenty-five people came on the third Saturday of May at 7:30 pm; "
            "Anna's kids didn't love it and her mum hated the $12 tickets."
        )
    }
    assert {
        ("number", "25"),
        ("amount", "25 person"),
        ("number", "3"),
        ("date", "sat"),
        ("date", "month 5"),
        ("time", "19:30"),
        ("name", "anna"),
        ("kin", "child"),
        ("kin", "mother"),
        ("negation", "not"),
        ("liking", "likes"),
        ("liking", "dislikes"),
        ("amount", "12 dollar"),
    } <= found


def test_lower_case_words_that_look_like_dates_are_not_dates() -> None:
    assert not any(p.kind == "date" for p in particulars("She sat down and may come, we wed."))


BASE = [
    "The user",
    "has",
    "a",
    "garden",
    "and",
    "goes",
    "to",
    "the",
    "market",
    "with",
    "friends",
]
TOKENS = st.sampled_from(
    [
        "two", "3", "twelve", "twenty-one", "2nd", "$40", "5pm", "08:15", "Monday", "Fridays",
        "August", "Dec", "Anna", "Berlin", "Tesco", "not", "never", "don't", "no", "sister",
        "mum", "uncle", "husband", "likes", "hates", "loved", "dozen", "weekend",
    ]
)  # fmt: skip


@given(TOKENS, st.integers(min_value=0, max_value=len(BASE)), st.booleans())
def test_a_pair_that_differs_in_one_particular_is_never_merged(
    token: str, position: int, new_side: bool
) -> None:
    plain = " ".join(BASE) + "."
    marked = " ".join([*BASE[:position], token, *BASE[position:]]) + "."
    new, old = (marked, plain) if new_side else (plain, marked)
    assert different_content(new, old) is not None, (new, old)
    assert not is_repeat(new, _memory(old), 1.0, RULE)


@given(TOKENS, TOKENS, st.integers(min_value=0, max_value=len(BASE)))
def test_a_particular_changed_for_another_is_never_merged(
    first: str, second: str, position: int
) -> None:
    a = " ".join([*BASE[:position], first, *BASE[position:]]) + "."
    b = " ".join([*BASE[:position], second, *BASE[position:]]) + "."
    if particulars(a) == particulars(b):
        return  # the same particular in two spellings ("mum" and "mother" are one)
    assert not is_repeat(a, _memory(b), 1.0, RULE)


SLOTS = {
    "name": ("with {}", ["Maya", "Tesco", "Oslo"]),
    "amount": ("for {}", ["5 km", "$40", "two dogs"]),
    "weekday": ("every {}", ["Saturday", "Mondays", "weekend"]),
    "time": ("at {}", ["7am", "18:30"]),
    "month": ("in {}", ["March", "December"]),
    "kin": ("beside her {}", ["sister", "mum", "uncle"]),
    "liking": ("and {} it", ["loves", "hates"]),
}
"""One phrase per kind of particular, each with values to pick from; no two slots share a
particular, so leaving one slot out of a wording leaves out what it states."""
SIDES = st.sampled_from(["neither", "first", "second", "both"])


def _wording(phrases: dict[str, str], slots: Collection[str]) -> str:
    return " ".join(["The user swims", *(phrases[s] for s in phrases if s in slots)]) + "."


@given(
    st.fixed_dictionaries({s: st.tuples(SIDES, st.sampled_from(v)) for s, (_, v) in SLOTS.items()}),
    st.data(),
)
def test_a_joined_wording_missing_any_particular_of_either_side_never_stands_for_both(
    drawn: dict[str, tuple[str, str]], data: st.DataObject
) -> None:
    phrases = {slot: SLOTS[slot][0].format(value) for slot, (_, value) in drawn.items()}
    first = _wording(phrases, {s for s, (side, _) in drawn.items() if side in ("first", "both")})
    second = _wording(phrases, {s for s, (side, _) in drawn.items() if side in ("second", "both")})
    stated = [s for s, (side, _) in drawn.items() if side != "neither"]
    whole = _wording(phrases, stated)
    # the whole wording stands for both unless they each state a value of one kind
    assert says_both(whole, first, second) is not clash(first, second), (whole, first, second)
    if not stated:
        return
    left_out = data.draw(st.sampled_from(stated))
    short = _wording(phrases, set(stated) - {left_out})
    assert not says_both(short, first, second), (short, first, second)
