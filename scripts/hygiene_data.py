"""The memory-hygiene data set: eight people, what a companion would have written down about each
of them over six to eighteen months, and what a clean memory store should make of it.

Written for this project from scratch (MIT, like the rest of it); nothing is fetched and no public
benchmark was copied. The people are fictional; each lives in ``hygiene_people_<user>.py`` as
plain rows, and this module turns the rows into :data:`TIMELINES` and checks them on import.

A person's timeline holds, in the order said and in the product's style ("The user ..."):

- stable facts, said once and never changed;
- paraphrased repeats: one fact said again later in other words; the wordings share a ``group``,
  and a store that absorbs duplicates ends with one memory per group;
- changed facts: a value that changes over time (a move, a new job, a new partner, a new diet, a
  new dog); each step carries its ``chain`` and ``step``, and only the last step stays current;
- look-alikes: two memories that read alike but hold different facts (``opposite`` polarity,
  the same template about an ``other entity``, an ``other aspect`` of the same topic, an
  ``other fact`` about the same person); they must neither merge nor supersede each other;
- stale trivia: old, low-importance memories (a sandwich for lunch) marked ``trivial``, the
  candidates for retirement.

Questions ask about the changed facts in the user's own words; each names the memory that answers
it now (the chain's last step) and the obsolete steps that must not.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from itertools import pairwise
from typing import NoReturn, Protocol, TypeAlias

import hygiene_people_carmen as carmen
import hygiene_people_elif as elif_
import hygiene_people_ingrid as ingrid
import hygiene_people_jonas as jonas
import hygiene_people_kofi as kofi
import hygiene_people_mateo as mateo
import hygiene_people_nadia as nadia
import hygiene_people_priya as priya


@dataclass(frozen=True)
class Said:
    key: str  # unique per person
    type: str  # a MemoryType value
    text: str
    said: str  # ISO date
    importance: float = 0.5
    group: str = ""  # paraphrase group id: all Said with the same non-empty group are one fact
    chain: str = ""  # changed-fact chain id
    step: int = 0  # order within the chain (1, 2, 3)
    trivial: bool = False  # a stale, low-value memory


@dataclass(frozen=True)
class LookAlike:
    first: str  # key
    second: str  # key
    why: str  # "opposite", "other entity", "other aspect", "other fact"


@dataclass(frozen=True)
class ChangedQuestion:
    text: str
    chain: str
    current: str  # key of the latest step
    obsolete: tuple[str, ...]


@dataclass(frozen=True)
class Timeline:
    user: str
    said: tuple[Said, ...]  # in the order said (dates ascending)
    look_alikes: tuple[LookAlike, ...]
    questions: tuple[ChangedQuestion, ...]


Row: TypeAlias = tuple[str, str, str, float, str]
"""A person's row: key, ISO date said, MemoryType value, importance, text."""

MEMORY_TYPES = frozenset(
    {
        "ProfileFact",
        "Boundary",
        "RelationshipFact",
        "EpisodicEvent",
        "Preference",
        "Goal",
        "EmotionalState",
        "Routine",
    }
)
"""The values of ``aria_mem.domain.models.MemoryType`` (kept here so the set imports alone)."""

WHY = frozenset({"opposite", "other entity", "other aspect", "other fact"})


class _Person(Protocol):
    """What a ``hygiene_people_<user>`` module holds."""

    USER: str
    SAID: tuple[Row, ...]
    GROUPS: dict[str, tuple[str, ...]]  # group id: its wordings
    CHAINS: dict[str, tuple[str, ...]]  # chain id: its steps, oldest first
    TRIVIAL: tuple[str, ...]
    LOOK_ALIKES: tuple[tuple[str, str, str], ...]  # key, key, why
    QUESTIONS: tuple[tuple[str, str], ...]  # text, chain


def _timeline(person: _Person) -> Timeline:
    groups, chains, trivial = person.GROUPS, person.CHAINS, person.TRIVIAL
    group_of = {key: group for group, keys in groups.items() for key in keys}
    step_of = {key: (chain, n) for chain, keys in chains.items() for n, key in enumerate(keys, 1)}
    said = tuple(
        Said(
            key,
            type_,
            text,
            day,
            importance,
            group=group_of.get(key, ""),
            chain=step_of.get(key, ("", 0))[0],
            step=step_of.get(key, ("", 0))[1],
            trivial=key in trivial,
        )
        for key, day, type_, importance, text in person.SAID
    )
    timeline = Timeline(
        person.USER,
        said,
        tuple(LookAlike(first, second, why) for first, second, why in person.LOOK_ALIKES),
        tuple(
            ChangedQuestion(text, chain, chains[chain][-1], chains[chain][:-1])
            for text, chain in person.QUESTIONS
            if chain in chains
        ),
    )
    _check(timeline, person)
    return timeline


def _check(timeline: Timeline, person: _Person) -> None:
    """Raise ValueError when a timeline is inconsistent, naming the user and the entry."""

    def fail(problem: str) -> NoReturn:
        raise ValueError(f"hygiene data, {timeline.user}: {problem}")

    groups, chains, trivial = person.GROUPS, person.CHAINS, person.TRIVIAL

    if not timeline.user.isascii() or timeline.user != timeline.user.lower():
        fail("user ids are lowercase ascii")
    by_key: dict[str, Said] = {}
    previous = ""
    for said in timeline.said:
        if said.key in by_key:
            fail(f"key {said.key!r} twice")
        by_key[said.key] = said
        if said.type not in MEMORY_TYPES:
            fail(f"{said.key}: {said.type!r} is no MemoryType value")
        date.fromisoformat(said.said)
        if said.said < previous:
            fail(f"{said.key}: said {said.said}, before the entry ahead of it")
        previous = said.said
        if not said.text or len(said.text) > 200 or "\n" in said.text:
            fail(f"{said.key}: a text is one line of at most 200 characters")
    grouped = [key for keys in groups.values() for key in keys]
    stepped = [key for keys in chains.values() for key in keys]
    paired = [key for pair in timeline.look_alikes for key in (pair.first, pair.second)]
    for key in (*grouped, *stepped, *trivial, *paired):
        if key not in by_key:
            fail(f"unknown key {key!r}")
    if len(set(grouped)) < len(grouped) or len(set(stepped)) < len(stepped):
        fail("a key in two groups or two chain steps")
    for key in trivial:
        if key in grouped or key in stepped or by_key[key].importance > 0.2:
            fail(f"{key}: a trivial memory is said once, changes nothing and matters little")
    for group, keys in groups.items():
        if len(keys) < 2:
            fail(f"group {group!r} has one wording")
    for chain, keys in chains.items():
        days = [by_key[key].said for key in keys]
        if len(keys) < 2 or any(a >= b for a, b in pairwise(days)):
            fail(f"chain {chain!r}: at least two steps, each said later than the one before")
    for pair in timeline.look_alikes:
        if pair.first == pair.second or pair.why not in WHY:
            fail(f"look-alike {pair.first}/{pair.second}: two keys and a known why")
    for text, chain in person.QUESTIONS:
        if chain not in chains:
            fail(f"question {text!r}: unknown chain {chain!r}")
    asked = {question.chain for question in timeline.questions}
    for chain in chains:
        if chain not in asked:
            fail(f"chain {chain!r} has no question")


TIMELINES: tuple[Timeline, ...] = (
    _timeline(nadia),
    _timeline(kofi),
    _timeline(priya),
    _timeline(jonas),
    _timeline(carmen),
    _timeline(ingrid),
    _timeline(mateo),
    _timeline(elif_),
)
