"""Which days a text names: "on 31 Dec 2023", "in August", "last summer", "two weeks ago".

Read once for each memory when its text is written (the span is stored, so a retrieval reads
no text for it), and once for each message, both against the moment the text was said: a
relative expression counts from there. English only; no language model. The rule:

- The first expression that names a date or a period wins; a text that names none, or only
  an impossible date (31 February), has no span.
- Absolute days: "31 Dec 2023", "December 31st, 2023", "the 31st of December", "2023-12-31",
  "31.12.2023"; a day without its year is the latest such day not after the moment said.
- Months and years: "in August" (the latest August that began by then), "August 2023",
  "in 2023", "early/mid/late August" (its thirds).
- Relative: today, tonight, this morning; yesterday, last night; tomorrow; "N days / weeks /
  months / years ago" (digits or words: a, a couple of, a few, two ... twelve); this / last /
  next week, weekend, month, year; "on Saturday" and "last Saturday" (the latest one before),
  "next Saturday"; seasons as the northern meteorological ones ("last summer": the latest
  summer that ended before; "this summer", "in the summer": the latest that began by then).
- A week ago means a span: its day plus or minus three days; "a month ago" is that month.

Separately, ``asks_when`` tells a question that asks for a date ("when did ...", "what day
...", "how long ago ...") without naming one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta

MONTHS = {
    name: number
    for number, names in enumerate(
        [
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ],
        1,
    )
    for name in names
}
"""A month said in a date; "may" and "march" only where a number, a year or a preposition
makes them one (no pattern takes a bare month name)."""
WEEKDAYS = {
    name: number
    for number, names in enumerate(
        [
            ("monday",),
            ("tuesday", "tues"),
            ("wednesday",),
            ("thursday", "thurs"),
            ("friday",),
            ("saturday",),
            ("sunday",),
        ]
    )
    for name in names
}
"""Whole names only: "sat", "sun" and "wed" are words of their own."""
SEASONS = {"spring": 3, "summer": 6, "autumn": 9, "fall": 9, "winter": 12}
"""The month each (northern, meteorological) season begins in; each lasts three months."""
NUMBERS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "a couple of": 2,
    "a couple": 2,
    "couple of": 2,
    "two": 2,
    "a few": 3,
    "few": 3,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
}
WEEK_FUZZ = 3
"""Days either side of "N weeks ago": people round to the week."""


@dataclass(frozen=True, slots=True)
class Span:
    """The days a text names, both ends included."""

    start: date
    end: date

    def overlaps(self, other: Span, slack_days: int = 0) -> bool:
        slack = timedelta(days=slack_days)
        return self.start - slack <= other.end and other.start - slack <= self.end

    def gap_days(self, other: Span) -> int:
        """Days between the two spans (0 when they overlap)."""
        if self.overlaps(other):
            return 0
        if self.end < other.start:
            return (other.start - self.end).days
        return (self.start - other.end).days


def day_span(day: date) -> Span:
    return Span(day, day)


_MONTH = "|".join(sorted(MONTHS, key=len, reverse=True))
_WEEKDAY = "|".join(sorted(WEEKDAYS, key=len, reverse=True))
_SEASON = "|".join(SEASONS)
_NUMBER = "|".join(sorted((re.escape(n) for n in NUMBERS), key=len, reverse=True))
_ORD = r"(?:st|nd|rd|th)?"
_YEAR = r"(?:19|20)\d\d"

_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("iso", re.compile(rf"\b(?P<y>{_YEAR})-(?P<m>\d\d?)-(?P<d>\d\d?)\b")),
    ("dotted", re.compile(rf"\b(?P<d>\d\d?)\.(?P<m>\d\d?)\.(?P<y>{_YEAR})\b")),
    (
        "day_month",
        re.compile(
            rf"\b(?:the\s+)?(?P<d>\d\d?){_ORD}(?:\s+of)?\s+(?P<mon>{_MONTH})\.?"
            rf"(?:,?\s+(?P<y>{_YEAR}))?\b",
            re.I,
        ),
    ),
    (
        "month_day",
        re.compile(
            rf"\b(?P<mon>{_MONTH})\.?\s+(?:the\s+)?(?P<d>\d\d?){_ORD}(?!\d)"
            rf"(?:,?\s+(?P<y>{_YEAR}))?\b",
            re.I,
        ),
    ),
    (
        "month_year",
        re.compile(
            rf"\b(?:(?P<part>early|mid|late)[\s-]+)?(?P<mon>{_MONTH})\.?,?\s+(?:of\s+)?"
            rf"(?P<y>{_YEAR})\b",
            re.I,
        ),
    ),
    (
        "month",
        re.compile(
            rf"\b(?:(?:in|during|since|until|by|of|through|throughout)\s+(?:the\s+)?"
            rf"(?:(?P<part>early|mid|late)[\s-]+)?|(?P<part2>early|mid|late)[\s-]+)"
            rf"(?P<mon>{_MONTH})\b(?!\.?,?\s+(?:of\s+)?{_YEAR}|\.?\s+(?:the\s+)?\d)",
            re.I,
        ),
    ),
    (
        "ago",
        re.compile(
            rf"\b(?P<n>\d{{1,3}}|{_NUMBER})\s+(?P<unit>day|week|month|year)s?\s+ago\b", re.I
        ),
    ),
    ("day_word", re.compile(r"\b(?P<w>today|tonight|yesterday|tomorrow)\b", re.I)),
    (
        "part_of_day",
        re.compile(r"\b(?P<which>this|last)\s+(?P<part>morning|afternoon|evening|night)\b", re.I),
    ),
    (
        "named_weekday",
        re.compile(rf"\b(?P<which>last|next|this|on|past)\s+(?P<wd>{_WEEKDAY})\b\.?", re.I),
    ),
    (
        "relative_period",
        re.compile(r"\b(?P<which>this|last|next|past)\s+(?P<unit>week|weekend|month|year)\b", re.I),
    ),
    (
        "season",
        re.compile(
            rf"\b(?:(?P<which>this|last|next|past)\s+|(?:in|during)\s+(?:the\s+)?)"
            rf"(?P<season>{_SEASON})\b(?:\s+(?:of\s+)?(?P<y>{_YEAR}))?",
            re.I,
        ),
    ),
    ("year", re.compile(rf"\b(?:in|during|since|of|back in)\s+(?P<y>{_YEAR})\b", re.I)),
]

_ASKS_WHEN = re.compile(
    r"\b(?:when\s+(?:did|was|were|is|does|do|will|had|has|have)"
    r"|what\s+(?:day|date|month|year|time of year)"
    r"|which\s+(?:day|date|month|year)"
    r"|how\s+long\s+ago)\b",
    re.I,
)


def event_dates(text: str, said: datetime) -> tuple[date | None, date | None]:
    """What a memory stores of its text's date: the first and last day it names."""
    span = read_when(text, said)
    return (span.start, span.end) if span else (None, None)


def asks_when(text: str) -> bool:
    """Whether a message asks for a date without naming one ("when did ...")."""
    return _ASKS_WHEN.search(text) is not None


def read_when(text: str, said: datetime | date) -> Span | None:
    """The days the first date or period in ``text`` names, counted from ``said``; None when
    it names none (or only an impossible date)."""
    today = said.date() if isinstance(said, datetime) else said
    found: list[tuple[int, Span]] = []
    impossible: list[tuple[int, int]] = []  # "31 Feb 2023" is not February 2023
    for kind, pattern in _PATTERNS:
        for match in pattern.finditer(text):
            if any(match.start() < end and start < match.end() for start, end in impossible):
                continue
            span = _span(kind, match, today)
            if span is None:
                impossible.append(match.span())
                continue
            found.append((match.start(), span))
            break
    if not found:
        return None
    return min(found, key=lambda f: f[0])[1]


def _span(kind: str, m: re.Match[str], today: date) -> Span | None:
    g = m.groupdict()
    try:
        if kind in ("iso", "dotted"):
            return day_span(date(int(g["y"]), int(g["m"]), int(g["d"])))
        if kind in ("day_month", "month_day"):
            month, day = MONTHS[g["mon"].lower()], int(g["d"])
            if g["y"]:
                return day_span(date(int(g["y"]), month, day))
            return day_span(_latest_day(month, day, today))
        if kind in ("month_year", "month"):
            month = MONTHS[g["mon"].lower()]
            year = int(g["y"]) if g.get("y") else _latest_year(month, today)
            return _part(_month(year, month), g.get("part") or g.get("part2"))
        if kind == "ago":
            return _ago(NUMBERS.get(g["n"].lower()) or int(g["n"]), g["unit"].lower(), today)
        if kind == "day_word":
            shift = {"today": 0, "tonight": 0, "yesterday": -1, "tomorrow": 1}[g["w"].lower()]
            return day_span(today + timedelta(days=shift))
        if kind == "part_of_day":
            last_night = g["which"].lower() == "last" and g["part"].lower() == "night"
            return day_span(today - timedelta(days=1 if last_night else 0))
        if kind == "named_weekday":
            return day_span(_weekday(WEEKDAYS[g["wd"].lower()], g["which"].lower(), today))
        if kind == "relative_period":
            return _period(g["which"].lower(), g["unit"].lower(), today)
        if kind == "season":
            return _season(SEASONS[g["season"].lower()], (g["which"] or "").lower(), g["y"], today)
        if kind == "year":
            year = int(g["y"])
            return Span(date(year, 1, 1), date(year, 12, 31))
    except (ValueError, OverflowError):
        return None  # an impossible date (31 February) names nothing
    return None


def _latest_day(month: int, day: int, today: date) -> date:
    """The latest ``day`` of ``month`` not after today (a day said without its year)."""
    for year in (today.year, today.year - 1, today.year - 2, today.year - 3, today.year - 4):
        try:
            candidate = date(year, month, day)
        except ValueError:
            continue  # 29 February outside a leap year
        if candidate <= today:
            return candidate
    raise ValueError("no such day")


def _latest_year(month: int, today: date) -> int:
    return today.year if month <= today.month else today.year - 1


def _month(year: int, month: int) -> Span:
    start = date(year, month, 1)
    following = date(year + month // 12, month % 12 + 1, 1)
    return Span(start, following - timedelta(days=1))


def _part(span: Span, part: str | None) -> Span:
    """Early, mid or late: the first, middle or last third of the span."""
    if not part:
        return span
    length = (span.end - span.start).days + 1
    third = length // 3
    index = {"early": 0, "mid": 1, "late": 2}[part.lower()]
    start = span.start + timedelta(days=third * index)
    end = span.end if index == 2 else start + timedelta(days=third - 1)
    return Span(start, end)


def _shift_months(day: date, months: int) -> tuple[int, int]:
    total = day.year * 12 + day.month - 1 + months
    return total // 12, total % 12 + 1


def _ago(n: int, unit: str, today: date) -> Span:
    if unit == "day":
        return day_span(today - timedelta(days=n))
    if unit == "week":
        centre = today - timedelta(weeks=n)
        return Span(centre - timedelta(days=WEEK_FUZZ), centre + timedelta(days=WEEK_FUZZ))
    if unit == "month":
        return _month(*_shift_months(today, -n))
    year = today.year - n
    return Span(date(year, 1, 1), date(year, 12, 31))


def _weekday(weekday: int, which: str, today: date) -> date:
    """On or last Saturday: the latest Saturday before today (today itself for "on" and
    "this"); "next Saturday": the first after today."""
    back = (today.weekday() - weekday) % 7
    if which == "next":
        return today + timedelta(days=(weekday - today.weekday()) % 7 or 7)
    if which in ("last", "past") and back == 0:
        back = 7
    return today - timedelta(days=back)


def _period(which: str, unit: str, today: date) -> Span:
    step = {"this": 0, "last": -1, "past": -1, "next": 1}[which]
    if unit in ("week", "weekend"):
        monday = today - timedelta(days=today.weekday()) + timedelta(weeks=step)
        if unit == "weekend":
            return Span(monday + timedelta(days=5), monday + timedelta(days=6))
        return Span(monday, monday + timedelta(days=6))
    if unit == "month":
        return _month(*_shift_months(today, step))
    year = today.year + step
    return Span(date(year, 1, 1), date(year, 12, 31))


def _season(first_month: int, which: str, year_text: str | None, today: date) -> Span:
    def season_of(year: int) -> Span:
        start = date(year, first_month, 1)
        end_year, end_month = _shift_months(start, 2)
        return Span(start, _month(end_year, end_month).end)

    if year_text:
        return season_of(int(year_text))
    latest = today.year if date(today.year, first_month, 1) <= today else today.year - 1
    if which in ("last", "past"):
        season = season_of(latest)
        return season if season.end < today else season_of(latest - 1)
    if which == "next":
        return season_of(latest + 1)
    if which == "this":
        current = season_of(latest)
        return current if current.end >= today else season_of(latest + 1)
    return season_of(latest)
