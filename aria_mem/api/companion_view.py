"""What the companion's model may see of a user's memories through its own door (MCP): every
memory of the pair but those held until a closer stage of the relationship than the pair's now.

A held memory is "stored, never retrieved, until the stage allows it" (docs/design.md). Search
already drops it; a model that could list it, read its history or act on it by id would have
it in its context early all the same. So to the model it does not exist: a held memory's id
gets the answer an id of another user's gets. The person sees everything (the CLI, the API,
the review page); the stage, read at each call, releases what it allows.
"""

from __future__ import annotations

import builtins
import dataclasses
import uuid

from aria_mem.api.facade import AriaMem
from aria_mem.domain.models import Memory, MemoryStatus, Stage
from aria_mem.errors import AmbiguousIdError, NotFoundError
from aria_mem.services.review import History


class CompanionView:
    """One pair's memories as the companion's model may see them."""

    def __init__(self, memory: AriaMem, *, user: str, companion: str) -> None:
        self._memory = memory
        self._user = user
        self._companion = companion

    def _stage(self) -> Stage:
        return self._memory.relationship.stage(user=self._user, companion=self._companion)

    def _missing(self, memory_id: str) -> NotFoundError:
        return NotFoundError(
            f"No memory with id {memory_id} for this user — list_memories shows them"
        )

    def get(self, memory_id: str, stage: Stage | None = None) -> Memory:
        """The memory, if it is this pair's and not held at ``stage`` (the pair's now, read
        here when not given). Ids and prefixes are only ever matched among this pair's
        memories (the API scopes them), and every miss gets one answer, so none depends on what
        anyone else has stored or what is held."""
        try:
            found = self._memory.get(memory_id, user=self._user, companion=self._companion)
        except AmbiguousIdError:
            raise  # among this user's own memories: says nothing of anyone else's
        except NotFoundError:
            raise self._missing(memory_id) from None
        if not (stage or self._stage()).allows(found.held_until_stage):
            raise self._missing(memory_id)
        return found

    def list(self, status: MemoryStatus | None, limit: int) -> builtins.list[Memory]:
        """Up to ``limit`` of the pair's memories not held now, oldest first: the pages the
        store gives are read on until ``limit`` are shown or none are left."""
        stage = self._stage()
        shown: builtins.list[Memory] = []
        offset = 0
        while len(shown) < limit:
            page = self._memory.list(
                user=self._user,
                companion=self._companion,
                status=status,
                limit=limit,
                offset=offset,
            )
            shown += [m for m in page if stage.allows(m.held_until_stage)]
            if len(page) < limit:
                break
            offset += len(page)
        return shown[:limit]

    def history(self, memory_id: str) -> History:
        """The history of a memory not held now, without the versions held now (a replaced
        version keeps its own hold) or what happened to them."""
        stage = self._stage()
        target = self.get(memory_id, stage)
        found = self._memory.history(target.id, user=self._user, companion=self._companion)
        hidden: set[uuid.UUID] = {m.id for m in found.chain if not stage.allows(m.held_until_stage)}
        shown = [m for m in found.chain if m.id not in hidden]
        return dataclasses.replace(
            found,
            chain=tuple(  # nor the id of a held version that replaced it
                dataclasses.replace(m, superseded_by=None) if m.superseded_by in hidden else m
                for m in shown
            ),
            events=tuple(
                e
                for e in found.events
                if e.memory_id not in hidden and (e.other_id is None or e.other_id not in hidden)
            ),
        )
