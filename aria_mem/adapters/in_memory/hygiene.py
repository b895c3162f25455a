"""The in-memory twin of the PostgreSQL store's hygiene part: the same rules, for service
tests without a database (``tests/test_hygiene.py`` runs them over both)."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime

from aria_mem.adapters.in_memory.memories import State, now
from aria_mem.domain.asking import as_it_stands
from aria_mem.domain.hygiene import (
    Consolidation,
    EventKind,
    MemoryEvent,
    ReviewItem,
    ReviewKind,
    confirmed_by_repeat,
    last_said,
    moved_question,
    other_of,
    reordered_question,
)
from aria_mem.domain.models import IndexState, Memory, MemoryStatus, MemoryType
from aria_mem.domain.validation import id_prefix, no_memory, only_match
from aria_mem.domain.when import event_dates
from aria_mem.errors import NotFoundError, StoreError, ValidationError


class MemHygiene:
    def __init__(self, state: State) -> None:
        self._s = state

    def _pending(self, memory: Memory, **changes: object) -> Memory:
        changed = replace(
            memory,
            **changes,  # type: ignore[arg-type]
            updated_at=now(),
            index_state=IndexState.PENDING,
            index_attempts=0,
        )
        self._s.memories[memory.id] = changed
        return changed

    def merge_into(
        self,
        memory_id: uuid.UUID,
        *,
        said: str,
        text: str | None,
        importance: float,
        confidence: float,
        detail: str,
    ) -> Memory:
        with self._s.lock:
            current = self._s.memory(memory_id)
            raised = replace(
                current,
                last_confirmed_at=now(),
                importance=max(current.importance, importance),
                confidence=max(current.confidence, confidence),
            )
            if text is not None:
                owner = self._s.fact_owner(current.user_id, current.companion_id, text)
                if owner is not None and owner.id != memory_id:
                    raise ValidationError("That wording is already another memory")
                event_from, event_until = event_dates(text, current.created_at)
                raised = self._pending(
                    raised, text=text, event_from=event_from, event_until=event_until
                )
            self._s.memories[memory_id] = raised
            self._s.record(memory_id, EventKind.MERGED, text=said, detail=detail)
            if text is not None:
                self._s.record(
                    memory_id, EventKind.EDITED, text=current.text, detail="a fuller wording"
                )
            self._reorder_questions(raised, last_said(raised))  # a repeat said now
            return raised

    def supersede(
        self, old_id: uuid.UUID, new_id: uuid.UUID, detail: str, *, merged: bool = False
    ) -> Memory:
        if old_id == new_id:
            raise ValidationError("A memory cannot supersede itself — name another memory")
        with self._s.lock:
            old = self._pending(
                self._s.memory(old_id), status=MemoryStatus.SUPERSEDED, superseded_by=new_id
            )
            self._s.record(old_id, EventKind.SUPERSEDED, other_id=new_id, detail=detail)
            if new_id in self._s.memories:
                self._s.record(new_id, EventKind.REPLACES, other_id=old_id, detail=detail)
                holder = self._s.memories[new_id]
                said_at = max(last_said(holder), last_said(old))
                self._move_questions(old, holder, said_at, merged)
            return old

    def fold(self, new_id: uuid.UUID, into_id: uuid.UUID, detail: str) -> Memory:
        if new_id == into_id:
            raise ValidationError("A memory cannot be merged into itself — name another memory")
        with self._s.lock:
            into = self._s.memory(into_id)
            new = self._pending(
                self._s.memory(new_id), status=MemoryStatus.SUPERSEDED, superseded_by=into_id
            )
            kept = replace(
                into,
                last_confirmed_at=confirmed_by_repeat(into, new),
                importance=max(into.importance, new.importance),
                confidence=max(into.confidence, new.confidence),
            )
            self._s.memories[into_id] = kept
            self._s.record(new_id, EventKind.SUPERSEDED, other_id=into_id, detail=detail)
            self._s.record(into_id, EventKind.MERGED, other_id=new_id, text=new.text, detail=detail)
            self._move_questions(new, kept, max(last_said(into), last_said(new)), True)
            return kept

    def _move_questions(
        self, gone: Memory, holder: Memory, said_at: datetime, merged: bool
    ) -> None:
        """As the PostgreSQL store's: questions about ``gone`` are asked about ``holder``, and
        those about ``holder`` put in the order its statement at ``said_at`` gives them."""
        for item, other in self._asked_about(gone.id):
            moved = moved_question(item, holder, other, said_at=said_at, merged=merged)
            self._put(item, moved)
        self._reorder_questions(holder, said_at)

    def _reorder_questions(self, said: Memory, said_at: datetime) -> None:
        for item, other in self._asked_about(said.id):
            reordered = reordered_question(item, said, other, said_at=said_at)
            if reordered is not None:
                self._put(item, reordered)

    def restated(self, memory_id: uuid.UUID) -> None:
        with self._s.lock:
            if (said := self._s.memories.get(memory_id)) is not None:
                self._reorder_questions(said, last_said(said))

    def _asked_about(self, memory_id: uuid.UUID) -> list[tuple[ReviewItem, Memory | None]]:
        asked = sorted(
            (r for r in self._s.reviews.values() if memory_id in (r.memory_id, r.other_id)),
            key=lambda r: (r.created_at, r.id),
        )
        found = []
        for item in asked:
            other_id = other_of(item, memory_id)
            found.append((item, None if other_id is None else self._s.memories.get(other_id)))
        return found

    def _put(self, item: ReviewItem, changed: ReviewItem | None) -> None:
        del self._s.reviews[item.id]
        if changed is not None and not any(
            (r.kind, r.memory_id, r.other_id) == (changed.kind, changed.memory_id, changed.other_id)
            for r in self._s.reviews.values()
        ):
            self._s.reviews[item.id] = changed

    def restore(self, memory_id: uuid.UUID, detail: str, *, reconsider: bool = False) -> Memory:
        with self._s.lock:
            current = self._s.memory(memory_id)
            if self._s.fact_owner(current.user_id, current.companion_id, current.text) not in (
                None,
                current,
            ):
                raise StoreError("Another memory already says that")
            restored = self._pending(current, status=MemoryStatus.ACTIVE, superseded_by=None)
            if reconsider:
                self._s.to_consolidate.add(memory_id)
            self._s.record(memory_id, EventKind.RESTORED, detail=detail)
            return restored

    def retire(self, memory_id: uuid.UUID, detail: str) -> Memory:
        with self._s.lock:
            current = self._s.memory(memory_id)
            if current.status is not MemoryStatus.ACTIVE:
                raise no_memory(memory_id)
            retired = self._pending(current, status=MemoryStatus.ARCHIVED)
            self._s.record(memory_id, EventKind.RETIRED, detail=detail)
            return retired

    def keep(self, memory_id: uuid.UUID, detail: str) -> None:
        with self._s.lock:
            self._s.memory(memory_id)
            self._s.record(memory_id, EventKind.KEPT, detail=detail)

    def events(self, memory_ids: Sequence[uuid.UUID]) -> list[MemoryEvent]:
        wanted = set(memory_ids)
        with self._s.lock:
            return [e for e in self._s.events if e.memory_id in wanted]

    def replaced_by(self, memory_id: uuid.UUID) -> list[Memory]:
        with self._s.lock:
            found = [m for m in self._s.memories.values() if m.superseded_by == memory_id]
        return sorted(found, key=lambda m: m.created_at)

    def retirement_candidates(self, older_than: datetime, limit: int) -> list[Memory]:
        kept = {MemoryType.PROFILE_FACT, MemoryType.BOUNDARY}
        with self._s.lock:
            asked = {e.memory_id for e in self._s.events if e.kind is EventKind.KEPT}
            found = [
                m
                for m in self._s.memories.values()
                if m.status is MemoryStatus.ACTIVE
                and not m.pinned
                and m.type not in kept
                and m.id not in asked
                and max(t for t in (m.created_at, m.last_used_at, m.last_confirmed_at) if t)
                < older_than
            ]
        return sorted(found, key=lambda m: m.created_at)[:limit]

    def propose(self, item: ReviewItem) -> bool:
        with self._s.lock:
            asked = as_it_stands(item, self._s.memories.get, self._merged)
            if asked is None:
                return False
            item = asked
            either_way = {(item.memory_id, item.other_id), (item.other_id, item.memory_id)}
            if any(  # one question a pair, either way round
                r.kind is item.kind and (r.memory_id, r.other_id) in either_way
                for r in self._s.reviews.values()
            ):
                return False
            self._s.reviews[item.id] = item
            return True

    def settle_questions(self, memory_ids: Sequence[uuid.UUID]) -> int:
        with self._s.lock:
            wanted = set(memory_ids)
            asked = sorted(
                (r for r in self._s.reviews.values() if {r.memory_id, r.other_id} & wanted),
                key=lambda r: (r.created_at, r.id),
            )
            changed = 0
            for item in asked:
                now_asked = as_it_stands(
                    item, self._s.memories.get, self._merged, retired_stand=True
                )
                if now_asked != item:
                    self._put(item, now_asked)
                    changed += 1
            return changed

    def _merged(self, gone: Memory, holder: Memory) -> datetime | None:
        """As the PostgreSQL store's: the last merge of ``gone`` into ``holder`` not undone."""
        events = self._s.events
        restored = [e.at for e in events if (e.memory_id, e.kind) == (gone.id, EventKind.RESTORED)]
        merges = [
            e.at
            for e in events
            if (e.memory_id, e.kind, e.other_id) == (holder.id, EventKind.MERGED, gone.id)
            and not any(at > e.at for at in restored)
        ]
        return max(merges, default=None)

    def reviews(
        self,
        user_id: str | None,
        companion_id: str | None,
        *,
        limit: int | None = None,
        offset: int = 0,
    ) -> list[ReviewItem]:
        with self._s.lock:
            found = [
                r
                for r in self._s.reviews.values()
                if (user_id is None or r.user_id == user_id)
                and (companion_id is None or r.companion_id == companion_id)
            ]
        ordered = sorted(found, key=lambda r: (r.created_at, str(r.id)))
        return ordered[offset : None if limit is None else offset + limit]

    def asked_against(self, memory_id: uuid.UUID) -> list[uuid.UUID]:
        with self._s.lock:
            found = sorted(
                (
                    r
                    for r in self._s.reviews.values()
                    if r.memory_id == memory_id and r.kind is not ReviewKind.RETIRE
                ),
                key=lambda r: (r.created_at, str(r.id)),
            )
        return [r.other_id for r in found if r.other_id is not None]

    def count_reviews(self, user_id: str | None, companion_id: str | None) -> int:
        return len(self.reviews(user_id, companion_id))

    def review_memories(
        self, review_ids: Sequence[uuid.UUID], user_id: str | None, companion_id: str | None
    ) -> list[Memory]:
        found: dict[uuid.UUID, Memory] = {}
        with self._s.lock:
            for review_id in review_ids:
                item = self._s.reviews.get(review_id)
                if item is None or user_id not in (None, item.user_id):
                    continue
                if companion_id not in (None, item.companion_id):
                    continue
                owner = (item.user_id, item.companion_id)
                for named in (item.memory_id, item.other_id):
                    m = self._s.memories.get(named) if named is not None else None
                    if m is not None and (m.user_id, m.companion_id) == owner:
                        found[m.id] = m
        return list(found.values())

    def find_review(self, prefix: str, owner: tuple[str, str] | None) -> ReviewItem:
        wanted = id_prefix(prefix, "review item", "aria-mem review")
        with self._s.lock:
            found = [
                r
                for r in self._s.reviews.values()
                if str(r.id).startswith(wanted)
                and (owner is None or (r.user_id, r.companion_id) == owner)
            ]
        if not found:
            raise NotFoundError(f"No review item {prefix!r} — `aria-mem review` lists them")
        return only_match(found, prefix, "review items", "aria-mem review")

    def close_review(self, review_id: uuid.UUID) -> None:
        with self._s.lock:
            self._s.reviews.pop(review_id, None)

    def to_consolidate(self, limit: int, owner: tuple[str, str] | None = None) -> list[Memory]:
        with self._s.lock:
            found = [
                self._s.memories[i]
                for i in self._s.to_consolidate
                if i in self._s.memories
                and (
                    owner is None
                    or (self._s.memories[i].user_id, self._s.memories[i].companion_id) == owner
                )
            ]
        return sorted(found, key=lambda m: (m.created_at, str(m.id)))[:limit]

    def consolidated(self, memory_id: uuid.UUID, action: Consolidation | None) -> None:
        with self._s.lock:
            if memory_id not in self._s.to_consolidate:
                return
            self._s.to_consolidate.discard(memory_id)
            if action is None or memory_id not in self._s.memories:
                return
            if action.other_id is not None and action.other_id not in self._s.memories:
                return
            self._s.consolidations[action.id] = action

    def consolidations(
        self, user_id: str | None, companion_id: str | None, limit: int
    ) -> list[Consolidation]:
        with self._s.lock:
            found = [
                c
                for c in self._s.consolidations.values()
                if (user_id is None or c.user_id == user_id)
                and (companion_id is None or c.companion_id == companion_id)
            ]
        return sorted(found, key=lambda c: c.at, reverse=True)[:limit]

    def find_consolidation(self, prefix: str, owner: tuple[str, str] | None) -> Consolidation:
        wanted = id_prefix(prefix, "pass action", "aria-mem tidy --list")
        with self._s.lock:
            found = [
                c
                for c in self._s.consolidations.values()
                if str(c.id).startswith(wanted)
                and (owner is None or (c.user_id, c.companion_id) == owner)
            ]
        if not found:
            raise NotFoundError(f"No pass action {prefix!r} — `aria-mem tidy --list` lists them")
        return only_match(found, prefix, "pass actions", "aria-mem tidy --list")

    def mark_undone(self, action_id: uuid.UUID) -> None:
        with self._s.lock:
            action = self._s.consolidations.get(action_id)
            if action is None:
                raise NotFoundError("No such pass action — `aria-mem tidy --list` lists them")
            if action.undone_at is not None:
                raise ValidationError("That pass action was undone already — nothing to undo")
            self._s.consolidations[action_id] = replace(action, undone_at=now())

    def add_events(self, events: Sequence[MemoryEvent]) -> int:
        with self._s.lock:
            known = {(e.memory_id, e.kind, e.at, e.other_id) for e in self._s.events}
            added = 0
            for e in events:
                key = (e.memory_id, e.kind, e.at, e.other_id)
                if e.memory_id in self._s.memories and key not in known:
                    self._s.events.append(e)
                    known.add(key)
                    added += 1
            self._s.events.sort(key=lambda e: e.at)
            return added
