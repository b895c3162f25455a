"""The small interfaces the services need. Adapters implement them; tests hand in real ones."""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from aria_mem.domain.models import (
    Hit,
    IndexPoint,
    Memory,
    MemoryStatus,
    NewMemory,
    SearchScope,
    Stage,
)


@dataclass(frozen=True, slots=True)
class SaveOutcome:
    memory: Memory
    created: bool
    """False when the text was already known and the call confirmed it instead."""


@dataclass(frozen=True, slots=True)
class MemoryChanges:
    """Fields an edit may change; None leaves a field as it is."""

    text: str | None = None
    importance: float | None = None
    emotional_significance: float | None = None
    confidence: float | None = None
    reason: str | None = None
    expires_at: datetime | None = None
    clear_expiry: bool = False


@dataclass(frozen=True, slots=True)
class QueuedDeletion:
    id: int
    collection: str
    point_id: uuid.UUID


@dataclass(frozen=True, slots=True)
class ImportResult:
    inserted: int
    updated: int
    merged_duplicates: int


class MemoryStore(Protocol):
    """PostgreSQL, the source of truth."""

    def migrate(self) -> list[str]: ...
    def close(self) -> None: ...
    def ping(self) -> None: ...

    def save(self, new: NewMemory) -> SaveOutcome: ...
    def get(self, memory_id: uuid.UUID) -> Memory: ...
    def find_prefix(self, prefix: str) -> Memory: ...
    def list_memories(
        self,
        *,
        user_id: str | None,
        companion_id: str | None,
        status: MemoryStatus | None = None,
        limit: int | None = None,
    ) -> list[Memory]: ...
    def iter_all(self, batch_size: int = 1000) -> Iterator[Memory]: ...
    def edit(self, memory_id: uuid.UUID, changes: MemoryChanges) -> Memory: ...
    def set_pinned(self, memory_id: uuid.UUID, pinned: bool) -> Memory: ...
    def set_status(self, memory_id: uuid.UUID, status: MemoryStatus) -> Memory: ...
    def confirm(self, memory_id: uuid.UUID) -> Memory: ...
    def delete(self, memory_id: uuid.UUID, collection: str) -> Memory: ...

    def pending(self, limit: int) -> list[tuple[Memory, bool]]: ...
    def mark_indexed(
        self, versions: Sequence[tuple[uuid.UUID, datetime]], model: str | None
    ) -> int: ...
    def mark_index_failed(self, memory_ids: Sequence[uuid.UUID], error: str) -> None: ...

    def queued_deletions(self, limit: int) -> list[QueuedDeletion]: ...
    def drop_queued_deletions(self, ids: Sequence[int]) -> None: ...
    def note_deletion_failure(self, ids: Sequence[int], error: str) -> None: ...

    def stage(self, user_id: str, companion_id: str) -> Stage: ...
    def set_stage(self, user_id: str, companion_id: str, stage: Stage) -> None: ...
    def retrieval_context(
        self, user_id: str, companion_id: str, timeout: float | None = None
    ) -> tuple[Stage, list[Memory]]: ...
    def fetch_with_usability(
        self, memory_ids: Sequence[uuid.UUID], timeout: float | None = None
    ) -> dict[uuid.UUID, tuple[Memory, bool]]: ...
    def record_use(self, memory_ids: Sequence[uuid.UUID]) -> None: ...
    def counts(self) -> dict[str, int]: ...
    def import_memories(self, memories: Sequence[Memory]) -> ImportResult: ...


class VectorIndex(Protocol):
    """A disposable copy of the vectors, in named collections."""

    def collection_size(self, collection: str) -> int | None:
        """The vector size of a collection, or None when it does not exist."""
        ...

    def ensure_collection(self, collection: str, size: int) -> None: ...
    def drop_collection(self, collection: str) -> None: ...
    def upsert(self, collection: str, points: Sequence[IndexPoint]) -> None: ...
    def delete(self, collection: str, ids: Sequence[uuid.UUID]) -> None: ...
    def search(
        self, collection: str, vector: Sequence[float], scope: SearchScope, limit: int
    ) -> list[Hit]: ...
    def count(self, collection: str) -> int: ...
    def ids(self, collection: str) -> list[uuid.UUID]: ...
    def close(self) -> None: ...


class Embedder(Protocol):
    """A model that turns texts into vectors."""

    @property
    def model_name(self) -> str:
        """The name stored with every vector, e.g. ``ollama/mxbai-embed-large``."""
        ...

    def embed(self, texts: Sequence[str]) -> list[list[float]]: ...

    def dimension(self) -> int:
        """The vector size, learned from a test vector."""
        ...
