"""Keeping memory from turning into a junk drawer over months: the rules, free of I/O.

- A repeat: a new memory whose meaning matches a usable memory of the same user and companion
  (similarity at or above the model's merge bar) and that states nothing the other does not,
  nor the other anything it does not (``different_content``: every number, date, time, amount,
  name, negation, kin and liking word of each is in the other) is merged into it. A merge
  never drops a fact: two near wordings that differ in one such particular are kept apart and
  a person is asked (the review queue).
- A likely conflict: the same kind of fact, near in meaning (the conflict bar), but saying
  something else. Without a judgement (explicit, or a chat model's) it only goes to the review
  queue; nothing is superseded silently.
- Stale: old, rarely or never used, unimportant memories that are not pinned, profile facts or
  boundaries may be retired (archived, which is reversible).
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from enum import StrEnum

from aria_mem.domain.denial import denial
from aria_mem.domain.models import Memory, MemoryStatus, MemoryType
from aria_mem.domain.particulars import Particular, particulars, plain_quotes, unshared


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


def other_of(item: ReviewItem, memory_id: uuid.UUID) -> uuid.UUID | None:
    """The memory ``item`` names besides ``memory_id`` (None for a retirement's)."""
    return item.other_id if item.memory_id == memory_id else item.memory_id


def last_said(memory: Memory) -> datetime:
    """When a memory's fact was last stated: written, or confirmed since (a repeat merged in)."""
    confirmed = memory.last_confirmed_at
    return max(memory.created_at, confirmed) if confirmed else memory.created_at


def confirmed_by_repeat(kept: Memory, repeat: Memory) -> datetime | None:
    """``kept``'s confirmation once a pass merges ``repeat`` into it: when the repeat was said,
    not when the pass ran; an older repeat confirms nothing (it keeps its own)."""
    said = last_said(repeat)
    return said if said > last_said(kept) else kept.last_confirmed_at


def _stated_last_second(holder: Memory, said_at: datetime, other: Memory) -> tuple[Memory, Memory]:
    said = {holder.id: said_at, other.id: last_said(other)}
    first, second = sorted((holder, other), key=lambda m: (said[m.id], m.id))
    return first, second


def asked_in_order(kind: ReviewKind, first: Memory, second: Memory) -> tuple[Memory, Memory]:
    """The two memories of a new question as the queue has them: a likely change with the
    memory stated last second (accepting it lets the latest statement win, whichever was
    written first); any other question as given."""
    if kind is not ReviewKind.CONFLICT:
        return first, second
    return _stated_last_second(first, last_said(first), second)


def moved_question(
    item: ReviewItem, holder: Memory, other: Memory | None, *, said_at: datetime, merged: bool
) -> ReviewItem | None:
    """An open question about a memory now ``merged`` into ``holder`` (or else superseded by
    it), whose fact was last stated ``said_at``: the question about ``holder`` and the
    item's other memory. A likely change is asked with the memory stated last second, as the
    queue has it (accepting it lets the latest statement win); a likely repeat with the one
    that says more first (accepting it merges the other into that one); a likely repeat of a
    fact since replaced is asked as a likely change. The reason says only that: it names and
    quotes neither the memory gone (forgetting that one must leave no trace of it here) nor
    a pair no longer asked about. None when nothing is left to ask: a retirement of what is
    no longer active, or a pair that is now one memory."""
    if item.kind is ReviewKind.RETIRE or other is None or other.id == holder.id:
        return None
    kind = item.kind if merged else ReviewKind.CONFLICT
    if kind is ReviewKind.MERGE:
        says_more = more_informative(holder.text, other.text) == holder.text
        first, second = (holder, other) if says_more else (other, holder)
    else:
        first, second = _stated_last_second(holder, said_at, other)
    how = "merged into" if merged else "replaced by"
    question = "the same fact, or a change of it?" if kind is ReviewKind.MERGE else "a change?"
    reason = f"asked first about a memory since {how} {str(holder.id)[:8]}: {question}"
    return replace(item, kind=kind, memory_id=first.id, other_id=second.id, reason=reason)


def reordered_question(
    item: ReviewItem, holder: Memory, other: Memory | None, *, said_at: datetime
) -> ReviewItem | None:
    """A likely change already asked about ``holder``, once ``holder`` was stated again (at
    ``said_at``: a repeat said, or merged in): the same question with the memory stated last
    second, so accepting it still lets the latest statement win; None when it is in that
    order already (or is no likely change)."""
    if item.kind is not ReviewKind.CONFLICT or other is None or other.id == holder.id:
        return None
    first, second = _stated_last_second(holder, said_at, other)
    if (item.memory_id, item.other_id) == (first.id, second.id):
        return None
    return replace(item, memory_id=first.id, other_id=second.id)


class Outcome(StrEnum):
    """What a consolidation pass did with a new memory."""

    MERGED = "merged"
    """``memory_id`` said what ``other_id`` says: merged into it (superseded by it, its wording
    kept in ``other_id``'s history). Usually the new one into the older; the older into the
    new one when the new wording says all it does and more."""
    SUPERSEDED = "superseded"
    """``memory_id`` (the new one) replaced ``other_id``."""
    REVIEW = "review"
    """A person is asked about the pair (unsure, a contradiction, or no chat model)."""


@dataclass(frozen=True)
class Consolidation:
    """One action of a consolidation pass, with why; undone at most once."""

    id: uuid.UUID
    user_id: str
    companion_id: str
    memory_id: uuid.UUID
    other_id: uuid.UUID | None
    outcome: Outcome
    reason: str
    at: datetime
    undone_at: datetime | None = None


@dataclass(frozen=True)
class HygieneRule:
    """The bars on one embedding model's scale (cosine similarity)."""

    merge_similarity: float = 0.9
    """At or above: the same fact said again, unless the words say otherwise."""
    conflict_similarity: float = 0.75
    """At or above (and below a merge): the same subject; a fact of the same kind that says
    something else is a likely conflict."""
    ask_similarity: float = 0.75
    """Without a judgement, the nearest older memory at or above this (and nothing nearer to
    ask about) is put to a person: it may be the same fact or its earlier value."""
    kind_similarity: float = 0.75
    """Without a judgement, the nearest older memory of the same type (the same kind of fact:
    a new job and the old one, a new partner and the break-up) at or above this is put to a
    person too, whatever else is asked."""


SUGGESTED_RULES = {
    "all-MiniLM-L6-v2": HygieneRule(
        merge_similarity=0.7, conflict_similarity=0.55, ask_similarity=0.4, kind_similarity=0.2
    )
}
"""Bars measured for a model on the hygiene data set's pairs (scripts/bench_hygiene.py):
paraphrased repeats against look-alikes, changed facts and unrelated facts of one person.
Models not listed get ``HygieneRule()``'s cautious bars (nearly identical wordings only)."""


def rule_for(
    model: str,
    merge_similarity: float = 0.0,
    conflict_similarity: float = 0.0,
    ask_similarity: float = 0.0,
) -> HygieneRule:
    """The bars for ``model``: its suggested ones, or the cautious defaults; a bar given
    (not 0) replaces the suggested one. The ask bar is at most the conflict bar unless given,
    and the same-type bar at most the ask bar."""
    rule = SUGGESTED_RULES.get(model, HygieneRule())
    merge = merge_similarity or rule.merge_similarity
    conflict = conflict_similarity or rule.conflict_similarity
    ask = ask_similarity or min(rule.ask_similarity, conflict)
    return HygieneRule(merge, conflict, ask, min(rule.kind_similarity, ask))


_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")

_WHY = {
    "liking": "one likes what the other dislikes, or says nothing of liking it",
    "kin": "they are about different people",
    "name": "they name different people or places",
    "number": "they give different numbers",
    "amount": "they count different things",
    "date": "they give different days or months",
    "time": "they give different times",
    "negation": "one says the opposite of the other",
}


def _words(text: str) -> list[str]:
    return _WORD.findall(plain_quotes(text))


def different_content(first: str, second: str) -> str | None:
    """Why two near wordings may say different things (None: every particular of each is in
    the other, ``domain.particulars``): a merge would lose what only one of them says."""
    gone = unshared(first, second)
    if not gone:
        denied = denial(first, second)
        return f'{_WHY["negation"]} ("not {denied}" in one)' if denied else None
    kinds = dict.fromkeys(p.kind for p in gone)
    named = ", ".join(f'"{p}"' for p in gone[:4]) + (", ..." if len(gone) > 4 else "")
    return f"{'; '.join(_WHY[k] for k in kinds)} ({named} in only one)"


UNJUDGED_MERGE = 0.95
"""Without a judgement, a repeat is merged only when it is this near as well (nearly the same
words), whatever the model's bar: at all-MiniLM-L6-v2's 0.70, 3 of 36 pairs of real chat
messages that are not repeats (a plan and its end, what another said) were merged though
they differ in no particular (scripts/hygiene_real_pairs.jsonl). Between the bar and this, a
person decides (a likely repeat), or a chat model in a consolidation pass."""


def is_repeat(new_text: str, old: Memory, similarity: float, rule: HygieneRule) -> bool:
    return (
        similarity >= max(rule.merge_similarity, UNJUDGED_MERGE)
        and different_content(new_text, old.text) is None
    )


LIKELY_REPEAT_MARGIN = 0.1
"""Below the merge bar by at most this much, a repeat is only likely: a person decides."""


def is_likely_repeat(new_text: str, old: Memory, similarity: float, rule: HygieneRule) -> bool:
    return (
        rule.merge_similarity - LIKELY_REPEAT_MARGIN
        <= similarity
        < max(rule.merge_similarity, UNJUDGED_MERGE)
        and different_content(new_text, old.text) is None
    )


def only_in(first: str, second: str) -> tuple[Particular, ...]:
    """The particulars ``first`` states and ``second`` does not."""
    mine = particulars(first)
    return tuple(p for p in unshared(first, second) if p in mine)


def is_likely_conflict(
    new_text: str, new_type: MemoryType, old: Memory, similarity: float, rule: HygieneRule
) -> str | None:
    """Why the new fact may change ``old`` (None: it does not look like it): a fact of the same
    kind near in meaning, or of any kind as near as a likely repeat, that says something else."""
    if similarity < rule.conflict_similarity:
        return None
    if old.type is not new_type and similarity < rule.merge_similarity - LIKELY_REPEAT_MARGIN:
        return None
    if is_repeat(new_text, old, similarity, rule):
        return None
    why = different_content(new_text, old.text) or "it says something else about it"
    kind = "same kind of fact" if old.type is new_type else "a fact"
    return f"{kind}, near in meaning ({similarity:.2f}), but {why}"


EVENTS = frozenset({MemoryType.EPISODIC_EVENT})
"""Kinds of memory a later one does not change: an event that happened stays so. Without a
judge, a word match of the same kind is not asked about for them (on the hygiene set, 20 of
the 53 questions such matches raised were about events, none of them right)."""


JUDGED = 10
"""How many older memories a chat model is shown for one new memory."""
NEAREST_SHOWN = 3
"""Of them, the nearest always."""


def to_judge(
    new_text: str,
    known: list[str],
    limit: int = JUDGED,
    *,
    new_type: MemoryType | None = None,
    known_types: list[MemoryType] | None = None,
    sharing_words: frozenset[int] = frozenset(),
) -> list[int]:
    """Which of ``known`` (nearest first) a chat model is shown beside a new memory, at most
    ``limit``, in ``known``'s order: the three nearest; then those sharing a name, kin word or
    number with it; then those sharing a rare word (``sharing_words``, the word search's); then
    those of its type, nearest first; then the nearest. A changed fact may read unlike its
    earlier value (a new partner and the break-up, a new pastime and the one given up): what
    ties them is the person or thing, a word, or only the kind of fact."""
    mine = {p for p in particulars(new_text) if p.kind in ("name", "kin", "number")}
    types = known_types or []
    order = list(range(min(NEAREST_SHOWN, len(known))))
    order += [i for i, text in enumerate(known) if mine & particulars(text)]
    order += sorted(i for i in sharing_words if i < len(known))
    if new_type is not None:
        order += [i for i, kind in enumerate(types) if kind is new_type]
    order += range(len(known))
    return sorted(list(dict.fromkeys(order))[:limit])


def more_informative(first: str, second: str) -> str:
    """The wording to keep: more distinct words, then the longer, then the first."""
    first_words, second_words = set(_words(first)), set(_words(second))
    if len(second_words) != len(first_words):
        return second if len(second_words) > len(first_words) else first
    return second if len(second) > len(first) else first


class Retire(StrEnum):
    """What a hygiene pass does with stale memories ([hygiene] retire): put them to a person
    (the review queue), archive them (reversible), or nothing."""

    PROPOSE = "propose"
    APPLY = "apply"
    OFF = "off"


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
