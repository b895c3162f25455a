"""A memory's history (what replaced it, what it replaced, what happened to it) and the review
queue's decisions: accept, reject, or edit what a proposal is about."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from aria_mem.domain.hygiene import MemoryEvent, ReviewItem, ReviewKind
from aria_mem.domain.models import Memory, MemoryStatus
from aria_mem.domain.records import MemoryChanges
from aria_mem.errors import NotFoundError, ValidationError
from aria_mem.ports import Hygiene, MemoryRepository
from aria_mem.services.writer import MemoryWriter, WriteResult

MAX_CHAIN = 100
"""A chain longer than this is cut (a loop an older aria-mem could not have made)."""


@dataclass(frozen=True)
class History:
    memory: Memory
    chain: tuple[Memory, ...]
    """Every version of this fact, oldest first (``memory`` among them): what it replaced
    and what replaced it, each with its text and dates."""
    events: tuple[MemoryEvent, ...]
    """What happened to each of them (merges, edits with the text before, supersessions,
    restores, retirements), oldest first."""


def history(memories: MemoryRepository, hygiene: Hygiene, memory: Memory) -> History:
    """The chain stays within ``memory``'s user and companion: an imported chain can name
    another pair's memory, whose text is never shown here."""
    owner = (memory.user_id, memory.companion_id)
    older: list[Memory] = []
    frontier = [memory]
    seen = {memory.id}
    while frontier and len(seen) < MAX_CHAIN:
        replaced = [
            m
            for f in frontier
            for m in hygiene.replaced_by(f.id)
            if m.id not in seen and (m.user_id, m.companion_id) == owner
        ]
        seen.update(m.id for m in replaced)
        older = replaced + older
        frontier = replaced
    newer: list[Memory] = []
    current = memory
    while current.superseded_by is not None and len(seen) < MAX_CHAIN:
        try:
            current = memories.get(current.superseded_by)
        except NotFoundError:
            break
        if current.id in seen or (current.user_id, current.companion_id) != owner:
            break
        seen.add(current.id)
        newer.append(current)
    chain = [*sorted(older, key=lambda m: m.created_at), memory, *newer]
    return History(memory, tuple(chain), tuple(hygiene.events([m.id for m in chain])))


@dataclass(frozen=True)
class Decided:
    item: ReviewItem
    accepted: bool
    result: WriteResult | None = None


class Review:
    def __init__(self, memories: MemoryRepository, hygiene: Hygiene, writer: MemoryWriter) -> None:
        self._memories = memories
        self._hygiene = hygiene
        self._writer = writer

    def accept(self, item: ReviewItem) -> Decided:
        """A merge: the newer memory is merged into the older; a conflict: the newer one
        supersedes the older; a retirement: the memory is archived."""
        if item.kind is ReviewKind.RETIRE:
            result = self._writer.retire(item.memory_id, "retired after review: " + item.reason)
        else:
            newer = self._other(item)
            if item.kind is ReviewKind.MERGE:
                result = self._supersede(newer, item.memory_id, "merged after review", merged=True)
            else:
                result = self._supersede(item.memory_id, newer, "superseded after review")
        self._hygiene.close_review(item.id)
        return Decided(item, True, result)

    def reject(self, item: ReviewItem) -> Decided:
        """Both stay as they are; the question is not asked again for the same memories."""
        if item.kind is ReviewKind.RETIRE:
            self._hygiene.keep(item.memory_id, "kept after review")
        self._hygiene.close_review(item.id)
        return Decided(item, False)

    def edit(self, item: ReviewItem, text: str) -> Decided:
        """Say it right: the item's memory gets ``text`` (the old text stays in its history);
        for a merge or a conflict the other memory is superseded by it."""
        if item.kind is not ReviewKind.RETIRE:  # checked before anything is written
            self._may_supersede(self._other(item), item.memory_id)
        result = self._writer.update(item.memory_id, MemoryChanges(text=text))
        self._writer.confirm(item.memory_id)  # the person says it now
        if item.kind is not ReviewKind.RETIRE:
            self._supersede(
                self._other(item), item.memory_id, "folded in after review", merged=True
            )
        self._hygiene.close_review(item.id)
        return Decided(item, True, result)

    def _other(self, item: ReviewItem) -> uuid.UUID:
        if item.other_id is None:
            raise ValidationError("This review item names only one memory")
        return item.other_id

    def _supersede(
        self, old_id: uuid.UUID, new_id: uuid.UUID, why: str, *, merged: bool = False
    ) -> WriteResult:
        """``merged``: the person found the two one fact (an accepted merge, an edit); a pin
        on either goes with the fact."""
        self._may_supersede(old_id, new_id)
        self._hygiene.supersede(old_id, new_id, why, merged=merged)
        old = self._memories.get(old_id)
        if merged and old.pinned and not self._memories.get(new_id).pinned:
            self._writer.update(new_id, MemoryChanges(pinned=True))
        return self._writer.sync(old)

    def _may_supersede(self, old_id: uuid.UUID, new_id: uuid.UUID) -> None:
        old = self._memories.get(old_id)
        if old.status is MemoryStatus.SUPERSEDED:
            raise ValidationError(
                f"Memory {old_id} is already superseded — reject this item, or restore it first"
            )
        new = self._memories.get(new_id)
        if new.status is not MemoryStatus.ACTIVE:  # it would take the other out of every prompt
            raise ValidationError(
                f"Memory {new_id} is {new.status.value}, so nothing can be merged into it or "
                "replaced by it — reject this item, or restore that memory first"
            )
