"""A judged duplicate with a negation in one wording only is kept as both wordings whole only
where the negation is an idiom that affirms ("never misses", "can't stop"); any other may turn
the fact around, so the pair is asked. A wording a memory holds already is no new wording."""

from __future__ import annotations

import pytest

from aria_mem.domain.denial import denial
from aria_mem.domain.joining import (
    affirms_only,
    both_wordings,
    keeps_both,
    one_sided_negation,
    turned_round,
    within,
)

SUNDAY = "The user phones her dad every Sunday."
NEVER = "She never misses the Sunday call."
NINE = "The user phones her dad on Sundays at 9am."


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("The user can't stand her job.", "The user loves her job."),
        ("The user has no pets.", "The user has a cat."),
        ("The user isn't a big fan of the cold.", "The user is a fan of the cold."),
        ("The user is allergic to nothing.", "The user is allergic to nuts."),
        ("The user told no one about the diagnosis.", "The user told her sister."),
        ("The user doesn't mind the commute.", "The user hates the commute."),
        ("The user never misses the match but doesn't like the team.", "The user likes the team."),
        ("The user doesn't actually have a dog.", "The user has a dog."),
    ],
)
def test_a_negation_that_may_turn_the_fact_around_is_asked(first: str, second: str) -> None:
    """From a stranger's review: each of these, wrongly judged one fact, was kept as one text."""
    assert not keeps_both(first, second) and not keeps_both(second, first)


@pytest.mark.parametrize(
    "negated",
    [
        NEVER,
        "User said he never skips his midweek game, whatever the weather.",
        "She can't stop buying plants.",
        "He can't get through an afternoon without his fika.",
        "The boat ride never gets old for her.",
        "His day doesn't start until he has had his mate.",
        "She wears the ring and never takes it off.",
    ],
)
def test_an_idiom_that_affirms_keeps_both_wordings(negated: str) -> None:
    assert affirms_only(negated)
    plain = "The user does it every day."
    assert keeps_both(plain, negated) and keeps_both(negated, plain)


def test_a_negation_typed_with_a_curly_apostrophe_is_a_negation() -> None:
    """Phones type "doesn\u2019t": it was read as no negation at all, so "doesn\u2019t eat meat"
    and "eats meat" differed in no particular."""
    curly = "The user doesn\u2019t eat meat."
    assert one_sided_negation(curly, "The user eats meat.")
    assert not keeps_both(curly, "The user eats meat.")
    assert denial(curly, "The user eats meat.") == "eat"
    assert affirms_only("His day doesn\u2019t start until he has had his mate.")


def test_a_wording_said_word_for_word_inside_another_is_within_it_unless_turned_round() -> None:
    both = both_wordings(SUNDAY, NEVER)
    assert within(SUNDAY, both) and within(NEVER, both) and within("the user PHONES her dad", both)
    assert not within("The user has a dog.", "It is not true that the user has a dog.")
    assert not within("The user has a dog.", "The user has a doghouse.")
    assert within("The user has a dog.", "The user has a dog and a cat.")
    assert not within("", both)


def test_the_question_says_why_a_duplicate_was_not_joined() -> None:
    assert turned_round("The user doesn't actually have a dog.", "The user has a dog.") == (
        'one says the opposite of the other ("not dog" in one)'
    )
    assert turned_round("The user can't stand her job.", "The user loves her job.") == (
        "one says it with a negation that may turn it round"
    )
    weekend = "The user never misses his weekend plunge into the sea."
    assert turned_round("The user swims in the sea on Saturdays.", weekend) == (
        "one says it with a negation, and each gives a value of one kind"
    )
    assert turned_round("The user swims.", "The user swims daily.") is None


@pytest.mark.parametrize(
    ("part", "whole"),
    [
        ("The user wakes up at 6.", "The user wakes up at 6.30."),
        ("The user wakes up at 6.", "The user wakes up at 6:30."),
        ("The user is 5.", "The user is 5.5 feet tall."),
        ("The user eats meat.", "The user eats meat-free meals."),
        ("skips the gym on Mondays", "The user never once skips the gym on Mondays."),
    ],
)
def test_a_wording_inside_another_with_another_value_or_turned_round_is_not_within_it(
    part: str, whole: str
) -> None:
    """From a second stranger's review: "6" read as said inside "6:30" merged a changed time
    away; "never once skips" was taken for an idiom that affirms."""
    assert not within(part, whole)


def test_never_once_is_read_past_to_what_it_denies() -> None:
    skips, never = "The user skips the gym on Mondays.", "The user never once skips the gym."
    assert denial(skips, never) is not None and not keeps_both(skips, never)
