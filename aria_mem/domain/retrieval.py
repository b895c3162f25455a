"""What one retrieval returns: the decision (profile, relevant, dropped, with every signal),
the prompt sections, the stage timings and whether it was degraded. The record of the whole
trip, so it may import every step; no step imports it."""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, fields
from functools import cached_property

from aria_mem.domain.fusion import Evidence
from aria_mem.domain.models import KnowledgeItem, Memory, Stage
from aria_mem.domain.prompt import PromptRecord, PromptSections
from aria_mem.domain.repeats import Repeat
from aria_mem.domain.selection import Dropped, Ranked, Selection
from aria_mem.domain.time_signal import Asked


@dataclass(frozen=True)
class Timings:
    """Milliseconds per stage (None: the stage did not run), and the whole retrieval.
    ``profile`` is the reads of the profile and the word matches (steps 5-6, one connection);
    ``lookup`` the cosine of the word matches the nearest vectors missed; ``validate`` the
    confirmation (step 8); ``rank`` steps 9-10."""

    profile: float | None = None
    embed: float | None = None
    search: float | None = None
    lookup: float | None = None
    validate: float | None = None
    rank: float | None = None
    format: float | None = None
    total: float | None = None

    def items(self) -> Iterator[tuple[str, float]]:
        for f in fields(self):
            value = getattr(self, f.name)
            if value is not None:
                yield f.name, value


@dataclass(frozen=True)
class KnowledgeHit:
    """A passage the companion has read, with its similarity: outside data, not a fact about
    the user."""

    item: KnowledgeItem
    similarity: float


@dataclass(frozen=True)
class Explained(Evidence):
    """What each source said about one candidate (step 7) and, when the repeat rule ranked
    it lower (step 9), what it repeats: for `search --explain`."""

    repeat: Repeat | None = None


@dataclass(frozen=True)
class SearchResult:
    user_id: str
    companion_id: str
    query: str
    model: str
    stage: Stage = Stage.EARLY
    selection: Selection = field(default_factory=Selection)
    knowledge: tuple[KnowledgeHit, ...] = ()
    sections: PromptSections = field(default_factory=PromptSections)
    timings: Timings = field(default_factory=Timings)
    degraded: tuple[str, ...] = ()
    """Why part of the retrieval was skipped; empty when nothing was."""
    fused: Mapping[uuid.UUID, Evidence] = field(default_factory=dict)
    """Each candidate's cosine, word-match rank and score, and fused place (step 7)."""
    asked: Asked | None = None
    """What the message asks of time: the days it names (which lift the memories dated in
    them), or that it asks for a date; None when it asks nothing of time."""

    @cached_property
    def evidence(self) -> Mapping[uuid.UUID, Explained]:
        """Each candidate's fusion evidence beside the repeat rule's verdict on it, both read
        from where they are kept (the fusion, the score)."""
        found = self.selection.repeats
        return {
            mid: Explained(**{f.name: getattr(e, f.name) for f in fields(e)}, repeat=found.get(mid))
            for mid, e in self.fused.items()
        }

    @property
    def candidates(self) -> int:
        """How many memories the two sources brought, after fusion."""
        return len(self.fused)

    @property
    def profile(self) -> tuple[Ranked, ...]:
        return self.selection.profile

    @property
    def relevant(self) -> tuple[Ranked, ...]:
        return self.selection.relevant

    @property
    def dropped(self) -> tuple[Dropped, ...]:
        return self.selection.dropped

    @property
    def chosen(self) -> list[Ranked]:
        return self.selection.chosen

    @property
    def prompt(self) -> str:
        """The sections as they go to the model (before any budget trims them)."""
        return self.sections.text()

    @property
    def is_degraded(self) -> bool:
        return bool(self.degraded)


def without_postgres(
    user_id: str,
    companion_id: str,
    query: str,
    model: str,
    reason: object,
    also: tuple[str, ...] = (),
) -> SearchResult:
    """The result of a turn PostgreSQL could not serve: no memories, and why (``also``: what
    else was skipped). The one place this answer is built."""
    problem = f"PostgreSQL unavailable, no memories this turn: {reason}"
    return SearchResult(user_id, companion_id, query, model, degraded=(problem, *also))


def prompt_record(memory: Memory) -> PromptRecord:
    """How a memory appears on its prompt line."""
    return PromptRecord(memory.type.value, memory.text, memory.confidence)


@dataclass(frozen=True)
class Profile:
    """What every prompt holds, whatever the message: pinned memories and the most important
    profile facts and boundaries (within the stage's cap), and their section."""

    memories: tuple[Memory, ...]
    stage: Stage

    @property
    def text(self) -> str:
        return PromptSections.build([prompt_record(m) for m in self.memories], []).text()
