"""Saving and changing memories: PostgreSQL first, then the index.

Every change is committed to PostgreSQL before the index hears of it. If the embedder or the
index cannot be reached the memory stays pending (the result says why) and a later pass indexes
it; nothing is lost.
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass, replace
from datetime import UTC, datetime

from aria_mem.domain import validation
from aria_mem.domain.hygiene import more_informative
from aria_mem.domain.models import IndexState, Memory, MemoryStatus, NewMemory
from aria_mem.domain.payload import memory_entry
from aria_mem.domain.records import MemoryChanges, SaveOutcome
from aria_mem.domain.usability import is_usable, used_differently
from aria_mem.errors import NotFoundError, ServiceError, ValidationError
from aria_mem.ports import Hygiene, MemoryRepository, Relationships
from aria_mem.services.curator import Curator
from aria_mem.services.indexer import Indexer

log = logging.getLogger(__name__)

SAID_AGAIN = "said again in the same words"
"""Why a superseded or retired memory is active again (its history shows it)."""


@dataclass(frozen=True)
class WriteResult:
    memory: Memory
    created: bool = True
    indexed: bool = False
    problem: str | None = None
    """Why the index could not be updated now (the memory is saved and stays pending)."""
    merged: bool = False
    """The new memory said what ``memory`` already said: merged into it, not stored twice."""
    superseded: Memory | None = None
    """The memory this one replaced (kept, never retrieved; ``history`` shows it)."""
    review: int = 0
    """Likely conflicts with known memories queued for a person (`aria-mem review`): none
    on a write since consolidation is a pass's (kept for the callers that show it)."""
    note: str = ""
    """Why it was merged or superseded, or why it was not compared with known memories."""
    restored: bool = False
    """The same words as a memory replaced or retired since: that memory is active again."""


class MemoryWriter:
    def __init__(
        self,
        memories: MemoryRepository,
        relationships: Relationships,
        indexer: Indexer | None,
        *,
        hygiene: Hygiene | None = None,
        curator: Curator | None = None,
    ) -> None:
        """``indexer`` may be None to save without touching the index (e.g. bulk work);
        without ``curator`` nothing is merged or judged, without ``hygiene`` nothing can be
        superseded."""
        self._memories = memories
        self._relationships = relationships
        self._indexer = indexer
        self._hygiene = hygiene
        self._curator = curator

    def sync(self, memory: Memory) -> WriteResult:
        """Bring the index in line with a memory changed elsewhere (its vector goes when it
        may no longer be used)."""
        return self._sync(memory, False)

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

    def remember(
        self,
        new: NewMemory,
        *,
        merge: bool = True,
        replaces: uuid.UUID | None = None,
    ) -> WriteResult:
        """Save a memory. ``replaces``: it supersedes that memory. ``merge``: a repeat of one
        of the pair's nearest memories that differs in no particular is merged into it now;
        anything else is stored, marked to consolidate in the same transaction, and judged
        later by a consolidation pass (``services.consolidator``), never on this path.
        ``merge=False`` stores it as given."""
        new = validation.new_memory(new)
        if replaces is not None:
            return self.replace(replaces, new, "replaced as asked")
        note = ""
        if merge and self._curator is not None:
            look = self._curator.look(new)  # the same words said before: confirmed, not merged
            note = look.problem or ""
            decision = self._curator.decide(new, look)
            repeat = decision.merge_into  # merged only where it may be used as the new one may
            if repeat and not look.said_before and not used_differently(new, repeat.memory):
                return self._merge(new, repeat.memory, decision.why)
        outcome = self._memories.save(new)
        was = outcome.memory.status
        if not outcome.created:  # the same words, said again
            outcome = self._said_again(outcome, reconsider=True)
            self._restated(outcome.memory.id)
        if outcome.created or outcome.memory.index_state is IndexState.PENDING:
            result = self._sync(outcome.memory, outcome.created)
        else:
            result = WriteResult(outcome.memory, created=False, indexed=True)
        if was is not outcome.memory.status:
            note = f"{SAID_AGAIN}: it was {was.value}, and is active again until a pass judges it"
            return replace(result, note=note, restored=True)
        return replace(result, note=note) if note and outcome.created else result

    def _said_again(self, outcome: SaveOutcome, *, reconsider: bool) -> SaveOutcome:
        """The same words as a memory superseded or retired since: said now, so current again.
        It is active again, and ``reconsider``: judged by the next pass against what replaced
        it, as a new memory is (a change back is a change like any other, and without a judge
        it is asked). Only confirming the old row kept the latest statement out of every
        prompt, and replacing with it made a loop of two superseded memories."""
        if self._hygiene is None or outcome.memory.status is MemoryStatus.ACTIVE:
            return outcome
        restored = self._hygiene.restore(outcome.memory.id, SAID_AGAIN, reconsider=reconsider)
        return SaveOutcome(restored, created=False)

    def _merge(self, new: NewMemory, known: Memory, why: str) -> WriteResult:
        assert self._hygiene is not None
        wording = more_informative(known.text, new.text)
        text = None if wording == known.text else wording
        try:
            merged = self._hygiene.merge_into(
                known.id,
                said=new.text,
                text=text,
                importance=new.importance,
                confidence=new.confidence,
                detail=why,
            )
        except ValidationError:  # the fuller wording is another memory's: keep this one's
            merged = self._hygiene.merge_into(
                known.id,
                said=new.text,
                text=None,
                importance=new.importance,
                confidence=new.confidence,
                detail=why,
            )
        if new.pinned and not merged.pinned:  # the pin asked for stays on the fact
            merged = self._memories.edit(known.id, MemoryChanges(pinned=True))
        if merged.index_state is IndexState.PENDING:
            result = self._sync(merged, False)
        else:
            result = WriteResult(merged, created=False, indexed=True)
        return replace(result, merged=True, note=why)

    def replace(self, old_id: uuid.UUID, new: NewMemory, why: str) -> WriteResult:
        """Store ``new`` and supersede ``old_id`` with it (kept in its history)."""
        if self._hygiene is None:
            raise ValidationError("This store cannot supersede memories")
        new = validation.new_memory(new)
        old = self._memories.get(old_id)  # refused before anything is written
        if (old.user_id, old.companion_id) == (new.user_id, new.companion_id) and (
            validation.normalize_text(old.text) == validation.normalize_text(new.text)
        ):
            raise ValidationError(
                "The new text is what that memory already says — edit it instead, or give "
                "what changed"
            )
        outcome = self._memories.save(new)
        was = outcome.memory.status
        outcome = self._said_again(outcome, reconsider=False)
        old = self._hygiene.supersede(old_id, outcome.memory.id, why)
        self._sync(old, False)
        result = self._sync(outcome.memory, outcome.created)
        restored = was is not outcome.memory.status
        return replace(result, superseded=old, note=why, restored=restored)

    def restore(self, memory_id: uuid.UUID, why: str) -> WriteResult:
        """A superseded or retired memory is active again (and indexed)."""
        if self._hygiene is None:
            raise ValidationError("This store cannot restore memories")
        return self._sync(self._hygiene.restore(memory_id, why), False)

    def retire(self, memory_id: uuid.UUID, why: str) -> WriteResult:
        """Archive a stale memory (reversible with ``restore``); its vector goes."""
        if self._hygiene is None:
            raise ValidationError("This store cannot retire memories")
        return self._sync(self._hygiene.retire(memory_id, why), False)

    def update(self, memory_id: uuid.UUID, changes: MemoryChanges) -> WriteResult:
        """Apply the changes in one transaction; the memory is indexed again."""
        if changes.clear_expiry and changes.expires_at is not None:
            raise ValidationError(
                "An update either sets a new expiry or clears it, not both — drop one of them"
            )
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
            joins=changes.joins if changes.text is not None else None,
            unjoins=changes.unjoins if changes.text is not None else None,
        )
        if checked == MemoryChanges():
            raise ValidationError(
                "Nothing to change — give a new text, importance, emotional significance, "
                "confidence, reason, expiry, pinned or archived"
            )
        return self._sync(self._memories.edit(memory_id, checked))

    def text_of(self, memory_id: uuid.UUID) -> str:
        return self._memories.get(memory_id).text

    def confirm(self, memory_id: uuid.UUID) -> WriteResult:
        memory = self._memories.confirm(memory_id)
        self._restated(memory_id)
        return WriteResult(memory, created=False, indexed=memory.index_state is IndexState.INDEXED)

    def _restated(self, memory_id: uuid.UUID) -> None:
        """The questions about a memory said again are put in order; the memory is kept
        whatever happens to them (a failure here is logged, and the next statement of it or
        merge into it orders them again)."""
        if self._hygiene is None:
            return
        try:
            self._hygiene.restated(memory_id)
        except ServiceError as exc:
            log.warning("questions about memory %s not put in order: %s", memory_id, exc)

    def forget(self, memory_id: uuid.UUID) -> WriteResult:
        """Delete for good; the vector's removal is queued in the same transaction and
        carried out now if the index answers, else by a later pass. A memory a pass joined it
        into has its own wording back (the store does it in the same transaction), marked to
        be indexed again: now, when the forgotten memory had been merged into it."""
        memory = self._memories.delete(memory_id)
        if self._indexer is None:
            return WriteResult(memory, False, False, "vector removal queued")
        if memory.superseded_by is not None:
            self._index_again(memory.superseded_by)
        try:
            report = self._indexer.run_deletions()
        except ServiceError as exc:
            return WriteResult(memory, False, False, f"vector removal queued: {exc}")
        if report.errors:
            return WriteResult(
                memory, False, False, "vector removal queued: " + "; ".join(report.errors)
            )
        return WriteResult(memory, False, True)

    def _index_again(self, memory_id: uuid.UUID) -> None:
        """The memory a forgotten one was merged into, if its text changed with the forget; the
        forget is done whatever happens here (a later pass indexes it: it is marked pending)."""
        try:
            kept = self._memories.get(memory_id)
            if kept.index_state is IndexState.PENDING:
                self._sync(kept, False)
        except (NotFoundError, ServiceError) as exc:
            log.info("memory %s left for the next pass to index: %s", memory_id, exc)


def _unit(name: str, value: float | None) -> float | None:
    return None if value is None else validation.unit_interval(name, value)
