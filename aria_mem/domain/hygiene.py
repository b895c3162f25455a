"""Keeping memory from turning into a junk drawer over months: the rules, free of I/O.

- A repeat: a new memory whose meaning matches a usable memory of the same user and companion
  (similarity at or above the model's merge bar) and whose words do not say something else
  (``different_content``: the other polarity, other numbers, other names) is merged into it.
- A likely conflict: the same kind of fact, near in meaning (the conflict bar), but saying
  something else. Without a judgement (explicit, or a chat model's) it only goes to the review
  queue; nothing is superseded silently.
- Stale: old, rarely or never used, unimportant memories that are not pinned, profile facts or
  boundaries may be retired (archived, which is reversible).
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum

from aria_mem.domain.models import Memory, MemoryStatus, MemoryType
from aria_mem.domain.words import STOP_WORDS


class EventKind(StrEnum):
    """What happened to a memory, as its history shows it."""

    MERGED = "merged"
    """A repeat was merged into it (``text``: the wording as it was said again)."""
    EDITED = "edited"
    """Its text was changed (``text``: the text before)."""
    SUPERSEDED = "superseded"
    """Replaced by ``other_id`` (it keeps its text and dates, and is never retrieved)."""
    REPLACES = "replaces"
    """It replaced ``other_id``."""
    RESTORED = "restored"
    """Brought back after it was superseded or retired."""
    RETIRED = "retired"
    """Archived as stale by the daemon's hygiene pass."""
    KEPT = "kept"
    """A person rejected a proposal to retire it: it is not proposed again."""


@dataclass(frozen=True)
class MemoryEvent:
    memory_id: uuid.UUID
    kind: EventKind
    at: datetime
    other_id: uuid.UUID | None = None
    text: str | None = None
    detail: str = ""
    """Why: the rule or the judgement that did it."""


class ReviewKind(StrEnum):
    """What awaits a person's decision."""

    MERGE = "merge"
    """``other_id`` seems to say what ``memory_id`` says: accepting merges it in."""
    CONFLICT = "conflict"
    """``other_id`` (newer) seems to change what ``memory_id`` says: accepting supersedes it."""
    RETIRE = "retire"
    """``memory_id`` looks stale: accepting archives it."""


@dataclass(frozen=True)
class ReviewItem:
    id: uuid.UUID
    user_id: str
    companion_id: str
    kind: ReviewKind
    memory_id: uuid.UUID
    other_id: uuid.UUID | None
    reason: str
    created_at: datetime


@dataclass(frozen=True)
class HygieneRule:
    """The bars on one embedding model's scale (cosine similarity)."""

    merge_similarity: float = 0.9
    """At or above: the same fact said again, unless the words say otherwise."""
    conflict_similarity: float = 0.75
    """At or above (and below a merge): the same subject; a fact of the same kind that says
    something else is a likely conflict."""


SUGGESTED_RULES = {"all-MiniLM-L6-v2": HygieneRule(merge_similarity=0.7, conflict_similarity=0.55)}
"""Bars measured for a model on the hygiene data set's pairs (scripts/bench_hygiene.py):
paraphrased repeats against look-alikes, changed facts and unrelated facts of one person.
Models not listed get ``HygieneRule()``'s cautious bars (nearly identical wordings only)."""


def rule_for(
    model: str, merge_similarity: float = 0.0, conflict_similarity: float = 0.0
) -> HygieneRule:
    """The bars for ``model``: its suggested ones, or the cautious defaults; a bar given
    (not 0) replaces the suggested one."""
    rule = SUGGESTED_RULES.get(model, HygieneRule())
    return HygieneRule(
        merge_similarity or rule.merge_similarity,
        conflict_similarity or rule.conflict_similarity,
    )


_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_CAPITALISED = re.compile(r"\b[A-Z][a-z]+\b")
NEGATIONS = frozenset({"not", "no", "never", "nor", "none", "without", "stopped", "quit", "cannot"})
"""Words that turn a statement around ("no longer eats meat", "isn't vegetarian")."""
LIKING = frozenset({"like", "likes", "liked", "love", "loves", "loved", "enjoy", "enjoys",
                    "adore", "adores", "fond"})  # fmt: skip
DISLIKING = frozenset({"dislike", "dislikes", "disliked", "hate", "hates", "hated", "detest",
                       "detests", "loathe", "loathes"})  # fmt: skip
KIN = {
    word: group
    for group, words in {
        "mother": "mother mom mum mama", "father": "father dad papa", "sister": "sister",
        "brother": "brother", "son": "son", "daughter": "daughter", "wife": "wife",
        "husband": "husband", "partner": "partner boyfriend girlfriend fiance fiancee",
        "grandmother": "grandmother grandma granny nan", "grandfather": "grandfather grandpa",
        "aunt": "aunt", "uncle": "uncle", "cousin": "cousin", "niece": "niece",
        "nephew": "nephew", "grandchild": "grandchild grandson granddaughter",
        "roommate": "roommate flatmate housemate", "colleague": "colleague coworker",
        "boss": "boss manager", "friend": "friend", "neighbour": "neighbour neighbor",
        "classmate": "classmate",
    }.items()
    for word in words.split()
}  # fmt: skip
"""Who a fact is about, by relation: "daughter Saga plays the violin" is not "niece Ebba
plays the violin" however alike the sentences read."""
_NOT_NAMES = frozenset(
    [
        "The",
        "User",
        "They",
        "Their",
        "She",
        "He",
        "Her",
        "His",
        "It",
        "We",
        "Our",
        "My",
        "After",
        "Before",
        "When",
        "Since",
        "Last",
        "Next",
        "Today",
        "Yesterday",
        "This",
        "That",
        "These",
        "Those",
        "Recently",
        "Now",
        "Also",
        "And",
        "But",
        "So",
        "Then",
        "Every",
        "On",
        "In",
        "At",
        "For",
        "From",
        "During",
        "Once",
        "Lately",
        "Still",
        "Monday",
        "Tuesday",
        "Wednesday",
        "Thursday",
        "Friday",
        "Saturday",
        "Sunday",
        "Mondays",
        "Tuesdays",
        "Wednesdays",
        "Thursdays",
        "Fridays",
        "Saturdays",
        "Sundays",
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December",
    ]
)
_ADJECTIVE_ENDINGS = ("ian", "ish", "ese", "ic", "an")
"""Capitalised adjectives of a people or place ("Canadian", "Nordic"): not names."""


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower().replace("\u2019", "'"))


def negated(text: str) -> bool:
    """Does the statement carry a negation ("not", "no longer", "never", "n't")?"""
    return any(w in NEGATIONS or w.endswith("n't") for w in _words(text))


def sentiment(text: str) -> int:
    """+1 when it says the user likes something, -1 dislikes ("hates", "doesn't like",
    "can't stand"), 0 when it says neither."""
    words = _words(text)
    if any(w in DISLIKING for w in words) or "can't stand" in " ".join(words):
        return -1
    if any(w in LIKING for w in words):
        return -1 if negated(text) else 1
    return 0


def kin(text: str) -> frozenset[str]:
    return frozenset(KIN[w] for w in _words(text) if w in KIN)


def numbers(text: str) -> tuple[str, ...]:
    """The numbers it gives, in order ("friend 1-2" is not "friend 2-1")."""
    return tuple(w for w in re.findall(r"\d+", text))


def names(text: str, *, sentence_starts: bool = True) -> frozenset[str]:
    """Capitalised words (people, places, brands); a sentence's first word only when it is not
    a common word ("The", "After", "She") and, without ``sentence_starts``, only when it is
    capitalised elsewhere too ("Visits Anna" names Anna alone); days, months and adjectives
    of a people left out."""
    found: set[str] = set()
    starts: set[str] = set()
    for sentence in _SENTENCE.split(text.strip()):
        words = _CAPITALISED.findall(sentence)
        if words and sentence.startswith(words[0]):
            if words[0].lower() in STOP_WORDS:
                words = words[1:]
            elif not sentence_starts:
                starts.add(words[0])
                words = words[1:]
        found.update(w for w in words if not w.endswith(_ADJECTIVE_ENDINGS))
    found.update(w for w in starts if w in found)
    return frozenset(found - _NOT_NAMES)


def overlap(first: str, second: str) -> float:
    """Shared content words over all of them (stop words left out): how alike the wordings
    are, as opposed to how alike the meanings are."""
    a = {w for w in _words(first) if w not in STOP_WORDS}
    b = {w for w in _words(second) if w not in STOP_WORDS}
    return len(a & b) / len(a | b) if a | b else 1.0


SAME_TEMPLATE = 0.35
"""At or above this word overlap, two wordings are one sentence with a part changed, and a
negation only one of them has is what changed ("eats meat" / "no longer eats meat"). Below
it the wordings differ anyway: "never misses the Sunday call" is no opposite of "calls every
Sunday"."""


def different_content(first: str, second: str) -> str | None:
    """Why two near wordings say different things (None: nothing in their words says so)."""
    if sentiment(first) * sentiment(second) < 0:
        return "one likes what the other dislikes"
    first_kin, second_kin = kin(first), kin(second)
    if first_kin and second_kin and not first_kin & second_kin:
        return "they are about different people"
    first_names = names(first, sentence_starts=False)
    second_names = names(second, sentence_starts=False)
    if first_names - second_names and second_names - first_names:
        return "they name different people or places"  # Sam in Berlin, Sam in Lisbon
    if numbers(first) and numbers(second) and numbers(first) != numbers(second):
        return "they give different numbers"
    if overlap(first, second) >= SAME_TEMPLATE and negated(first) != negated(second):
        return "one says the opposite of the other"
    return None


def is_repeat(new_text: str, old: Memory, similarity: float, rule: HygieneRule) -> bool:
    return similarity >= rule.merge_similarity and different_content(new_text, old.text) is None


LIKELY_REPEAT_MARGIN = 0.1
"""Below the merge bar by at most this much, a repeat is only likely: a person decides."""


def is_likely_repeat(new_text: str, old: Memory, similarity: float, rule: HygieneRule) -> bool:
    return (
        rule.merge_similarity - LIKELY_REPEAT_MARGIN <= similarity < rule.merge_similarity
        and different_content(new_text, old.text) is None
    )


def is_likely_conflict(
    new_text: str, new_type: MemoryType, old: Memory, similarity: float, rule: HygieneRule
) -> str | None:
    """Why the new fact may change ``old`` (None: it does not look like it)."""
    if old.type is not new_type or similarity < rule.conflict_similarity:
        return None
    if is_repeat(new_text, old, similarity, rule):
        return None
    why = different_content(new_text, old.text) or "it says something else about it"
    return f"same kind of fact, near in meaning ({similarity:.2f}), but {why}"


def more_informative(first: str, second: str) -> str:
    """The wording to keep: more distinct words, then the longer, then the first."""
    first_words, second_words = set(_words(first)), set(_words(second))
    if len(second_words) != len(first_words):
        return second if len(second_words) > len(first_words) else first
    return second if len(second) > len(first) else first


@dataclass(frozen=True)
class RetirementRule:
    older_than: timedelta = timedelta(days=180)
    """Neither created, confirmed nor used within this long."""
    max_importance: float = 0.3
    max_uses: int = 1


NEVER_RETIRED = frozenset({MemoryType.PROFILE_FACT, MemoryType.BOUNDARY})


def stale(memory: Memory, now: datetime, rule: RetirementRule) -> str | None:
    """Why ``memory`` may be retired (None: it stays)."""
    if memory.status is not MemoryStatus.ACTIVE or memory.pinned:
        return None
    if memory.type in NEVER_RETIRED or memory.importance > rule.max_importance:
        return None
    if memory.use_count > rule.max_uses:
        return None
    last = max(t for t in (memory.created_at, memory.last_used_at, memory.last_confirmed_at) if t)
    if now - last < rule.older_than:
        return None
    uses = "never used" if memory.use_count == 0 else f"used {memory.use_count} time(s)"
    return f"{uses}, importance {memory.importance:.2f}, untouched for {(now - last).days} days"
