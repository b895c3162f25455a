"""The memory model and its vocabulary."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import datetime
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

    def is_usable(self, stage: Stage, now: datetime) -> bool:
        """May this memory go into a prompt right now?"""
        if self.status is not MemoryStatus.ACTIVE:
            return False
        if self.expires_at is not None and self.expires_at <= now:
            return False
        return stage.allows(self.held_until_stage)


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


def knowledge_payload(item: KnowledgeItem, embedding_model: str) -> dict[str, object]:
    return {
        "knowledge_id": str(item.id),
        "source_id": str(item.source_id),
        "user_id": KNOWLEDGE_SCOPE_USER,
        "companion_id": item.companion_id,
        "type": "Knowledge",
        "active": True,
        "pinned": False,
        "embedding_model": embedding_model,
    }


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


def memory_payload(memory: Memory, embedding_model: str) -> dict[str, object]:
    """The payload stored beside a memory's vector (DESIGN.md lists these fields)."""
    return {
        "memory_id": str(memory.id),
        "user_id": memory.user_id,
        "companion_id": memory.companion_id,
        "type": memory.type.value,
        "importance": memory.importance,
        "pinned": memory.pinned,
        "active": memory.status is MemoryStatus.ACTIVE,
        "created_at": memory.created_at.isoformat(),
        "embedding_model": embedding_model,
    }
