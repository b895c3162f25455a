"""When two wordings a judge calls one fact may become one text: the judged duplicate's rules,
free of I/O.

A duplicate where each wording states a particular the other does not is joined only into a
wording (the judge's) that states every particular of both (``says_both``), and never when the
two give different values of one kind (``clash``); one with a negation in one wording only is
kept as both wordings whole (``keeps_both``, ``both_wordings``) unless the negation may deny
what the other states. A merge never drops a fact.
"""

from __future__ import annotations

import re

from aria_mem.domain.denial import denial
from aria_mem.domain.hygiene import only_in
from aria_mem.domain.particulars import Particular, particulars, plain_quotes

CLASHING = {
    "number": "number", "amount": "number", "date": "date", "time": "time", "kin": "kin",
    "liking": "liking",
}  # fmt: skip
"""Particulars two wordings of one fact cannot each give differently: "two cats" and "three cats",
"on Monday" and "on Friday", "her brother" and "her sister", "loves dogs" and "hates dogs" are a
change or a contradiction whatever a judge says (a number and an amount are one kind: "two cats"
/ "4 hours"). A wording stating both would keep each value but lose which one is current: two
values that exclude each other are a person's question, not a merge. Particulars of different
kinds do not clash ("every Wednesday" / "at 7pm"), nor does a value with one it contains
(``CONTAINS``). A negation on one side only is never put in one wording of a judge's
(``one_sided_negation``: at most both wordings are kept whole, ``keeps_both``); on both, one
that denies what the other states (``denial``) is never joined. Names are not among them: "in
Gdańsk" and "in Poland" may well be one fact; a judge that calls "in Berlin" and "in Lisbon"
one and words it "in Berlin and Lisbon" is trusted (its confidence bar and the undo are what
stand behind it)."""


def _within(kind: str, broad: str, narrow: str) -> dict[Particular, frozenset[Particular]]:
    return {Particular(kind, broad): frozenset(Particular(kind, v) for v in narrow.split())}


CONTAINS = (
    _within("kin", "child", "son daughter")
    | _within("kin", "parent", "mother father")
    | _within("kin", "sibling", "sister brother")
)
"""A kin word and the kin words within it, which can both be true of one person: "her
daughter Lucía" / "Lucía, her only child". Each is kept in a joined wording, and neither
excludes the other, so a judged duplicate about one person the two name alike may be joined
(``clash``); "son" and "daughter" still clash. Not a partner and a wife: the partner words
include "girlfriend", and "girlfriend" / "wife" is more often a change than one fact. Nor
days: "works from home on weekdays" / "on Mondays", "at weekends" / "on Saturdays" is as
often a narrower habit as the same one (from a stranger's review), so it is asked."""


def _contained(first: Particular, second: Particular) -> bool:
    return first in CONTAINS.get(second, ()) or second in CONTAINS.get(first, ())


def clash(first: str, second: str) -> bool:
    """Whether the two wordings each state a different particular of one clashing kind, neither
    containing the other (``CONTAINS``) about one named person or place the two share."""
    mine, theirs = only_in(first, second), only_in(second, first)
    return any(
        CLASHING.get(p.kind) is not None
        and CLASHING.get(p.kind) == CLASHING.get(q.kind)
        and not (_contained(p, q) and _shared_name(first, second))
        for p in mine
        for q in theirs
    )


def _shared_name(first: str, second: str) -> bool:
    """Whether both wordings name one person or place: "her daughter Lucía" / "Lucía, her only
    child" are one fact; without a name, a narrower value ("lives with her parents" / "with her
    mother", "works from home on weekdays" / "on Mondays") is more often a change, so it is
    asked (from a stranger's review: a judge calling such a pair one fact merged it)."""
    names = {p for p in particulars(first) if p.kind == "name"}
    return any(p.kind == "name" and p in names for p in particulars(second))


_NEGATION = Particular("negation", "not")


def one_sided_negation(first: str, second: str) -> bool:
    """Whether one wording says something with a negation and the other without: a judge's
    one wording never stands for such a pair (``says_both``), as a sentence that drops or
    moves the negation turns the fact around; at most both are kept whole (``keeps_both``)."""
    return (_NEGATION in particulars(first)) != (_NEGATION in particulars(second))


_AFFIRMING = re.compile(
    r"\bnever (?:(?:once|ever|even|really|actually) )?(?:miss|misses|missed|skip|skips|skipped"
    r"|forget|forgets|forgot|fail|fails"
    r"|failed|stop|stops|stopped)\b"
    r"|\b(?:can't|cannot|can not|couldn't) (?:stop|wait)\b"
    r"|\b(?:can't|cannot|can not|couldn't) (?:get through|go|live|function|start)\b"
    r"(?: \S+){0,4}? without\b"
    r"|\bnever (?:gets?|got|grows?|grew) (?:old|tired)\b"
    r"|\bnever (?:takes?|took) (?:it|them) off\b"
    r"|\b(?:doesn't|does not|don't|do not|didn't|did not|won't|will not) (?:start|begin) until\b"
)
"""Negations that say a thing happens, without fail ("never misses the Sunday call", "can't
stop buying plants", "can't get through an afternoon without his fika", "never gets old"):
English idioms, not a fact turned around. A wording whose every negation is one of these may
keep both wordings whole with one without a negation (``keeps_both``); any other negation ("can't
stand her job", "has no pets", "isn't a big fan", "doesn't mind", "told no one") may turn the
fact around in a way ``denial`` cannot see, so the pair is asked (from a stranger's review: 8
of the project's 13 changes and look-alikes with a negation in one wording were otherwise kept
as one text had a judge wrongly called them one fact)."""


def affirms_only(text: str) -> bool:
    """Whether every negation in ``text`` is within one of the idioms that affirm
    (``_AFFIRMING``)."""
    folded = plain_quotes(text)
    if not _AFFIRMING.search(folded):
        return False
    return _NEGATION not in particulars(_AFFIRMING.sub(" always ", folded))


def keeps_both(first: str, second: str) -> bool:
    """Whether a pair a judge confidently calls one fact, with a negation in one wording only
    ("phones her dad every Sunday" / "never misses the Sunday call"), may be merged into a
    text of both wordings whole (``both_wordings``): the negation is an idiom that affirms
    (``affirms_only``), nothing it denies is stated by the other (``denial``: "doesn't actually
    have a dog" / "has a dog" is asked) and they state no two values of one kind (``clash``).
    Nothing is lost, a word of either included."""
    return (
        one_sided_negation(first, second)
        and _negated_affirms(first, second)
        and denial(first, second) is None
        and not clash(first, second)
    )


def _negated_affirms(first: str, second: str) -> bool:
    """Of a pair with a negation in one wording only, whether that wording's negations all
    affirm (``affirms_only``)."""
    return affirms_only(first if _NEGATION in particulars(first) else second)


def within(part: str, whole: str) -> bool:
    """Whether ``whole`` says ``part`` word for word (case and the punctuation around words
    aside: "6:30", "5.5" and "meat-free" stay words of their own), states every particular of
    it with no other value of one kind (``clash``), and nothing around it turns it round: a
    negation ``whole`` has is one that affirms (``keeps_both``) and denies nothing ``part``
    states. A repeat of a wording a memory already holds adds nothing to keep (before, each
    repeat was appended to a memory holding both wordings, from a stranger's review)."""
    words, among = _plain(part), _plain(whole)
    if not words or f" {words} " not in f" {among} ":
        return False
    if only_in(part, whole) or clash(part, whole) or denial(part, whole) is not None:
        return False
    return not one_sided_negation(part, whole) or _negated_affirms(part, whole)


def _plain(text: str) -> str:
    edges = "\"'()[]{}.,;:!?\u2026\u201c\u201d\u2018"
    words = (word.strip(edges) for word in plain_quotes(text).split())
    return " ".join(word for word in words if word)


def turned_round(first: str, second: str) -> str | None:
    """Why a judged duplicate not kept as both wordings (``keeps_both``) is asked as a conflict:
    one denies what the other states, or says it with a negation (one that may turn it round,
    or with two values of one kind); None when neither."""
    denied = denial(first, second)
    if denied:
        return f'one says the opposite of the other ("not {denied}" in one)'
    if not one_sided_negation(first, second):
        return None
    values = ", and each gives a value of one kind" if clash(first, second) else ""
    return f"one says it with a negation{values or ' that may turn it round'}"


_CLOSED = re.compile(r"[.!?\u2026][\"'\u201d\u2019)\]]*$")


def both_wordings(older: str, newer: str) -> str:
    """The two wordings whole, the older first, as one text (a full stop between when the
    older does not end a sentence): a merge that keeps every word of both."""
    first, second = older.strip(), newer.strip()
    stop = "" if _CLOSED.search(first) else "."
    return f"{first}{stop} {second}"


def says_both(merged: str, first: str, second: str) -> bool:
    """Whether one wording may stand for two a judge calls the same fact: it states every
    particular of both and none of its own, and they neither each state a different number,
    amount, day, time, kin or liking (``clash``) nor does one deny what the other states, or
    say it with a negation the other does not have."""
    if clash(first, second) or denial(first, second) or one_sided_negation(first, second):
        return False
    if only_in(first, merged) or only_in(second, merged):
        return False
    return not set(only_in(merged, first)) & set(only_in(merged, second))
