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

from scripts.datasets import templates
from scripts.records import Fact, Persona

_SET = templates("background", filled=("name", "place", "dish", "thing", "topic"))
"""Templates and word pools in data/background.jsonl; a persona's world fills the rest."""
_TEMPLATES, _POOLS = _SET.templates, _SET.pools


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
