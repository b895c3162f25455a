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

from scripts.datasets import templates

_SET = templates("small_talk", filled=("name", "other"))
"""Templates and word pools in data/small_talk.jsonl; the scene's people fill the rest."""
_TEMPLATES, _FILL = _SET.templates, _SET.pools


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
