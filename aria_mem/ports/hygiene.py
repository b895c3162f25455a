"""The store's part for memory over months (``domain.hygiene`` has the rules)."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import Protocol

from aria_mem.domain.hygiene import Consolidation, MemoryEvent, ReviewItem
from aria_mem.domain.models import Memory


class Hygiene(Protocol):
    """Supersession, merges, retirement, each memory's history and the review queue. Every
    change is one transaction with the event it records."""

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
        """A repeat (``said``) merged into the memory: confirmed now, importance and
        confidence raised to these, its text replaced by ``text`` when given (then pending)."""
        ...

    def restated(self, memory_id: uuid.UUID) -> None:
        """``memory_id`` was said again (confirmed): the likely changes asked about it are put
        with the memory stated last second (``domain.hygiene.reordered_question``), so
        accepting one lets the latest statement win. A merge does the same by itself."""
        ...

    def supersede(
        self, old_id: uuid.UUID, new_id: uuid.UUID, detail: str, *, merged: bool = False
    ) -> Memory:
        """``old_id`` is replaced by ``new_id``: superseded, never retrieved; returns it.
        The open questions about ``old_id`` are asked about ``new_id``
        (``domain.hygiene.moved_question``): as after a merge when ``merged`` (a person found
        the two one fact), else as after a change."""
        ...

    def fold(self, new_id: uuid.UUID, into_id: uuid.UUID, detail: str) -> Memory:
        """A consolidation pass found ``new_id`` says what ``into_id`` says: ``new_id`` is
        superseded by it (kept, restorable), and ``into_id`` is confirmed now, its importance
        and confidence raised to the new one's and the new wording recorded in its history
        (a merged event naming ``new_id``). Returns ``into_id``'s memory."""
        ...

    def restore(self, memory_id: uuid.UUID, detail: str, *, reconsider: bool = False) -> Memory:
        """A superseded or retired memory is active again (pending, to be indexed);
        ``reconsider``: and marked for the next consolidation pass to judge, as a new memory
        is (it was said again, so what replaced it may be the one out of date)."""
        ...

    def retire(self, memory_id: uuid.UUID, detail: str) -> Memory: ...
    def keep(self, memory_id: uuid.UUID, detail: str) -> None:
        """A person chose to keep it: it is not proposed for retirement again."""
        ...

    def events(self, memory_ids: Sequence[uuid.UUID]) -> list[MemoryEvent]:
        """Oldest first."""
        ...

    def replaced_by(self, memory_id: uuid.UUID) -> list[Memory]:
        """The memories ``memory_id`` superseded (or that were merged into it)."""
        ...

    def retirement_candidates(self, older_than: datetime, limit: int) -> list[Memory]:
        """Active, unpinned memories nobody created, confirmed or used since ``older_than``
        (the rule in ``domain.hygiene.stale`` decides)."""
        ...

    def propose(self, item: ReviewItem) -> bool:
        """Queue it for a person, about the memories as they stand now
        (``domain.asking.as_it_stands``: a memory merged away or superseded since the question
        was thought of gives way to the one that stands for it); False when the same question
        is already open, or nothing is left to ask (a memory forgotten or retired meanwhile)."""
        ...

    def settle_questions(self, memory_ids: Sequence[uuid.UUID]) -> int:
        """The open questions naming any of ``memory_ids`` asked about the memories as they
        stand (``domain.asking.as_it_stands``; one on a retired memory stays, as retiring
        leaves it): an import writes a memory superseded without moving its questions as a
        merge does. How many were moved or closed."""
        ...

    def reviews(
        self,
        user_id: str | None,
        companion_id: str | None,
        *,
        limit: int | None = None,
        offset: int = 0,
    ) -> list[ReviewItem]:
        """Oldest first, then by id, so that pages (``offset``, ``limit``) neither overlap nor
        skip an item while the queue stands still."""
        ...

    def asked_against(self, memory_id: uuid.UUID) -> list[uuid.UUID]:
        """The other memories of the open merge and conflict items naming ``memory_id`` first
        (its likely later wordings or values), oldest item first."""
        ...

    def count_reviews(self, user_id: str | None, companion_id: str | None) -> int: ...
    def review_memories(
        self, review_ids: Sequence[uuid.UUID], user_id: str | None, companion_id: str | None
    ) -> list[Memory]:
        """The memories these items name, as they are now, read at once (a page of the queue
        would otherwise cost two look-ups per item): each only if it is of its item's own user
        and companion; one forgotten since, an id that is no open item, or an item of another
        user or companion than the ones given (None: any) gives nothing."""
        ...

    def find_review(self, prefix: str, owner: tuple[str, str] | None) -> ReviewItem: ...
    def close_review(self, review_id: uuid.UUID) -> None: ...

    # -- consolidation in the background ---------------------------------------------------

    def to_consolidate(self, limit: int, owner: tuple[str, str] | None = None) -> list[Memory]:
        """Memories written but not yet judged against their nearest ones, oldest first
        (whatever their status: a pass clears the mark of one no longer active)."""
        ...

    def consolidated(self, memory_id: uuid.UUID, action: Consolidation | None) -> None:
        """The pass is done with the memory: its mark is cleared and ``action`` recorded, in
        one transaction (a memory forgotten meanwhile is no error)."""
        ...

    def consolidations(
        self, user_id: str | None, companion_id: str | None, limit: int
    ) -> list[Consolidation]:
        """What the passes did, newest first."""
        ...

    def find_consolidation(self, prefix: str, owner: tuple[str, str] | None) -> Consolidation: ...
    def mark_undone(self, action_id: uuid.UUID) -> None:
        """Raise ValidationError when it was undone already."""
        ...

    def add_events(self, events: Sequence[MemoryEvent]) -> int:
        """History restored by an import: each event not already there, of a memory that is
        stored (others are skipped); how many were added."""
        ...
