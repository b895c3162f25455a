"""The in-memory twin of the PostgreSQL store's memories: the same rules (one row per fact,
confirm instead of duplicate, import by id with merging), for service tests without a
database. ``tests/test_store_contract.py`` runs one contract over both."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime

from aria_mem.adapters.in_memory import unjoin
from aria_mem.domain.hygiene import Consolidation, EventKind, MemoryEvent, ReviewItem
from aria_mem.domain.memory_line import EXPORT_FIELDS
from aria_mem.domain.models import (
    MEMORIES_COLLECTION,
    IndexState,
    KnowledgeItem,
    Memory,
    MemoryOrder,
    MemoryStatus,
    MemoryType,
    NewMemory,
    Stage,
)
from aria_mem.domain.records import (
    ImportResult,
    MemoryChanges,
    MemoryCounts,
    QueuedDeletion,
    SaveOutcome,
)
from aria_mem.domain.unjoining import edit_record
from aria_mem.domain.usability import is_usable, renewed_end
from aria_mem.domain.validation import (
    id_prefix,
    moved_by_import,
    no_memory,
    normalize_text,
    only_match,
    owned_by,
    parse_full_id,
)
from aria_mem.domain.when import event_dates
from aria_mem.errors import SaidElsewhereError, ValidationError


def now() -> datetime:
    return datetime.now(UTC)


@dataclass
class Passage:
    """A knowledge passage with its index bookkeeping."""

    item: KnowledgeItem
    index_state: IndexState = IndexState.PENDING
    indexed_model: str | None = None
    index_attempts: int = 0
    index_error: str | None = None


@dataclass
class State:
    """Everything the in-memory store holds, behind one lock."""

    lock: threading.RLock = field(default_factory=threading.RLock)
    memories: dict[uuid.UUID, Memory] = field(default_factory=dict)
    stages: dict[tuple[str, str], Stage] = field(default_factory=dict)
    deletions: dict[int, QueuedDeletion] = field(default_factory=dict)
    deletion_attempts: dict[int, int] = field(default_factory=dict)
    next_deletion: int = 1
    passages: dict[uuid.UUID, Passage] = field(default_factory=dict)
    events: list[MemoryEvent] = field(default_factory=list)
    reviews: dict[uuid.UUID, ReviewItem] = field(default_factory=dict)
    to_consolidate: set[uuid.UUID] = field(default_factory=set)
    """Written but not yet judged by a consolidation pass (PostgreSQL's column default)."""
    consolidations: dict[uuid.UUID, Consolidation] = field(default_factory=dict)

    def record(
        self,
        memory_id: uuid.UUID,
        kind: EventKind,
        *,
        other_id: uuid.UUID | None = None,
        text: str | None = None,
        detail: str = "",
    ) -> None:
        self.events.append(MemoryEvent(memory_id, kind, now(), other_id, text, detail))

    def drop_memory(self, memory_id: uuid.UUID) -> Memory:
        """Delete a memory with its history and the review items about it (as PostgreSQL's
        cascades do), clear what pointed at it, and queue its vector's removal."""
        memory = self.memory(memory_id)
        del self.memories[memory_id]
        self.events = [e for e in self.events if memory_id not in (e.memory_id, e.other_id)]
        self.reviews = {
            k: r for k, r in self.reviews.items() if memory_id not in (r.memory_id, r.other_id)
        }
        self.to_consolidate.discard(memory_id)
        self.consolidations = {
            k: c
            for k, c in self.consolidations.items()
            if memory_id not in (c.memory_id, c.other_id)
        }
        for other in [m for m in self.memories.values() if m.superseded_by == memory_id]:
            self.memories[other.id] = replace(other, superseded_by=None)
        self.queue_deletion(MEMORIES_COLLECTION, memory_id)
        return memory

    def stage(self, user_id: str, companion_id: str) -> Stage:
        return self.stages.get((user_id, companion_id), Stage.EARLY)

    def usable(self, memory: Memory, at: datetime | None = None) -> bool:
        return is_usable(memory, self.stage(memory.user_id, memory.companion_id), at or now())

    def queue_deletion(self, collection: str, point_id: uuid.UUID) -> None:
        self.deletions[self.next_deletion] = QueuedDeletion(
            self.next_deletion, collection, point_id
        )
        self.deletion_attempts[self.next_deletion] = 0
        self.next_deletion += 1

    def memory(self, memory_id: uuid.UUID) -> Memory:
        found = self.memories.get(memory_id)
        if found is None:
            raise no_memory(memory_id)
        return found

    def fact_owner(self, user_id: str, companion_id: str, text: str) -> Memory | None:
        key, pair = normalize_text(text), (user_id, companion_id)
        found = (m for m in self.memories.values() if (m.user_id, m.companion_id) == pair)
        return next((m for m in found if normalize_text(m.text) == key), None)


def pending_count(state: State) -> int:
    with state.lock:
        held = [m.index_state for m in state.memories.values()]
        return [*held, *(p.index_state for p in state.passages.values())].count(IndexState.PENDING)


def _exported(memory: Memory) -> tuple[object, ...]:
    return tuple(getattr(memory, name) for name in EXPORT_FIELDS)


class MemMemories:
    def __init__(self, state: State) -> None:
        self._s = state

    def save(self, new: NewMemory) -> SaveOutcome:
        with self._s.lock:
            known = self._s.fact_owner(new.user_id, new.companion_id, new.text)
            if known is not None:
                ends, at = renewed_end(known.expires_at, new.expires_at), now()
                confirmed = replace(known, last_confirmed_at=at)
                if ends != known.expires_at:  # said with a later end: renewed, indexed again
                    confirmed = replace(confirmed, expires_at=ends, updated_at=at, index_attempts=0)
                    confirmed = replace(confirmed, index_state=IndexState.PENDING)
                self._s.memories[known.id] = confirmed
                return SaveOutcome(confirmed, created=False)
            at = now()
            event_from, event_until = event_dates(new.text, at)
            memory = Memory(
                id=new.id,
                user_id=new.user_id,
                companion_id=new.companion_id,
                type=new.type,
                text=new.text,
                importance=new.importance,
                emotional_significance=new.emotional_significance,
                confidence=new.confidence,
                reason=new.reason,
                pinned=new.pinned,
                status=MemoryStatus.ACTIVE,
                held_until_stage=new.held_until_stage,
                expires_at=new.expires_at,
                created_at=at,
                updated_at=at,
                last_used_at=None,
                last_confirmed_at=None,
                use_count=0,
                index_state=IndexState.PENDING,
                indexed_model=None,
                index_attempts=0,
                index_error=None,
                event_from=event_from,
                event_until=event_until,
            )
            self._s.memories[memory.id] = memory
            self._s.to_consolidate.add(memory.id)
            return SaveOutcome(memory, created=True)

    def _changed(self, memory_id: uuid.UUID, **changes: object) -> Memory:
        with self._s.lock:
            memory = replace(self._s.memory(memory_id), **changes)  # type: ignore[arg-type]
            self._s.memories[memory_id] = memory
            return memory

    def edit(self, memory_id: uuid.UUID, changes: MemoryChanges) -> Memory:
        with self._s.lock:
            current = self._s.memory(memory_id)
            updates: dict[str, object] = {
                name: getattr(changes, name)
                for name in ("text", "importance", "emotional_significance", "confidence", "reason")
                if getattr(changes, name) is not None
            }
            if changes.clear_expiry:
                updates["expires_at"] = None
            elif changes.expires_at is not None:
                updates["expires_at"] = changes.expires_at
            if changes.pinned is not None:
                updates["pinned"] = changes.pinned
            if changes.status is not None:
                updates["status"] = changes.status
            if not updates:
                return current
            if changes.text is not None:
                if changes.joins is not None:  # a join of a memory forgotten meanwhile: none
                    self._s.memory(changes.joins)
                owner = self._s.fact_owner(current.user_id, current.companion_id, changes.text)
                if owner is not None and owner.id != memory_id:
                    raise SaidElsewhereError()
            if changes.text is not None and changes.text != current.text:
                self._s.record(memory_id, EventKind.EDITED, **edit_record(current.text, changes))
            if changes.text is not None:
                dates = event_dates(changes.text, current.created_at)
                updates["event_from"], updates["event_until"] = dates
            updates.update(updated_at=now(), index_state=IndexState.PENDING, index_attempts=0)
            return self._changed(memory_id, **updates)

    def confirm(self, memory_id: uuid.UUID) -> Memory:
        return self._changed(memory_id, last_confirmed_at=now())

    def delete(self, memory_id: uuid.UUID) -> Memory:
        with self._s.lock:  # forget means gone: from a join's wording too
            given = unjoin.wordings_back(self._s, memory_id)
            memory = self._s.drop_memory(memory_id)
            unjoin.give_back(self._s, given)
            return memory

    def get(self, memory_id: uuid.UUID) -> Memory:
        with self._s.lock:
            return self._s.memory(memory_id)

    def find_prefix(self, prefix: str, owner: tuple[str, str] | None = None) -> Memory:
        full = parse_full_id(prefix)
        if full is not None:
            return owned_by(self.get(full), owner)
        clean = id_prefix(prefix, "a memory id", "`aria-mem list`")
        with self._s.lock:
            found_all = [
                m
                for m in self._s.memories.values()
                if str(m.id).startswith(clean)
                and (owner is None or (m.user_id, m.companion_id) == owner)
            ]
        return only_match(found_all, prefix, "memory", "`aria-mem list`")

    def list_memories(
        self,
        *,
        user_id: str | None,
        companion_id: str | None,
        status: MemoryStatus | None = None,
        limit: int | None = None,
        type: MemoryType | None = None,
        contains: str | None = None,
        newest_first: bool = False,
        pinned: bool | None = None,
        held: bool | None = None,
        expiring: bool | None = None,
        order: MemoryOrder = MemoryOrder.CREATED,
        offset: int = 0,
    ) -> list[Memory]:
        with self._s.lock:
            found = [
                m
                for m in self._s.memories.values()
                if (user_id is None or m.user_id == user_id)
                and (companion_id is None or m.companion_id == companion_id)
                and (status is None or m.status is status)
                and (type is None or m.type is type)
                and (not contains or contains.lower() in m.text.lower())
                and (pinned is None or m.pinned == pinned)
                and (held is None or (m.held_until_stage is not None) == held)
                and (expiring is None or (m.expires_at is not None) == expiring)
            ]
        found.sort(key=lambda m: (_sort_value(m, order), str(m.id)), reverse=newest_first)
        return found[offset:] if limit is None else found[offset : offset + limit]

    def iter_all(self, batch_size: int = 1000) -> Iterator[Memory]:
        with self._s.lock:
            every = sorted(self._s.memories.values(), key=lambda m: str(m.id))
        yield from every

    def counts(self, owner: tuple[str, str] | None = None) -> MemoryCounts:
        at = now()
        with self._s.lock:
            every = [
                m
                for m in self._s.memories.values()
                if owner is None or (m.user_id, m.companion_id) == owner
            ]
            passages = [
                p
                for p in self._s.passages.values()
                if owner is None or p.item.companion_id == owner[1]
            ]
            queued = len(self._s.deletions)
            usable = {m.id: self._s.usable(m, at) for m in every}

        def expired(m: Memory) -> bool:
            return m.expires_at is not None and m.expires_at <= at

        pending = [m for m in every if m.index_state is IndexState.PENDING]
        failed = [m for m in pending if m.index_error is not None]
        last_failed = max(failed, key=lambda m: m.updated_at) if failed else None
        return MemoryCounts(
            total=len(every),
            active=sum(m.status is MemoryStatus.ACTIVE for m in every),
            archived=sum(m.status is MemoryStatus.ARCHIVED for m in every),
            expired=sum(expired(m) for m in every),
            held=sum(
                m.status is MemoryStatus.ACTIVE and not usable[m.id] and not expired(m)
                for m in every
            ),
            pending=sum(m.index_state is IndexState.PENDING for m in every),
            indexed=sum(m.index_state is IndexState.INDEXED for m in every),
            with_vector=sum(
                m.index_state is IndexState.INDEXED and m.indexed_model is not None for m in every
            ),
            index_errors=sum(m.index_error is not None for m in every),
            unreadable=0,
            queued_deletions=queued,
            knowledge_passages=len(passages),
            knowledge_pending=sum(p.index_state is IndexState.PENDING for p in passages),
            last_index_error=last_failed.index_error if last_failed else None,
        )

    def import_memories(self, memories: Sequence[Memory]) -> ImportResult:
        """As PostgreSQL does it: one line per fact (the latest wins), a fact another memory
        already states is merged into it, an unchanged row is left alone."""
        with self._s.lock:
            latest: dict[tuple[str, str, str], Memory] = {}
            for m in memories:
                key = (m.user_id, m.companion_id, normalize_text(m.text))
                if key not in latest or m.updated_at > latest[key].updated_at:
                    latest[key] = m
            existing = unchanged = written = 0
            for m in memories:
                if (stored := self._s.memories.get(m.id)) is None:
                    continue
                if (stored.user_id, stored.companion_id) != (m.user_id, m.companion_id):
                    raise ValidationError(moved_by_import(m.id))
                existing += 1
                unchanged += _exported(stored) == _exported(m)
            for m in latest.values():
                owner = self._s.fact_owner(m.user_id, m.companion_id, m.text)
                if owner is not None and owner.id != m.id:
                    continue
                stored = self._s.memories.get(m.id)
                if stored is not None and _exported(stored) == _exported(m):
                    continue
                self._s.memories[m.id] = replace(
                    m,
                    index_state=IndexState.PENDING,
                    indexed_model=stored.indexed_model if stored else None,
                    index_attempts=0,
                    index_error=stored.index_error if stored else None,
                )
                if stored is None:
                    self._s.to_consolidate.add(m.id)
                written += 1
        updated = max(0, existing - unchanged)
        return ImportResult(
            inserted=max(0, written - updated),
            updated=min(updated, written),
            merged_duplicates=max(0, len(memories) - written - unchanged),
            unchanged=unchanged,
        )


_NEVER = datetime.min.replace(tzinfo=UTC)


def _sort_value(memory: Memory, order: MemoryOrder) -> datetime | float:
    """The value PostgreSQL's listing sorts by (a memory never used sorts as the oldest)."""
    if order is MemoryOrder.UPDATED:
        return memory.updated_at
    if order is MemoryOrder.IMPORTANCE:
        return memory.importance
    if order is MemoryOrder.USES:
        return float(memory.use_count)
    if order is MemoryOrder.LAST_USED:
        return memory.last_used_at or _NEVER
    return memory.created_at
