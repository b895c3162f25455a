"""The particulars of a fact: what two near wordings must share before one may stand for both.

A merge keeps one wording in prompts, so it may only join two texts when neither says something
the other does not. Without a judgement (a person's or a chat model's), two wordings are one
fact only if every particular of each is in the other:

- numbers, in digits or words ("two", "twenty-five", "2nd", "twice"), and what each one counts
  ("2 cats" is not "2 dogs"; "5 km" is not "5 miles"; "$20" is "20 dollars"); numbers written
  as one keep their order ("1-2" is not "2-1");
- dates and times: weekdays, months (named or abbreviated), clock times ("5pm" is "17:00");
- names: capitalised words (people, places, brands); one counts as shared when the other text
  has the same word in any case ("Visits Anna" and "visits Anna");
- negations ("not", "never", "no longer", "n't"), liking and disliking words, kin words ("sister",
  "mum" and "mother" are one).

Words are compared after folding case, plurals, possessives and number words. Anything else a
wording adds (an adjective, a synonym) is not a particular: a merge keeps both wordings in the
history, and the more informative one in prompts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from aria_mem.domain.words import STOP_WORDS

_UNITS = {
    "$": "dollar", "usd": "dollar", "buck": "dollar", "€": "euro", "eur": "euro",
    "£": "pound", "gbp": "pound", "¥": "yen", "km": "kilometre", "kilometer": "kilometre",
    "k": "thousand", "kg": "kilogram", "kilo": "kilogram", "lb": "pound", "lbs": "pound",
    "mi": "mile", "hr": "hour", "hrs": "hour", "min": "minute", "mins": "minute",
    "yr": "year", "yrs": "year", "m": "metre", "meter": "metre", "cm": "centimetre",
    "centimeter": "centimetre", "ft": "foot", "feet": "foot", "%": "percent",
    "children": "child", "people": "person", "men": "man", "women": "woman", "kids": "kid",
    "mice": "mouse", "teeth": "tooth", "geese": "goose",
}  # fmt: skip
"""Unit spellings and irregular plurals, folded to one word."""

_ONES = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19, "dozen": 12, "twice": 2, "thrice": 3, "both": 2,
    "first": 1, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8,
    "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12,
}  # fmt: skip
_TENS = {
    "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
    "eighty": 80, "ninety": 90,
}  # fmt: skip
_SCALES = {"hundred": 100, "thousand": 1000, "million": 1_000_000}

WEEKDAYS = {
    "monday": "mon", "mon": "mon", "tuesday": "tue", "tue": "tue", "tues": "tue",
    "wednesday": "wed", "wed": "wed", "thursday": "thu", "thu": "thu", "thurs": "thu",
    "friday": "fri", "fri": "fri", "saturday": "sat", "sat": "sat", "sunday": "sun",
    "sun": "sun", "weekend": "weekend", "weekday": "weekday",
}  # fmt: skip
MONTHS = {
    "january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4,
    "apr": 4, "may": 5, "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8,
    "september": 9, "sep": 9, "sept": 9, "october": 10, "oct": 10, "november": 11, "nov": 11,
    "december": 12, "dec": 12,
}  # fmt: skip
"""Abbreviations count only when capitalised ("Mar"), so "may" and "sat" as words do not."""

NEGATIONS = frozenset(
    {"not", "no", "never", "nor", "none", "nobody", "nothing", "nowhere", "without", "stopped",
     "quit", "cannot", "neither"}
)  # fmt: skip
"""Words that turn a statement around ("no longer eats meat", "isn't vegetarian")."""
LIKING = frozenset(
    {"like", "love", "enjoy", "adore", "fond", "favourite", "favorite", "prefer", "into"}
)
""""into" as in "really into ceramics": a liking, which "loves pottery" must also say."""
DISLIKING = frozenset({"dislike", "hate", "detest", "loathe", "despise"})
"""("can't stand" is a negation, which a liking on the other side does not match.)"""
KIN = {
    word: group
    for group, words in {
        "mother": "mother mom mum mama mommy mummy", "father": "father dad papa daddy",
        "sister": "sister sis", "brother": "brother bro", "son": "son", "daughter": "daughter",
        "wife": "wife", "husband": "husband",
        "partner": "partner boyfriend girlfriend fiance fiancee",
        "grandmother": "grandmother grandma granny nan nana",
        "grandfather": "grandfather grandpa granddad", "aunt": "aunt auntie", "uncle": "uncle",
        "cousin": "cousin", "niece": "niece", "nephew": "nephew",
        "grandchild": "grandchild grandson granddaughter", "child": "child kid",
        "parent": "parent", "sibling": "sibling", "twin": "twin",
        "roommate": "roommate flatmate housemate", "colleague": "colleague coworker",
        "boss": "boss manager", "friend": "friend", "neighbour": "neighbour neighbor",
        "classmate": "classmate", "pet": "pet",
    }.items()
    for word in words.split()
}  # fmt: skip
"""Who a fact is about, by relation: "daughter Saga plays the violin" is not "niece Ebba plays
the violin" however alike the sentences read."""

_CALENDAR = frozenset(WEEKDAYS) | frozenset(MONTHS)
_NOT_NAMES = frozenset(
    {"user", "i", "ok", "okay", "yes", "hey", "hi", "hello", "oh", "mr", "mrs", "ms", "dr"}
)
_TOKEN = re.compile(
    r"(?P<time>\b\d{1,2}(?::\d{2})?\s*(?:a\.?m\.?|p\.?m\.?)(?![a-z])|\b\d{1,2}:\d{2}\b)"
    r"|(?P<money>[$€£¥]\s?\d[\d,]*(?:\.\d+)?)"
    r"|(?P<number>\d[\d,]*(?:\.\d+)?(?:st|nd|rd|th|s)?)"
    r"|(?P<word>[A-Za-z\u00c0-\u024f]+(?:['\u2019][A-Za-z]+)?)"
    r"|(?P<symbol>[%])"
)
_SENTENCE_END = re.compile(r"[.!?]\s*$")
_NUMBER_RUN = re.compile(r"\d+(?:\s*[-/x\u2013]\s*\d+)+")
"""Numbers written as one ("1-2", "3/4", "2x4"): their order matters ("friend 1-2" is not
"friend 2-1")."""


@dataclass(frozen=True)
class Particular:
    kind: str
    """number, amount, date, time, name, negation, liking, kin."""
    value: str

    def __str__(self) -> str:
        return self.value


def _singular(word: str) -> str:
    if word in _UNITS:
        return _UNITS[word]
    if len(word) > 3 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith(("ses", "xes", "ches", "shes")):
        return word[:-2]
    if len(word) > 2 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def plain_quotes(text: str) -> str:
    """``text`` in lower case, a curly apostrophe read as a straight one ("Doesn\u2019t" is
    "doesn't"): how every rule here compares words."""
    return text.lower().replace("\u2019", "'")


def is_negation(raw: str, folded: str) -> bool:
    """Whether a word as ``tokens`` gives it (``raw``, ``folded``) negates: "not", "never",
    "no", "nobody", any "-n't"."""
    return folded in NEGATIONS or plain_quotes(raw).endswith("n't")


def _fold(word: str) -> str:
    """Case, possessive and plural folded ("Anna's" -> "anna", "Cats" -> "cat")."""
    lowered = plain_quotes(word)
    if lowered.endswith("'s"):
        lowered = lowered[:-2]
    lowered = lowered.split("'")[0]
    return _singular(lowered)


def _clock(text: str) -> str:
    spoken = text.lower().replace(".", "").replace(" ", "")
    hours, _, rest = spoken.partition(":")
    minutes = rest[:2] if rest else "00"
    hour = int("".join(ch for ch in hours if ch.isdigit()))
    if spoken.endswith("pm") and hour < 12:
        hour += 12
    if spoken.endswith("am") and hour == 12:
        hour = 0
    return f"{hour:02d}:{minutes}"


def tokens(text: str) -> list[tuple[str, str, str, bool]]:
    """(group, raw, folded, starts a sentence) for each token, numbers as digits (the
    denial rule reads them too: ``domain.denial``)."""
    found: list[tuple[str, str, str, bool]] = []
    sentence_start = True
    position = 0
    for match in _TOKEN.finditer(text):
        between = text[position : match.start()]
        if _SENTENCE_END.search(between) or "\n" in between:
            sentence_start = True
        position = match.end()
        group = match.lastgroup or "word"
        raw = match.group(0)
        if group == "time":
            found.append(("time", raw, _clock(raw), False))
        elif group == "money":
            symbol, amount = raw[0], raw[1:].strip().replace(",", "")
            found.append(("number", raw, amount, False))
            found.append(("word", symbol, _UNITS[symbol], False))
        elif group == "number":
            digits = re.sub(r"(st|nd|rd|th|s)$", "", raw).replace(",", "")
            found.append(("number", raw, digits, False))
        elif group == "symbol":
            found.append(("word", raw, _UNITS[raw], False))
        else:
            found.append(("word", raw, _fold(raw), sentence_start))
        sentence_start = False
    return _spoken_numbers(found)


def _spoken_numbers(pieces: list[tuple[str, str, str, bool]]) -> list[tuple[str, str, str, bool]]:
    """Number words joined into digits ("twenty-five" -> 25, "two hundred" -> 200)."""
    out: list[tuple[str, str, str, bool]] = []
    value: int | None = None
    raw: list[str] = []

    def flush() -> None:
        nonlocal value, raw
        if value is not None:
            out.append(("number", " ".join(raw), str(value), False))
        value, raw = None, []

    for piece in pieces:
        group, text = piece[0], piece[1]
        word = text.lower()
        if group == "word" and word in _ONES:
            if value is not None and value % 10 == 0 and value >= 20 and _ONES[word] < 10:
                value += _ONES[word]
            else:
                flush()
                value = _ONES[word]
            raw.append(text)
        elif group == "word" and word in _TENS:
            flush()
            value = _TENS[word]
            raw.append(text)
        elif group == "word" and word in _SCALES and value is not None:
            value *= _SCALES[word]
            raw.append(text)
        else:
            flush()
            out.append(piece)
    flush()
    return out


def particulars(text: str) -> frozenset[Particular]:
    """What ``text`` states that another wording of the same fact must state too."""
    pieces = tokens(text)
    found: set[Particular] = {
        Particular("number", re.sub(r"\s*[-/x\u2013]\s*", "-", run.group(0)))
        for run in _NUMBER_RUN.finditer(text)
    }
    for n, (group, raw, folded, starts_sentence) in enumerate(pieces):
        if group == "time":
            found.add(Particular("time", folded))
        elif group == "number":
            found.add(Particular("number", folded))
            counted = next(
                (
                    p[2]
                    for p in pieces[n + 1 : n + 3]
                    if p[0] == "word" and p[2] not in STOP_WORDS and p[2] not in _CALENDAR
                ),
                None,
            )
            if counted is not None:
                found.add(Particular("amount", f"{folded} {counted}"))
        elif folded in WEEKDAYS and (raw[0].isupper() or len(folded) > 3):
            found.add(Particular("date", WEEKDAYS[folded]))
        elif folded in MONTHS and (raw[0].isupper() or len(folded) > 4):
            found.add(Particular("date", f"month {MONTHS[folded]}"))
        elif is_negation(raw, folded):
            found.add(Particular("negation", "not"))
        elif folded in LIKING or raw.lower() in ("liked", "loved", "enjoyed", "adored"):
            found.add(Particular("liking", "likes"))
        elif folded in DISLIKING or raw.lower() in ("disliked", "hated", "detested"):
            found.add(Particular("liking", "dislikes"))
        elif folded in KIN:
            found.add(Particular("kin", KIN[folded]))
        elif (
            raw[0].isupper()
            and folded not in _NOT_NAMES
            and not (starts_sentence and folded in STOP_WORDS)
        ):
            found.add(Particular("name", folded))
    return frozenset(found)


def _words(text: str) -> frozenset[str]:
    return frozenset(p[2] for p in tokens(text) if p[0] == "word")


def unshared(first: str, second: str) -> tuple[Particular, ...]:
    """The particulars one text states and the other does not, sorted (empty: neither says
    anything the other does not). A name counts as shared when the other has the word at all,
    capitalised or not ("Visits Anna" / "visits Anna every week")."""
    first_has, second_has = particulars(first), particulars(second)
    first_words, second_words = _words(first), _words(second)

    def missing(
        mine: frozenset[Particular], theirs: frozenset[Particular], words: frozenset[str]
    ) -> set[Particular]:
        return {p for p in mine - theirs if not (p.kind == "name" and p.value in words)}

    gone = missing(first_has, second_has, second_words) | missing(
        second_has, first_has, first_words
    )
    return tuple(sorted(gone, key=lambda p: (p.kind, p.value)))
