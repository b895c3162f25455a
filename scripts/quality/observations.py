"""A second retrieval-quality data set, in another style than personas.py: third-person notes
about named people, as a note-taker would write them after each chat session ("Priya mentioned
that her brother Arjun ..."), never "The user ...". Written for this project from scratch (MIT,
like the rest of it); nothing is fetched, and it copies and is tuned to no public benchmark.

Four scenes (scenes_*.py), each a store of its own: three or four named people who talk to each
other, sharing names, places, hobbies and objects on purpose (two sisters, two dogs, two trips
to the same country), so retrieval must pick the right person's fact. Each scene runs over about
a year of sessions, one to three weeks apart; every observation carries the ISO date of its
session, and small talk about the same people (weather, meals, errands) is mixed in as true but
irrelevant distractors.

Questions, mostly paraphrased and asked by name after the last session, come in four kinds:
``single`` (one fact answers), ``multi`` (two facts joined, such as a person named by one fact
and asked about through another; hit@k counts any, recall counts all), ``temporal`` (when
something happened, or what happened when: the session date or the text decides) and ``open``
(an opinion or inference the person's facts support). ``answers`` holds the keys of every
observation that genuinely answers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from quality import scenes_allotment_row as plots
from quality import scenes_harbour_flat as flat
from quality import scenes_quay_street as quay
from quality import scenes_studio_seven as studio

KINDS = ("single", "multi", "temporal", "open")
TYPES = ("ProfileFact", "Preference", "RelationshipFact", "EpisodicEvent", "Boundary", "Goal")
"""The memory types used here; each is a value of aria_mem.domain.models.MemoryType."""


@dataclass(frozen=True)
class Observation:
    key: str
    """Unique within the scene."""
    type: str
    """One of TYPES."""
    text: str
    said: str
    """ISO date of the session it was noted in."""
    importance: float = 0.5


@dataclass(frozen=True)
class Ask:
    text: str
    answers: tuple[str, ...]
    """Keys of the observations that answer it."""
    kind: str
    """One of KINDS."""
    asked: str
    """ISO date it is asked, after the scene's last session."""


@dataclass(frozen=True)
class Scene:
    name: str
    """Used as the user id: lowercase ascii."""
    people: tuple[str, ...]
    observations: tuple[Observation, ...]
    asks: tuple[Ask, ...]


Sessions = tuple[tuple[str, tuple[tuple[str, str, str, float], ...]], ...]
"""(session date, ((key, type, text, importance), ...)), ... as the scene modules write them."""


def _scene(
    name: str,
    people: tuple[str, ...],
    sessions: Sessions,
    asks: tuple[tuple[str, str, str], ...],
    asked: str,
) -> Scene:
    observations = tuple(
        Observation(key, type_, text, said, importance)
        for said, rows in sessions
        for key, type_, text, importance in rows
    )
    scene = Scene(
        name,
        people,
        observations,
        tuple(Ask(text, tuple(keys.split()), kind, asked) for text, keys, kind in asks),
    )
    _check(scene, [said for said, _ in sessions])
    return scene


def _check(scene: Scene, sessions: list[str]) -> None:
    """Refuses a scene that breaks the data set's rules, so a typo fails at import."""
    problems: list[str] = []
    if not re.fullmatch(r"[a-z][a-z0-9-]*", scene.name):
        problems.append(f"name {scene.name!r} is not lowercase ascii")
    days = [date.fromisoformat(said) for said in sessions]
    if days != sorted(days) or len(set(days)) != len(days):
        problems.append("sessions are not in strictly increasing date order")
    keys = [o.key for o in scene.observations]
    problems += [f"duplicate key {k}" for k in sorted({k for k in keys if keys.count(k) > 1})]
    for o in scene.observations:
        if o.type not in TYPES:
            problems.append(f"{o.key}: unknown type {o.type}")
        if "\n" in o.text or len(o.text) > 200 or o.text.lower().startswith("the user"):
            problems.append(
                f"{o.key}: text has a newline, is over 200 characters or says 'the user'"
            )
        if not 0.0 <= o.importance <= 1.0:
            problems.append(f"{o.key}: importance out of range")
    known = set(keys)
    for a in scene.asks:
        if a.kind not in KINDS:
            problems.append(f"{a.text!r}: unknown kind {a.kind}")
        if not a.answers or not set(a.answers) <= known:
            problems.append(f"{a.text!r}: answers {set(a.answers) - known} are not observations")
        if a.kind == "multi" and len(a.answers) < 2:
            problems.append(f"{a.text!r}: a multi question needs two answers")
        if date.fromisoformat(a.asked) <= days[-1]:
            problems.append(f"{a.text!r}: asked before the last session")
    if problems:
        raise ValueError(f"scene {scene.name}: " + "; ".join(problems))


SCENES: tuple[Scene, ...] = (
    _scene(flat.NAME, flat.PEOPLE, flat.SESSIONS, flat.ASKS, flat.ASKED),
    _scene(plots.NAME, plots.PEOPLE, plots.SESSIONS, plots.ASKS, plots.ASKED),
    _scene(studio.NAME, studio.PEOPLE, studio.SESSIONS, studio.ASKS, studio.ASKED),
    _scene(quay.NAME, quay.PEOPLE, quay.SESSIONS, quay.ASKS, quay.ASKED),
)
"""The observation data set: four scenes, one store each."""
