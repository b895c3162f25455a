"""The generated part of the observation data set: the small talk a note-taker keeps about the
same named people between the facts that matter (meals, errands, weather, moods, plans that
came to nothing), which buries the observations that answer the questions. Seeded, so every
run builds the same notes.

Every note names one of the scene's people and uses everyday words the questions use too
("work", "weekend", "family", "trip", "friend"), as real notes would: names alone must not give
the answer away. Written for this project (MIT); nothing is fetched.
"""

from __future__ import annotations

import random
from datetime import date, timedelta

_TEMPLATES: tuple[tuple[str, str], ...] = (
    ("EpisodicEvent", "{name} said the weather was {weather} on the way to work on {day}."),
    ("EpisodicEvent", "{name} mentioned having {dish} for dinner with {other} on {day}."),
    ("EpisodicEvent", "{name} told us they spent the weekend tidying the {room}."),
    ("EpisodicEvent", "{name} complained that the bus to {place} was late again."),
    ("EpisodicEvent", "{name} said they had a slow morning and slept in on {day}."),
    ("EpisodicEvent", "{name} mentioned picking up {thing} from the shop near {place}."),
    ("EpisodicEvent", "{name} and {other} talked for a while about {topic}."),
    ("EpisodicEvent", "{name} said a friend from work sent them an article about {topic}."),
    ("EpisodicEvent", "{name} mentioned their {relative} phoned on {day} just to chat."),
    ("EpisodicEvent", "{name} said the queue at {place} took most of the afternoon."),
    ("EpisodicEvent", "{name} watched a film about {topic} with {other} at the weekend."),
    ("EpisodicEvent", "{name} was tired after a long week at work and went to bed early."),
    ("EpisodicEvent", "{name} said they forgot {thing} at {place} and had to go back."),
    (
        "EpisodicEvent",
        "{name} mentioned thinking about a short trip somewhere warm, nothing booked.",
    ),
    ("EpisodicEvent", "{name} cooked {dish} on {day}; {other} said it was too salty."),
    ("EpisodicEvent", "{name} said the heating in the {room} kept switching off."),
    ("EpisodicEvent", "{name} went for a walk near {place} when the rain stopped."),
    ("EpisodicEvent", "{name} said their phone screen cracked again on {day}."),
    ("EmotionalState", "{name} seemed {mood} during the chat on {day}."),
    ("EmotionalState", "{name} sounded {mood} when talking about the week."),
    ("Preference", "{name} said {dish} from the place near {place} is fine but nothing special."),
    ("EpisodicEvent", "{name} helped {other} carry {thing} up the stairs."),
)

_FILL: dict[str, tuple[str, ...]] = {
    "weather": ("grey", "freezing", "muggy", "windy", "drizzly", "bright but cold"),
    "day": ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"),
    "dish": ("pasta", "soup", "a curry", "toast", "noodles", "a takeaway pizza", "stew"),
    "room": ("kitchen", "hallway", "spare room", "bathroom", "living room"),
    "place": ("the station", "the high street", "the market", "the retail park", "the library"),
    "thing": ("an umbrella", "a phone charger", "the recycling bags", "a new kettle", "batteries"),
    "topic": ("electric cars", "house prices", "a football match", "a cooking show", "the news"),
    "relative": ("aunt", "cousin", "uncle", "grandmother", "neighbour"),
    "mood": ("a bit flat", "cheerful", "distracted", "restless", "relaxed", "tired"),
}


def small_talk(
    people: tuple[str, ...], first: str, last: str, count: int, seed: str
) -> list[tuple[str, str, str]]:
    """``count`` notes (type, text, ISO date) about ``people``, dated between ``first`` and
    ``last``; the same for the same arguments."""
    rng = random.Random(seed)
    start, end = date.fromisoformat(first), date.fromisoformat(last)
    span = (end - start).days
    notes: list[tuple[str, str, str]] = []
    for _ in range(count):
        type_, template = rng.choice(_TEMPLATES)
        name = rng.choice(people)
        other = rng.choice([p for p in people if p != name] or [name])
        values = {key: rng.choice(options) for key, options in _FILL.items()}
        text = template.format(name=name, other=other, **values)
        said = start + timedelta(days=rng.randint(0, span))
        notes.append((type_, text, said.isoformat()))
    return notes
