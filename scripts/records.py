"""The records of the benchmarks' data sets, as scripts/datasets.py returns them from the JSON
Lines files in scripts/data (see that module for the files' shape and rules).

All three sets were written for this project (MIT, like the rest of it); nothing is fetched and
no public benchmark was copied. The people are fictional.
"""

from __future__ import annotations

from dataclasses import dataclass

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
"""The values of ``aria_mem.domain.models.MemoryType`` (kept here so the sets load alone)."""


# personas.jsonl: the retrieval-quality set the retrieval was tuned on.


@dataclass(frozen=True)
class Fact:
    key: str
    type: str
    text: str
    said: str
    """ISO date the user said it."""
    importance: float = 0.5


@dataclass(frozen=True)
class Question:
    text: str
    answers: tuple[str, ...]
    kind: str
    previous: str | None = None


@dataclass(frozen=True)
class Persona:
    user: str
    facts: tuple[Fact, ...]
    questions: tuple[Question, ...]
    world: dict[str, tuple[str, ...]]
    """Words the generated background facts of this person draw on (names, places, dishes)."""


@dataclass(frozen=True)
class Templates:
    """What a generated part draws on (background.jsonl, small_talk.jsonl)."""

    templates: tuple[tuple[str, str], ...]
    """(memory type, text with {pool} fields), in the order the generator picks from."""
    pools: dict[str, tuple[str, ...]]
    """Each field's words, in the order the generator fills them."""


# observations.jsonl: the retrieval-quality set never tuned on.


@dataclass(frozen=True)
class Observation:
    key: str
    """Unique within the scene."""
    type: str
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
    asked: str
    """ISO date it is asked, after the scene's last session."""


@dataclass(frozen=True)
class Scene:
    name: str
    """Used as the user id: lowercase ascii."""
    people: tuple[str, ...]
    observations: tuple[Observation, ...]
    asks: tuple[Ask, ...]


# hygiene.jsonl: the memory-hygiene set (scripts/hygiene_data.py says what it holds).


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
