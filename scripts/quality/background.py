"""The generated part of the retrieval-quality data set: the everyday background a companion
keeps from long conversations (meals, errands, moods, small talk), which buries the facts that
answer the questions. Seeded, so every run builds the same memories.

The templates share everyday words with the questions on purpose ("work", "weekend", "sleep",
"friend", family words), because real background does: a lexical source must earn its place
against it, not against gibberish. Written for this project (MIT); nothing is fetched.
"""

from __future__ import annotations

import random
from datetime import date, timedelta

from scripts.records import Fact, Persona

_TEMPLATES: tuple[tuple[str, str], ...] = (
    ("EpisodicEvent", "The user had {dish} with {name} near {place}."),
    ("EpisodicEvent", "The user went to {place} on {day} and it was {weather}."),
    ("EpisodicEvent", "The user bought {thing} on sale at the weekend."),
    ("EpisodicEvent", "The user forgot {thing} at {place} and had to go back for it."),
    ("EpisodicEvent", "The user read an article about {topic} on the way to work."),
    ("EpisodicEvent", "The user watched a documentary about {topic} with {name}."),
    ("EpisodicEvent", "The user and {name} argued a little about {topic}."),
    ("EpisodicEvent", "The user's {relative} called on {day} to talk about {topic}."),
    ("EpisodicEvent", "The user cooked {dish} for {name} and it turned out well."),
    ("EpisodicEvent", "The user lost an afternoon looking for {thing}."),
    ("EpisodicEvent", "The user's {relative} sent photos from a trip to {city}."),
    ("EpisodicEvent", "The user met {name} by chance at {place}."),
    ("EpisodicEvent", "The user stayed up late on {day} watching a series."),
    ("EpisodicEvent", "The user's train was delayed on {day}, so the user was late."),
    ("EpisodicEvent", "The user helped {name} move some boxes on {day}."),
    ("EpisodicEvent", "The user got a parking ticket near {place}."),
    ("EpisodicEvent", "The user's {relative} recommended a podcast about {topic}."),
    ("EpisodicEvent", "The user had a quiet weekend and cleaned the kitchen."),
    ("EpisodicEvent", "The user spent {day} evening sorting old photos."),
    ("EpisodicEvent", "The user's {relative} is thinking about a holiday in {city}."),
    ("EmotionalState", "The user felt {mood} on {day} after a long day at work."),
    ("EmotionalState", "The user was {mood} about the news on {topic}."),
    ("EmotionalState", "The user felt {mood} after talking to {name}."),
    ("EmotionalState", "The user was {mood} because the weather was {weather} all week."),
    ("Preference", "The user likes {dish} but only when {name} makes it."),
    ("Preference", "The user prefers {place} early in the morning, when it is quiet."),
    ("Preference", "The user finds {topic} interesting but tiring to read about."),
    ("Preference", "The user would rather walk than take the bus when it is {weather}."),
    ("Preference", "The user enjoys {activity} more than before."),
    ("Routine", "The user does {activity} on {day}s when there is time."),
    ("Routine", "The user checks the news about {topic} every morning."),
    ("Routine", "The user meets {name} for coffee every other {day}."),
    ("Routine", "The user tidies up {place_home} every {day}."),
    ("RelationshipFact", "The user's colleague {name} is into {activity}."),
    ("RelationshipFact", "The user's neighbour {name} plays loud music at night."),
    ("RelationshipFact", "The user's {relative} lives near {place} now."),
    ("RelationshipFact", "The user thinks {name} is a good listener."),
    ("Goal", "The user wants to spend less money on {thing_generic}."),
    ("Goal", "The user would like to visit {city} one day."),
    ("Goal", "The user plans to try {activity} this year."),
)

_POOLS: dict[str, tuple[str, ...]] = {
    "day": ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"),
    "weather": ("rainy", "sunny", "windy", "cold", "humid", "grey"),
    "mood": ("tired", "cheerful", "restless", "calm", "a bit low", "proud", "annoyed", "hopeful"),
    "relative": ("cousin", "aunt", "uncle", "brother", "sister", "mum", "godmother", "nephew"),
    "city": ("Vienna", "Krakow", "Seville", "Oslo", "Marrakesh", "Edinburgh", "Kyoto", "Lima"),
    "activity": (
        "bouldering",
        "swimming",
        "board games",
        "sketching",
        "yoga",
        "baking bread",
        "chess",
        "gardening",
    ),
    "place_home": ("the kitchen", "the hallway", "the wardrobe", "the desk", "the bathroom"),
    "thing_generic": ("takeaway food", "clothes", "streaming services", "taxis", "gadgets"),
}


def background(persona: Persona, count: int, seed: int = 11) -> list[Fact]:
    """``count`` background memories for ``persona``, said on days spread over 2023-2024."""
    rng = random.Random(f"{seed}-{persona.user}")
    pools = {
        **_POOLS,
        **{
            plural.removesuffix("es") if plural == "dishes" else plural[:-1]: words
            for plural, words in persona.world.items()
        },
    }
    start = date(2023, 6, 1)
    made: list[Fact] = []
    seen: set[str] = set()
    while len(made) < count:
        type_, template = rng.choice(_TEMPLATES)
        text = template.format(**{k: rng.choice(v) for k, v in pools.items()})
        if text in seen:
            continue
        seen.add(text)
        said = start + timedelta(days=rng.randrange(0, 580))
        importance = round(rng.uniform(0.2, 0.6), 2)
        made.append(Fact(f"bg{len(made)}", type_, text, said.isoformat(), importance))
    return made
