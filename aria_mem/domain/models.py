"""The memory model and its vocabulary."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field, fields
from datetime import date, datetime
from enum import StrEnum


class MemoryType(StrEnum):
    PROFILE_FACT = "ProfileFact"
    BOUNDARY = "Boundary"
    RELATIONSHIP_FACT = "RelationshipFact"
    EPISODIC_EVENT = "EpisodicEvent"
    PREFERENCE = "Preference"
    GOAL = "Goal"
    EMOTIONAL_STATE = "EmotionalState"
    ROUTINE = "Routine"


class MemoryStatus(StrEnum):
    ACTIVE = "active"
    ARCHIVED = "archived"
    SUPERSEDED = "superseded"
    """Replaced by a newer memory, or merged into another (``superseded_by``): kept with its
    text and dates for its history, never retrieved."""


class MemoryOrder(StrEnum):
    """What a listing of memories is sorted by (ties by id, so paging is stable)."""

    CREATED = "created"
    UPDATED = "updated"
    IMPORTANCE = "importance"
    USES = "uses"
    LAST_USED = "last_used"


class IndexState(StrEnum):
    PENDING = "pending"
    INDEXED = "indexed"


class Stage(StrEnum):
    """Relationship stage of a (user, companion) pair, in the order it grows."""

    EARLY = "early"
    ESTABLISHED = "established"
    CLOSE = "close"

    @property
    def rank(self) -> int:
        return _STAGE_ORDER.index(self)

    def allows(self, held_until: Stage | None) -> bool:
        """True when a memory held until ``held_until`` may be used at this stage."""
        return held_until is None or self.rank >= held_until.rank


_STAGE_ORDER = [Stage.EARLY, Stage.ESTABLISHED, Stage.CLOSE]

MEMORIES_COLLECTION = "memories"
KNOWLEDGE_COLLECTION = "knowledge"


class Kind(StrEnum):
    """What a vector stands for; each kind has its own index collection, so a knowledge
    passage can never come back as a fact about the user."""

    MEMORY = "memory"
    KNOWLEDGE = "knowledge"

    @property
    def collection(self) -> str:
        return MEMORIES_COLLECTION if self is Kind.MEMORY else KNOWLEDGE_COLLECTION


class DropReason(StrEnum):
    """Why a memory did not go into a prompt (`search --explain`, `--why`)."""

    BELOW_THRESHOLD = "below the similarity threshold"
    CUT_BY_CAP = "cut by the memory cap"
    PROFILE_CUT_BY_CAP = "profile larger than the memory cap"
    DELETED = "deleted (the index still had a vector)"
    ARCHIVED = "archived"
    SUPERSEDED = "superseded by a newer memory"
    EXPIRED = "expired"
    HELD = "held until a closer relationship stage"
    OTHER_SCOPE = "belongs to another user or companion"
    NOT_INDEXED = "not indexed yet"
    OTHER_MODEL = "indexed under another embedding model"
    NOT_NEAR = "not among the nearest candidates"


@dataclass(frozen=True, slots=True)
class Memory:
    """One remembered fact about a user, as PostgreSQL holds it."""

    id: uuid.UUID
    user_id: str
    companion_id: str
    type: MemoryType
    text: str
    importance: float
    emotional_significance: float
    confidence: float
    reason: str
    pinned: bool
    status: MemoryStatus
    held_until_stage: Stage | None
    expires_at: datetime | None
    created_at: datetime
    updated_at: datetime
    last_used_at: datetime | None
    last_confirmed_at: datetime | None
    use_count: int
    index_state: IndexState
    indexed_model: str | None
    index_attempts: int
    index_error: str | None
    superseded_by: uuid.UUID | None = None
    """The memory that replaced this one (or that it was merged into), while superseded."""
    event_from: date | None = None
    """The first day of the date or period the text names ("on 31 Dec", "last summer"),
    read when the text was written, counted from when it was said (``domain.when``); None
    when it names none: the memory's own date stands for its event."""
    event_until: date | None = None
    """The last day of that date or period."""


MEMORY_FIELDS = tuple(f.name for f in fields(Memory))
"""A Memory's fields in order: the columns it is read from, by position."""
INDEX_FIELDS = ("index_state", "indexed_model", "index_attempts", "index_error")
"""Where one machine's index stands: never exported."""
DERIVED_FIELDS = ("event_from", "event_until")
"""Read from the text where it is written: never exported, read again on import."""


@dataclass(frozen=True, slots=True)
class NewMemory:
    """What a caller gives to remember something; validated by ``validation.new_memory``."""

    user_id: str
    companion_id: str
    text: str
    type: MemoryType = MemoryType.EPISODIC_EVENT
    importance: float = 0.5
    emotional_significance: float = 0.0
    confidence: float = 0.8
    reason: str = ""
    pinned: bool = False
    held_until_stage: Stage | None = None
    expires_at: datetime | None = None
    id: uuid.UUID = field(default_factory=uuid.uuid4)


@dataclass(frozen=True, slots=True)
class KnowledgeItem:
    """One passage of a document the companion has read. Not a fact about the user."""

    id: uuid.UUID
    source_id: uuid.UUID
    companion_id: str
    source: str
    title: str
    chunk_index: int
    text: str
    updated_at: datetime


KNOWLEDGE_SCOPE_USER = "*"
"""The user_id stored with knowledge vectors: knowledge belongs to a companion, not a user."""


@dataclass(frozen=True, slots=True)
class IndexPoint:
    """A vector and its payload, as the vector index stores it."""

    id: uuid.UUID
    vector: list[float]
    payload: dict[str, object]


@dataclass(frozen=True, slots=True)
class SearchScope:
    """The filter every search carries: one user, one companion, one model, active only."""

    user_id: str
    companion_id: str
    embedding_model: str


@dataclass(frozen=True, slots=True)
class Hit:
    id: uuid.UUID
    score: float
    payload: dict[str, object]
