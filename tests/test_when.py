"""Reading the days a text names, against a given clock: absolute dates, relative ones,
periods, none and nonsense; and the time signal they give a memory."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from aria_mem.domain.time_signal import Asked, TimeRule, asked, time_signal
from aria_mem.domain.when import Span, asks_when, event_dates, read_when

NOW = datetime(2024, 1, 10, 15, 0, tzinfo=UTC)
"""A Wednesday."""


def span(start: str, end: str | None = None) -> Span:
    return Span(date.fromisoformat(start), date.fromisoformat(end or start))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("We met on 31 Dec 2023.", span("2023-12-31")),
        ("December 31st, 2023 was the party", span("2023-12-31")),
        ("the 3rd of March", span("2023-03-03")),  # the latest 3 March by then
        ("Jan 5", span("2024-01-05")),
        ("2023-12-31", span("2023-12-31")),
        ("31.12.2023, 00:51", span("2023-12-31")),
        ("August 2023", span("2023-08-01", "2023-08-31")),
        ("late August 2023", span("2023-08-21", "2023-08-31")),
        ("back in 2022", span("2022-01-01", "2022-12-31")),
        ("in July 2023", span("2023-07-01", "2023-07-31")),
        ("in August of 2021", span("2021-08-01", "2021-08-31")),
        ("in May 5th", span("2023-05-05")),
    ],
)
def test_absolute_dates(text: str, expected: Span) -> None:
    assert read_when(text, NOW) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("what did I do today", span("2024-01-10")),
        ("yesterday was rough", span("2024-01-09")),
        ("last night I slept badly", span("2024-01-09")),
        ("this morning", span("2024-01-10")),
        ("see you tomorrow", span("2024-01-11")),
        ("a few days ago", span("2024-01-07")),
        ("3 days ago", span("2024-01-07")),
        ("two weeks ago", span("2023-12-24", "2023-12-30")),
        ("a couple of months ago", span("2023-11-01", "2023-11-30")),
        ("a year ago", span("2023-01-01", "2023-12-31")),
        ("last Saturday", span("2024-01-06")),
        ("on Wednesday", span("2024-01-10")),
        ("last Wednesday", span("2024-01-03")),
        ("next Friday", span("2024-01-12")),
        ("last week", span("2024-01-01", "2024-01-07")),
        ("this weekend", span("2024-01-13", "2024-01-14")),
        ("last month", span("2023-12-01", "2023-12-31")),
        ("next year", span("2025-01-01", "2025-12-31")),
    ],
)
def test_relative_expressions_count_from_the_clock(text: str, expected: Span) -> None:
    assert read_when(text, NOW) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("in August", span("2023-08-01", "2023-08-31")),  # the latest August by then
        ("in January", span("2024-01-01", "2024-01-31")),  # this one has begun
        ("early August", span("2023-08-01", "2023-08-10")),
        ("last summer", span("2023-06-01", "2023-08-31")),
        ("in the summer of 2021", span("2021-06-01", "2021-08-31")),
        ("this winter", span("2023-12-01", "2024-02-29")),  # a leap year's February
        ("next spring", span("2024-03-01", "2024-05-31")),
    ],
)
def test_periods(text: str, expected: Span) -> None:
    assert read_when(text, NOW) == expected


@pytest.mark.parametrize(
    "text",
    [
        "",
        "I had pasta with Sam",
        "I may come along",  # "may" the verb
        "they march on",
        "I sat on the bench in the sun",  # no abbreviated weekdays
        "it costs 12.50",
        "recently",
    ],
)
def test_no_date(text: str) -> None:
    assert read_when(text, NOW) is None


@pytest.mark.parametrize(
    "text", ["31 Feb 2023", "on 30 February", "99.99.2023", "2023-13-01", "the 45th of May"]
)
def test_nonsense_names_nothing(text: str) -> None:
    """An impossible date names no day, and not its month either."""
    assert read_when(text, NOW) is None


def test_the_first_expression_wins_and_an_impossible_one_is_skipped() -> None:
    assert read_when("in August, then last summer", NOW) == span("2023-08-01", "2023-08-31")
    assert read_when("on 31 Feb 2023, no: in August", NOW) == span("2023-08-01", "2023-08-31")


def test_asks_when() -> None:
    assert asks_when("When did Caroline go to the support group?")
    assert asks_when("what day was the race")
    assert asks_when("how long ago did we meet")
    assert not asks_when("What does Caroline like?")
    assert not asks_when("I know when to stop")


def test_event_dates_are_the_span_or_none() -> None:
    assert event_dates("Melanie ran a race last Saturday.", NOW) == (
        date(2024, 1, 6),
        date(2024, 1, 6),
    )
    assert event_dates("Melanie likes running.", NOW) == (None, None)


def test_what_a_message_asks() -> None:
    assert asked("what did I do two weeks ago?", NOW) == Asked(span("2023-12-24", "2023-12-30"))
    assert asked("when did we go hiking?", NOW) is None  # off by default
    assert asked("when did we go hiking?", NOW, TimeRule(dated_answers=True)) == Asked(when=True)
    assert asked("tell me about hiking", NOW) is None


def test_time_signal_uses_the_event_date_else_the_day_said() -> None:
    august = Asked(span("2023-08-01", "2023-08-31"))
    in_august = datetime(2023, 8, 14, 9, 0, tzinfo=UTC)
    in_october = datetime(2023, 10, 2, 9, 0, tzinfo=UTC)
    # said in August, names no date of its own
    assert time_signal(august, None, None, in_august) == 1.0
    # said in October about a day in August: its own date counts, not the day it was said
    assert time_signal(august, date(2023, 8, 20), date(2023, 8, 20), in_october) == 1.0
    # said in August about a day in June
    assert time_signal(august, date(2023, 6, 3), date(2023, 6, 3), in_august) == 0.0
    assert time_signal(august, None, None, in_october) == 0.0
    assert time_signal(None, None, None, in_august) == 0.0
    # a day either side still counts (time zones), two do not
    yesterday = Asked(span("2023-08-13"))
    assert time_signal(yesterday, None, None, in_august) == 1.0
    assert time_signal(yesterday, None, None, in_august + timedelta(days=1)) == 0.0
    # "when did ...": a memory whose text states a date
    when = Asked(when=True)
    assert time_signal(when, date(2023, 6, 3), date(2023, 6, 3), in_august) == 1.0
    assert time_signal(when, None, None, in_august) == 0.0


@given(
    st.dates(min_value=date(1990, 1, 1), max_value=date(2090, 12, 31)),
    st.sampled_from(
        [
            "today",
            "yesterday",
            "last week",
            "last month",
            "two weeks ago",
            "3 days ago",
            "last Saturday",
            "in August",
            "last summer",
            "a year ago",
            "the 29th of February",
        ]
    ),
)
def test_past_expressions_never_end_after_the_clock(day: date, phrase: str) -> None:
    """Whatever the day, a past expression names days that began by then, in order."""
    said = datetime(day.year, day.month, day.day, 12, tzinfo=UTC)
    found = read_when(f"I did it {phrase}", said)
    assert found is not None
    assert found.start <= found.end
    assert found.start <= day


@given(st.text(max_size=200), st.dates(min_value=date(1990, 1, 1), max_value=date(2090, 1, 1)))
def test_any_text_reads_without_error(text: str, day: date) -> None:
    found = read_when(text, day)
    assert found is None or found.start <= found.end
