"""The in-memory store: every port of the PostgreSQL store, held in one process's memory, for
service tests that need no database (and nothing that must survive a restart)."""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime

from aria_mem.adapters.in_memory.hygiene import MemHygiene
from aria_mem.adapters.in_memory.memories import MemMemories, State, now, pending_count
from aria_mem.adapters.in_memory.records import (
    MemConversations,
    MemDaemonRecords,
    MemErasure,
    MemKnowledge,
)
from aria_mem.domain.fusion import LexicalHit
from aria_mem.domain.models import (
    IndexState,
    Kind,
    KnowledgeItem,
    Memory,
    MemoryStatus,
    Stage,
)
from aria_mem.domain.payload import knowledge_entry, memory_entry
from aria_mem.domain.profile import select_profile
from aria_mem.domain.records import (
    IndexEntry,
    QueuedDeletion,
)
from aria_mem.domain.words import bringing_from, common_from, plain_words, rarity
from aria_mem.ports import Opening

_MAX_ERROR = 1000


class MemReads:
    def __init__(self, state: State) -> None:
        self._s = state

    def opening(
        self,
        user_id: str,
        companion_id: str,
        text: str,
        limit: int,
        timeout: float | None = None,
    ) -> Opening:
        stage, profile = self.retrieval_context(user_id, companion_id, timeout)
        return Opening(
            stage, profile, self.lexical_candidates(user_id, companion_id, text, limit, timeout)
        )

    def retrieval_context(
        self, user_id: str, companion_id: str, timeout: float | None = None
    ) -> tuple[Stage, list[Memory]]:
        with self._s.lock:
            pool = [
                m
                for m in self._s.memories.values()
                if (m.user_id, m.companion_id) == (user_id, companion_id) and self._s.usable(m)
            ]
            return self._s.stage(user_id, companion_id), select_profile(pool)

    def lexical_candidates(
        self,
        user_id: str,
        companion_id: str,
        text: str,
        limit: int,
        timeout: float | None = None,
    ) -> list[LexicalHit]:
        """The rule PostgreSQL's word search follows (``domain.words``: the message's words
        that are not common among the pair's memories, any of the rarer ones a match, scored
        by the share of them it holds, each weighed by its ``rarity``), with plain words
        instead of a language's stems."""
        with self._s.lock:
            pool = [
                (m, plain_words(m.text))
                for m in self._s.memories.values()
                if (m.user_id, m.companion_id) == (user_id, companion_id)
                and m.status is MemoryStatus.ACTIVE
                and self._s.usable(m)
            ]
            pair_size = sum(
                1
                for m in self._s.memories.values()
                if (m.user_id, m.companion_id) == (user_id, companion_id)
                and m.status is MemoryStatus.ACTIVE
            )
        common, brings = common_from(pair_size), bringing_from(pair_size)
        counts = Counter(word for _, words in pool for word in words)
        weight = {
            word: rarity(pair_size, counts[word])
            for word in plain_words(text)
            if counts[word] < common
        }
        bringing = {word for word in weight if counts[word] < brings}
        total = sum(weight.values())
        hits = [
            LexicalHit(m.id, sum(weight[w] for w in weight.keys() & words) / total, m)
            for m, words in pool
            if bringing & words
        ]
        hits.sort(key=lambda hit: (-hit.score, hit.id))
        return hits[:limit]

    def fetch_with_usability(
        self, memory_ids: Sequence[uuid.UUID], timeout: float | None = None
    ) -> dict[uuid.UUID, tuple[Memory, bool]]:
        with self._s.lock:
            return {
                i: (m, self._s.usable(m))
                for i in memory_ids
                if (m := self._s.memories.get(i)) is not None
            }

    def knowledge_by_ids(
        self, ids: Sequence[uuid.UUID], timeout: float | None = None
    ) -> dict[uuid.UUID, KnowledgeItem]:
        with self._s.lock:
            return {i: p.item for i in ids if (p := self._s.passages.get(i)) is not None}

    def record_use(self, memory_ids: Sequence[uuid.UUID]) -> None:
        with self._s.lock:
            for i in set(memory_ids):
                m = self._s.memories.get(i)
                if m is not None:
                    self._s.memories[i] = replace(m, use_count=m.use_count + 1, last_used_at=now())


class MemRelationships:
    def __init__(self, state: State) -> None:
        self._s = state

    def stage(self, user_id: str, companion_id: str) -> Stage:
        with self._s.lock:
            return self._s.stage(user_id, companion_id)

    def stages(self, user_id: str | None) -> list[tuple[str, str, Stage]]:
        with self._s.lock:
            return sorted(
                (u, c, stage) for (u, c), stage in self._s.stages.items() if user_id in (None, u)
            )

    def set_stage(self, user_id: str, companion_id: str, stage: Stage) -> None:
        with self._s.lock:
            self._s.stages[(user_id, companion_id)] = stage
            for m in list(self._s.memories.values()):
                if (m.user_id, m.companion_id) == (user_id, companion_id) and m.held_until_stage:
                    self._s.memories[m.id] = replace(m, index_state=IndexState.PENDING)


class MemIndexQueue:
    def __init__(self, state: State) -> None:
        self._s = state

    def pending(self, kind: Kind, limit: int) -> list[IndexEntry]:
        with self._s.lock:
            if kind is Kind.MEMORY:
                waiting = sorted(
                    (m for m in self._s.memories.values() if m.index_state is IndexState.PENDING),
                    key=lambda m: (m.index_attempts, m.updated_at),
                )
                return [memory_entry(m, self._s.usable(m)) for m in waiting[:limit]]
            passages = sorted(
                (p for p in self._s.passages.values() if p.index_state is IndexState.PENDING),
                key=lambda p: (p.index_attempts, p.item.updated_at),
            )
            return [knowledge_entry(p.item) for p in passages[:limit]]

    def mark_indexed(
        self, kind: Kind, versions: Sequence[tuple[uuid.UUID, datetime]], model: str | None
    ) -> int:
        changed = 0
        with self._s.lock:
            for entry_id, version in versions:
                if kind is Kind.MEMORY:
                    m = self._s.memories.get(entry_id)
                    if m is not None and m.updated_at == version:
                        self._s.memories[entry_id] = replace(
                            m,
                            index_state=IndexState.INDEXED,
                            indexed_model=model,
                            index_error=None,
                            index_attempts=0,
                        )
                        changed += 1
                else:
                    p = self._s.passages.get(entry_id)
                    if p is not None and p.item.updated_at == version:
                        p.index_state, p.indexed_model = IndexState.INDEXED, model
                        p.index_error, p.index_attempts = None, 0
                        changed += 1
        return changed

    def mark_failed(self, kind: Kind, ids: Sequence[uuid.UUID], error: str) -> None:
        with self._s.lock:
            for entry_id in ids:
                if kind is Kind.MEMORY:
                    m = self._s.memories.get(entry_id)
                    if m is not None and m.index_state is IndexState.PENDING:
                        self._s.memories[entry_id] = replace(
                            m, index_attempts=m.index_attempts + 1, index_error=error[:_MAX_ERROR]
                        )
                elif (p := self._s.passages.get(entry_id)) and p.index_state is IndexState.PENDING:
                    p.index_attempts += 1
                    p.index_error = error[:_MAX_ERROR]

    def mark_pending(self, kind: Kind, ids: Sequence[uuid.UUID]) -> int:
        changed = 0
        with self._s.lock:
            for entry_id in ids:
                if kind is Kind.MEMORY and (m := self._s.memories.get(entry_id)) is not None:
                    self._s.memories[entry_id] = replace(m, index_state=IndexState.PENDING)
                    changed += 1
                elif kind is Kind.KNOWLEDGE and (p := self._s.passages.get(entry_id)):
                    p.index_state = IndexState.PENDING
                    changed += 1
        return changed

    def indexed_ids(self, kind: Kind, model: str) -> set[uuid.UUID]:
        with self._s.lock:
            if kind is Kind.MEMORY:
                return {
                    m.id
                    for m in self._s.memories.values()
                    if m.index_state is IndexState.INDEXED and m.indexed_model == model
                }
            return {
                p.item.id
                for p in self._s.passages.values()
                if p.index_state is IndexState.INDEXED and p.indexed_model == model
            }

    def unwanted(self, kind: Kind, ids: Sequence[uuid.UUID], model: str) -> set[uuid.UUID]:
        def settled_elsewhere(state: IndexState, indexed_model: str | None) -> bool:
            return state is IndexState.INDEXED and indexed_model != model

        found: set[uuid.UUID] = set()
        with self._s.lock:
            for entry_id in ids:
                if kind is Kind.MEMORY:
                    m = self._s.memories.get(entry_id)
                    if m is None or settled_elsewhere(m.index_state, m.indexed_model):
                        found.add(entry_id)
                else:
                    p = self._s.passages.get(entry_id)
                    if p is None or settled_elsewhere(p.index_state, p.indexed_model):
                        found.add(entry_id)
        return found

    def mark_pending_for_model(self, model: str, *, force: bool = False) -> int:
        def stale(state: IndexState, indexed_model: str | None) -> bool:
            if state is not IndexState.INDEXED:
                return False
            return force or (indexed_model is not None and indexed_model != model)

        changed = 0
        with self._s.lock:
            for m in list(self._s.memories.values()):
                if stale(m.index_state, m.indexed_model):
                    self._s.memories[m.id] = replace(
                        m, index_state=IndexState.PENDING, index_attempts=0
                    )
                    changed += 1
            for p in self._s.passages.values():
                if stale(p.index_state, p.indexed_model):
                    p.index_state, p.index_attempts = IndexState.PENDING, 0
                    changed += 1
        return changed

    def pending_count(self) -> int:
        return pending_count(self._s)

    def mark_expired_pending(self) -> int:
        at = now()
        changed = 0
        with self._s.lock:
            for m in list(self._s.memories.values()):
                if (
                    m.index_state is IndexState.INDEXED
                    and m.indexed_model is not None
                    and m.expires_at is not None
                    and m.expires_at <= at
                ):
                    self._s.memories[m.id] = replace(m, index_state=IndexState.PENDING)
                    changed += 1
        return changed

    def queued_deletions(self, limit: int) -> list[QueuedDeletion]:
        with self._s.lock:
            order = sorted(self._s.deletions, key=lambda i: (self._s.deletion_attempts[i], i))
            return [self._s.deletions[i] for i in order[:limit]]

    def drop_queued_deletions(self, ids: Sequence[int]) -> None:
        with self._s.lock:
            for i in ids:
                self._s.deletions.pop(i, None)
                self._s.deletion_attempts.pop(i, None)

    def note_deletion_failure(self, ids: Sequence[int], error: str) -> None:
        with self._s.lock:
            for i in ids:
                if i in self._s.deletion_attempts:
                    self._s.deletion_attempts[i] += 1


class InMemoryStore:
    """Every store port over one in-memory state."""

    def __init__(self) -> None:
        self.state = State()
        self.memories = MemMemories(self.state)
        self.reads = MemReads(self.state)
        self.relationships = MemRelationships(self.state)
        self.queue = MemIndexQueue(self.state)
        self.knowledge = MemKnowledge(self.state)
        self.conversations = MemConversations(self.state)
        self.daemon = MemDaemonRecords(self.state)
        self.erasure = MemErasure(self.state, self.conversations)
        self.hygiene = MemHygiene(self.state)

    def migrate(self) -> list[str]:
        return []

    def schema_version(self) -> int:
        return 0

    def ping(self) -> None:
        return None

    def close(self) -> None:
        return None
