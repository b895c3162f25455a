"""The two retrieval-quality data sets in one shape, for scripts/bench_quality.py. Both were
written for this project (MIT, like the rest of it); nothing is fetched, and they copy and are
tuned to no public benchmark. scripts/datasets.py loads and checks them.

- ``personas`` (data/personas.jsonl): six people, each with ~24 facts a companion would have
  kept from long conversations ("The user ..."), each dated, buried among generated everyday
  memories (background.py); the set the retrieval was tuned on. Questions come in five kinds:
  ``direct`` (shares words with the answer), ``paraphrase`` (never said in those words),
  ``temporal`` (when something happened, or what happened when), ``follow_up`` (a short
  message that needs the one before it) and ``name`` (a rare name or word the answer holds).
- ``observations`` (data/observations.jsonl): four scenes of third-person notes about three or
  four named people, as a note-taker would write them after each chat session ("Priya
  mentioned that her brother Arjun ..."), over about a year of sessions one to three weeks
  apart. The people of a scene share names, places, hobbies and objects on purpose (two
  sisters, two dogs, two trips to the same country), so retrieval must pick the right person's
  fact; each scene is buried among generated small talk about the same people (small_talk.py).
  Written later, in another style, and never tuned on: a change ships only if it does not lose
  here. Questions, mostly paraphrased and asked by name after the last session, come in four
  kinds: ``single`` (one fact answers), ``multi`` (two facts joined; hit@k counts any, recall
  counts all), ``temporal`` (the session date or the text decides) and ``open`` (an opinion or
  inference the person's facts support).
"""

from __future__ import annotations

import random
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from scripts.datasets import personas as load_personas
from scripts.datasets import scenes as load_scenes
from scripts.quality.background import background
from scripts.quality.small_talk import small_talk

SET_NAMES = ("personas", "observations")


@dataclass(frozen=True)
class Item:
    """One memory as the benchmark imports it."""

    user: str
    id: uuid.UUID
    type: str
    text: str
    said: str
    """ISO date it was said."""
    importance: float


@dataclass(frozen=True)
class Query:
    user: str
    text: str
    previous: str | None
    answers: frozenset[uuid.UUID]
    kind: str


@dataclass(frozen=True)
class QualitySet:
    name: str
    items: tuple[Item, ...]
    queries: tuple[Query, ...]
    clock: dict[str, datetime]
    """Each user's clock during the questions: just after the last memory, or when asked."""

    @property
    def users(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(i.user for i in self.items))


def _id(set_name: str, user: str, key: str) -> uuid.UUID:
    return uuid.uuid5(uuid.NAMESPACE_URL, f"aria-bench/{set_name}/{user}/{key}")


def _dated(text: str, said: str) -> str:
    day = datetime.fromisoformat(said)
    return f"{text} (said on {day.day} {day:%B %Y})"


def personas(background_count: int, dates_in_text: bool = False) -> QualitySet:
    items: list[Item] = []
    queries: list[Query] = []
    people = load_personas()
    for persona in people:
        for fact in (*persona.facts, *background(persona, background_count)):
            text = _dated(fact.text, fact.said) if dates_in_text else fact.text
            ident = _id("personas", persona.user, fact.key)
            items.append(Item(persona.user, ident, fact.type, text, fact.said, fact.importance))
        for q in persona.questions:
            answers = frozenset(_id("personas", persona.user, key) for key in q.answers)
            queries.append(Query(persona.user, q.text, q.previous, answers, q.kind))
    now = datetime(2025, 1, 15, tzinfo=UTC)
    clock = {p.user: now for p in people}
    return QualitySet("personas", tuple(items), tuple(queries), clock)


def observations(small_talk_count: int, dates_in_text: bool = False) -> QualitySet:
    items: list[Item] = []
    queries: list[Query] = []
    clock: dict[str, datetime] = {}
    for scene in load_scenes():
        for o in scene.observations:
            text = _dated(o.text, o.said) if dates_in_text else o.text
            ident = _id("observations", scene.name, o.key)
            items.append(Item(scene.name, ident, o.type, text, o.said, o.importance))
        days = sorted(o.said for o in scene.observations)
        noise = small_talk(scene.people, days[0], days[-1], small_talk_count, scene.name)
        # The small talk is as important as the notes that matter, by their own spread: the
        # importance signal must not tell the answers from the noise.
        spread = random.Random(scene.name).choices(
            [o.importance for o in scene.observations], k=len(noise)
        )
        for number, ((type_, text, said), importance) in enumerate(zip(noise, spread, strict=True)):
            shown = _dated(text, said) if dates_in_text else text
            ident = _id("observations", scene.name, f"small-talk-{number}")
            items.append(Item(scene.name, ident, type_, shown, said, importance))
        for ask in scene.asks:
            answers = frozenset(_id("observations", scene.name, key) for key in ask.answers)
            queries.append(Query(scene.name, ask.text, None, answers, ask.kind))
            asked = datetime.fromisoformat(ask.asked).replace(tzinfo=UTC) + timedelta(hours=12)
            clock[scene.name] = max(clock.get(scene.name, asked), asked)
    return QualitySet("observations", tuple(items), tuple(queries), clock)
