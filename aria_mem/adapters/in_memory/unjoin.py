"""The in-memory twin of ``adapters/postgres/unjoin.py``: forgetting a memory a pass joined into
another gives the other its own wording back (``domain.unjoining``), or refuses."""

from __future__ import annotations

import uuid
from dataclasses import replace
from datetime import UTC, datetime
from typing import Protocol

from aria_mem.domain.hygiene import Consolidation, EventKind, MemoryEvent
from aria_mem.domain.models import IndexState, Memory
from aria_mem.domain.unjoining import is_join, own_wording, wording_taken
from aria_mem.domain.when import event_dates


class State(Protocol):
    """What of the in-memory store's state this reads and changes."""

    memories: dict[uuid.UUID, Memory]
    events: list[MemoryEvent]
    consolidations: dict[uuid.UUID, Consolidation]

    def fact_owner(self, user_id: str, companion_id: str, text: str) -> Memory | None: ...


def give_back_wordings(state: State, memory_id: uuid.UUID) -> None:
    """Before ``memory_id`` is dropped, under the state's lock: every change is checked first,
    so a refusal leaves everything as it was."""
    kept = {
        e.memory_id for e in state.events if e.other_id == memory_id and e.kind is EventKind.EDITED
    } | {
        c.other_id
        for c in state.consolidations.values()
        if c.memory_id == memory_id and is_join(c) and c.other_id is not None
    }
    given: dict[uuid.UUID, str] = {}
    for other in sorted(k for k in kept if k in state.memories):
        history = [e for e in state.events if e.memory_id == other]
        merged_on = any(e.other_id == other and e.kind is EventKind.MERGED for e in state.events)
        own = own_wording(memory_id, other, history, merged_on)
        memory = state.memories[other]
        owner = state.fact_owner(memory.user_id, memory.companion_id, own)
        if owner is not None and owner.id != other:
            raise wording_taken(memory_id, other)
        given[other] = own
    for other, own in given.items():
        memory = state.memories[other]
        event_from, event_until = event_dates(own, memory.created_at)
        state.memories[other] = replace(
            memory,
            text=own,
            event_from=event_from,
            event_until=event_until,
            updated_at=datetime.now(UTC),
            index_state=IndexState.PENDING,
            index_attempts=0,
        )
