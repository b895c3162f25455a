"""What a negation denies: a word one wording denies that the other states ("doesn't eat meat"
/ "eats meat"), which no merge may join, whatever a judge says.

Read on ``domain.particulars``' tokens: the first word after a negation, past words that only
qualify it, compared by its sense (a liking, kin or calendar word by meaning, an irregular
verb form as its verb, any other word by a crude stem).
"""

from __future__ import annotations

from aria_mem.domain.particulars import (
    DISLIKING,
    KIN,
    LIKING,
    NEGATIONS,
    WEEKDAYS,
    is_negation,
    plain_quotes,
    tokens,
)
from aria_mem.domain.words import STOP_WORDS

_IRREGULAR = {
    form: base
    for base, forms in {
        "be": "be am is are was were been being", "have": "have has had having",
        "do": "do does did doing done", "get": "get gets got gotten getting",
        "go": "go goes went gone going", "eat": "eat ate eaten", "drink": "drink drank drunk",
        "see": "see saw seen", "make": "make made", "take": "take took taken", "run": "run ran",
        "buy": "buy bought", "come": "come came", "give": "give gave given", "meet": "meet met",
        "leave": "leave left", "keep": "keep kept", "sleep": "sleep slept", "feel": "feel felt",
        "drive": "drive drove driven", "ride": "ride rode ridden", "swim": "swim swam swum",
        "write": "write wrote written", "speak": "speak spoke spoken", "sing": "sing sang sung",
        "know": "know knew known", "think": "think thought", "teach": "teach taught",
        "bring": "bring brought", "win": "win won", "lose": "lose lost", "pay": "pay paid",
        "say": "say said", "tell": "tell told", "sell": "sell sold", "find": "find found",
        "fly": "fly flies flew flown", "spend": "spend spent", "wear": "wear wore worn",
    }.items()
    for form in forms.split()
}  # fmt: skip
"""Irregular verb forms and the verb they are: "went" is "go" ("never went back to Lagos" /
"goes back to Lagos every year"), "has" is "have" (which the plural folding would make "ha")."""

_NOT_DENIED = STOP_WORDS | frozenset(
    {"longer", "more", "any", "anymore", "ever", "even", "really", "always", "still", "yet",
     "be", "have", "do", "get", "very", "much", "all", "user", "at", "a", "the", "actually",
     "currently", "presently", "now", "truly", "quite", "exactly", "necessarily", "entirely",
     "totally", "fully", "completely", "particularly", "just", "usually", "normally", "often",
     "generally", "typically", "regularly", "able", "too", "once"}
)  # fmt: skip
"""Words between a negation and what it denies ("no longer eats meat", "has never been to
Spain", "doesn't actually have a dog", "doesn't currently drink coffee", "isn't able to
drive"), compared as ``_base`` reads them: every form of "be", "have", "do" and "get" ("hasn't
had a drink" denies "drink", not "have", which nearly every fact states)."""
_SKIPPED = _NOT_DENIED | NEGATIONS
_SCOPE = 6
"""How many words after a negation are read for what it denies."""

_ENDINGS = ("ing", "ed", "es", "s")


def _stem(word: str) -> str:
    """A crude stem, enough to see "eating", "eats" and "eat" as one word."""
    for ending in _ENDINGS:
        if word.endswith(ending) and len(word) - len(ending) >= 3:
            word = word[: -len(ending)]
            break
    if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "aeiouls":
        word = word[:-1]  # "stopp" -> "stop"
    return word[:-1] if len(word) > 3 and word.endswith("e") else word


def _base(raw: str, folded: str) -> str:
    """An irregular verb form read as its verb ("went" -> "go"), any other word as folded."""
    return _IRREGULAR.get(raw.lower(), folded)


def _sense(group: str, raw: str, folded: str) -> str:
    """A word as a denial compares it: a liking, kin or calendar word by what it means
    ("like" is "love", "mum" is "mother"), an irregular verb form as its verb ("went" is
    "go"), any other by its stem; a number as written."""
    if group != "word":
        return folded
    if folded in LIKING or raw.lower() in ("liked", "loved", "enjoyed", "adored"):
        return "<likes>"
    if folded in DISLIKING or raw.lower() in ("disliked", "hated", "detested"):
        return "<dislikes>"
    if folded in KIN:
        return f"<{KIN[folded]}>"
    if folded in WEEKDAYS:
        return f"<{WEEKDAYS[folded]}>"
    return _stem(_base(raw, folded))


def _owned(pieces: list[tuple[str, str, str, bool]], n: int) -> int:
    """How many words after the negation at ``n`` are a "nobody's" or "no one's" and what it
    owns: what is denied is what is said of that ("Nobody's jollof comes close to his
    mother's" denies "comes", not "jollof", which the other wording may state in praise)."""
    raw = plain_quotes(pieces[n][1])
    after = plain_quotes(pieces[n + 1][1]) if n + 1 < len(pieces) else ""
    if raw == "nobody's":
        return 1
    return 2 if raw == "no" and after == "one's" else 0


def _denied(text: str) -> tuple[set[str], set[str]]:
    """What ``text`` denies (the first word after each negation) and what it states (every
    word), each as ``_sense`` compares them."""
    pieces = tokens(text)
    denied: set[str] = set()
    stated: set[str] = set()
    for n, (group, raw, folded, _) in enumerate(pieces):
        stated.add(_sense(group, raw, folded))
        if not is_negation(raw, folded):
            continue
        start = n + 1 + _owned(pieces, n)
        for later_group, later_raw, later, _start in pieces[start : n + 1 + _SCOPE]:
            if (
                later_group == "word"
                and {later, later_raw.lower(), _base(later_raw, later)} & _SKIPPED
            ):
                continue
            denied.add(_sense(later_group, later_raw, later))
            break
    return denied, stated


def denial(first: str, second: str) -> str | None:
    """A word one wording denies that the other states without denying it ("is not on
    Monday" / "is on Monday": "monday"; "doesn't eat meat" / "eats meat": "eat"), or None. A
    negation about something the other does not mention ("never misses the Sunday call" /
    "phones every Sunday") is a way of saying it, not a denial."""
    first_denies, first_states = _denied(first)
    second_denies, second_states = _denied(second)
    for denies, states, also_denied in (
        (first_denies, second_states, second_denies),
        (second_denies, first_states, first_denies),
    ):
        for word in sorted(denies):
            if word in states and word not in also_denied:
                return word.strip("<>")
    return None
