"""Saving and changing memories: PostgreSQL first, then the index.

Every change is committed to PostgreSQL before the index hears of it. If the embedder or the
index cannot be reached the memory stays pending (the result says why) and a later pass indexes
it; nothing is lost.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import UTC, datetime

from aria_mem.domain import validation
from aria_mem.domain.models import IndexState, Memory, NewMemory
from aria_mem.domain.payload import memory_entry
from aria_mem.domain.records import MemoryChanges
from aria_mem.domain.usability import is_usable
from aria_mem.errors import ServiceError, ValidationError
from aria_mem.ports import MemoryRepository, Relationships
from aria_mem.services.indexer import Indexer


@dataclass(frozen=True)
class WriteResult:
    memory: Memory
    created: bool = True
    indexed: bool = False
    problem: str | None = None
    """Why the index could not be updated now (the memory is saved and stays pending)."""


class MemoryWriter:
    def __init__(
        self, memories: MemoryRepository, relationships: Relationships, indexer: Indexer | None
    ) -> None:
        """``indexer`` may be None to save without touching the index (e.g. bulk work)."""
        self._memories = memories
        self._relationships = relationships
        self._indexer = indexer

    def _sync(self, memory: Memory, created: bool = True) -> WriteResult:
        if self._indexer is None:
            return WriteResult(memory, created, False, "indexing skipped")
        stage = self._relationships.stage(memory.user_id, memory.companion_id)
        usable = is_usable(memory, stage, datetime.now(UTC))
        try:
            report = self._indexer.sync([memory_entry(memory, usable)])
        except ServiceError as exc:
            return WriteResult(memory, created, False, str(exc))
        fresh = self._memories.get(memory.id)
        if report.failed:
            return WriteResult(fresh, created, False, "; ".join(report.errors))
        return WriteResult(fresh, created, usable)

    def remember(self, new: NewMemory) -> WriteResult:
        outcome = self._memories.save(validation.new_memory(new))
        if outcome.created or outcome.memory.index_state is IndexState.PENDING:
            return self._sync(outcome.memory, outcome.created)
        return WriteResult(outcome.memory, created=False, indexed=True)

    def update(self, memory_id: uuid.UUID, changes: MemoryChanges) -> WriteResult:
        """Apply the changes in one transaction; the memory is indexed again."""
        checked = MemoryChanges(
            text=validation.clean_text(changes.text) if changes.text is not None else None,
            importance=_unit("importance", changes.importance),
            emotional_significance=_unit("emotional significance", changes.emotional_significance),
            confidence=_unit("confidence", changes.confidence),
            reason=validation.reason(changes.reason) if changes.reason is not None else None,
            expires_at=validation.future("expires", changes.expires_at, datetime.now(UTC)),
            clear_expiry=changes.clear_expiry,
            pinned=changes.pinned,
            status=changes.status,
        )
        if checked == MemoryChanges():
            raise ValidationError(
                "Nothing to change — give a new text, importance, emotional significance, "
                "confidence, reason, expiry, pinned or archived"
            )
        return self._sync(self._memories.edit(memory_id, checked))

    def confirm(self, memory_id: uuid.UUID) -> WriteResult:
        memory = self._memories.confirm(memory_id)
        return WriteResult(memory, created=False, indexed=memory.index_state is IndexState.INDEXED)

    def forget(self, memory_id: uuid.UUID) -> WriteResult:
        """Delete for good; the vector's removal is queued in the same transaction and
        carried out now if the index answers, else by a later pass."""
        memory = self._memories.delete(memory_id)
        if self._indexer is None:
            return WriteResult(memory, False, False, "vector removal queued")
        try:
            report = self._indexer.run_deletions()
        except ServiceError as exc:
            return WriteResult(memory, False, False, f"vector removal queued: {exc}")
        if report.errors:
            return WriteResult(
                memory, False, False, "vector removal queued: " + "; ".join(report.errors)
            )
        return WriteResult(memory, False, True)


def _unit(name: str, value: float | None) -> float | None:
    return None if value is None else validation.unit_interval(name, value)
