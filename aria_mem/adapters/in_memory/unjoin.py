"""The in-memory twin of ``adapters/postgres/unjoin.py``: forgetting a memory a pass joined into
another gives the other its own wording back (``domain.unjoining``), or refuses."""

from __future__ import annotations

import uuid
from dataclasses import replace
from datetime import UTC, datetime
from typing import Protocol

from aria_mem.domain.hygiene import Consolidation, EventKind, MemoryEvent, ReviewItem
from aria_mem.domain.models import IndexState, Memory
from aria_mem.domain.unjoining import (
    CLOCK_SLACK,
    is_join,
    join_edit,
    own_wording,
    wording_taken,
)
from aria_mem.domain.when import event_dates


class State(Protocol):
    """What of the in-memory store's state this reads and changes."""

    memories: dict[uuid.UUID, Memory]
    events: list[MemoryEvent]
    consolidations: dict[uuid.UUID, Consolidation]
    reviews: dict[uuid.UUID, ReviewItem]

    def fact_owner(self, user_id: str, companion_id: str, text: str) -> Memory | None: ...


def wordings_back(state: State, memory_id: uuid.UUID) -> dict[uuid.UUID, str]:
    """Before ``memory_id`` is dropped, under the state's lock: each memory a join gave its
    words, with the wording to give it back; a ``ValidationError`` changes nothing."""
    joined = {
        e.memory_id for e in state.events if e.other_id == memory_id and e.kind is EventKind.EDITED
    } | {
        c.other_id
        for c in state.consolidations.values()
        if c.memory_id == memory_id and is_join(c) and c.other_id is not None
    }
    gone = state.memories.get(memory_id)
    if gone is None:
        return {}  # the delete says it is not found
    pair = (gone.user_id, gone.companion_id)
    named = [(r.memory_id, r.other_id, r.created_at) for r in state.reviews.values()]
    named += [  # what questions and pass actions name, and when (the join's own aside)
        (c.memory_id, c.other_id, c.at)
        for c in state.consolidations.values()
        if c.memory_id != memory_id
    ]
    given: dict[uuid.UUID, str] = {}
    for kept in sorted(k for k in joined if k in state.memories):
        if (state.memories[kept].user_id, state.memories[kept].companion_id) != pair:
            continue  # another pair's, whatever an imported history says
        history = [e for e in state.events if e.memory_id == kept]
        at = history[join_edit(memory_id, kept, history)].at
        memory = state.memories[kept]
        given[kept] = own_wording(
            memory_id,
            kept,
            history,
            merged_on=any(e.other_id == kept and e.kind is EventKind.MERGED for e in state.events),
            asked_since=any(
                kept in (first, second) and when > at - CLOCK_SLACK for first, second, when in named
            ),
            said_since=memory.last_confirmed_at is not None and memory.last_confirmed_at > at,
        )
        owner = state.fact_owner(memory.user_id, memory.companion_id, given[kept])
        if owner is not None and owner.id not in (kept, memory_id):
            raise wording_taken(memory_id, kept)
    return given


def give_back(state: State, given: dict[uuid.UUID, str]) -> None:
    """After the forgotten memory is dropped: each wording back, recorded nowhere, indexed
    again."""
    for kept, own in given.items():
        memory = state.memories[kept]
        event_from, event_until = event_dates(own, memory.created_at)
        state.memories[kept] = replace(
            memory,
            text=own,
            event_from=event_from,
            event_until=event_until,
            updated_at=datetime.now(UTC),
            index_state=IndexState.PENDING,
            index_attempts=0,
        )
