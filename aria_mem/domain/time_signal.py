"""The time signal: a message that names a date or a period lifts the memories dated in it.

A memory is dated by the date its text names where it names one (read when it was written,
``domain.when``, and stored), else by the day it was said. The message's days are read against
the moment it is said (``search(..., now=...)``, default the real time), so "two weeks ago"
means the same days to the message and to a memory written two weeks ago about that day. The
signal is 1 or 0, weighted in the ranking formula (``RankingWeights.time``); cheap at query
time: one reading of the message, and two stored dates per candidate.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta

from aria_mem.domain.when import Span, asks_when, read_when


@dataclass(frozen=True, slots=True)
class Asked:
    """What a message asks of time: the days it names, or that it asks for a date."""

    span: Span | None = None
    when: bool = False
    """It asks for a date without naming one ("when did ..."): an answer states a date."""

    @property
    def explained(self) -> str:
        """For people (`search --explain`, the review page's why view)."""
        if self.span is None:
            return "the message asks for a date: the memories that state one are lifted"
        days = self.span.start.isoformat()
        if self.span.end != self.span.start:
            days += f" to {self.span.end.isoformat()}"
        return f"the message names {days}: the memories dated in it are lifted"


@dataclass(frozen=True, slots=True)
class TimeRule:
    """How a message's date lifts the memories dated in it (the weight is the ranking's)."""

    slack_days: int = 1
    """A day either side still counts: a message near midnight, a time zone apart."""
    dated_answers: bool = False
    """Whether a "when did ..." question lifts the memories whose text states a date."""


DEFAULT_TIME = TimeRule()


def asked(message: str, now: datetime, rule: TimeRule = DEFAULT_TIME) -> Asked | None:
    """What ``message``, said at ``now``, asks of time; None when it asks nothing of it."""
    span = read_when(message, now)
    if span is not None:
        return Asked(span)
    if rule.dated_answers and asks_when(message):
        return Asked(when=True)
    return None


def time_signal(
    question: Asked | None,
    event_from: date | None,
    event_until: date | None,
    said: datetime,
    rule: TimeRule = DEFAULT_TIME,
) -> float:
    """1 for a memory dated in the days the message names (its event's own date when its
    text stated one, else the day it was said), or, for a "when did ..." question, whose
    text states a date; else 0."""
    if question is None:
        return 0.0
    if question.span is None:
        return 1.0 if question.when and event_from is not None else 0.0
    if event_from is None or event_until is None:
        event_from = event_until = said.date()
    slack = timedelta(days=rule.slack_days)
    days = question.span
    return 1.0 if days.start - slack <= event_until and event_from - slack <= days.end else 0.0
