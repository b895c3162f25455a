"""The in-memory twins of the knowledge, conversation and daemon-record ports."""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime

from aria_mem.adapters.in_memory.memories import Passage, State, now, pending_count
from aria_mem.domain import mentions
from aria_mem.domain.models import (
    KNOWLEDGE_COLLECTION,
    IndexState,
    KnowledgeItem,
)
from aria_mem.domain.records import (
    ArchivedTurn,
    ConversationRecord,
    ConversationSummary,
    DaemonState,
    DimensionCheck,
    ErasedUser,
    KnowledgeSource,
    LearnOutcome,
    PassReport,
    ReindexRun,
    StoredTurn,
    SweepReport,
)
from aria_mem.domain.validation import id_prefix, only_match
from aria_mem.errors import NotFoundError
from aria_mem.ports import DaemonStart, ModelSwitch


@dataclass
class _Source:
    id: uuid.UUID
    companion_id: str
    source: str
    title: str
    created_at: datetime = field(default_factory=now)


class MemKnowledge:
    def __init__(self, state: State) -> None:
        self._s = state
        self._sources: dict[uuid.UUID, _Source] = {}

    def _drop_passages(self, source_id: uuid.UUID) -> int:
        gone = [i for i, p in self._s.passages.items() if p.item.source_id == source_id]
        for i in gone:
            del self._s.passages[i]
            self._s.queue_deletion(KNOWLEDGE_COLLECTION, i)
        return len(gone)

    def learn(
        self,
        companion_id: str,
        source: str,
        title: str,
        chunks: Sequence[str],
        *,
        restored: tuple[uuid.UUID, datetime] | None = None,
    ) -> LearnOutcome:
        with self._s.lock:
            known = next(
                (
                    s
                    for s in self._sources.values()
                    if (s.companion_id, s.source) == (companion_id, source)
                ),
                None,
            )
            replaced = 0
            if known is not None:
                replaced = self._drop_passages(known.id)
                known.title = title
            else:
                known = _Source(uuid.uuid4(), companion_id, source, title)
                if restored is not None:
                    known.id, known.created_at = restored
                self._sources[known.id] = known
            at = now()
            for n, text in enumerate(chunks):
                item = KnowledgeItem(
                    uuid.uuid4(), known.id, companion_id, source, title, n, text, at
                )
                self._s.passages[item.id] = Passage(item)
            return LearnOutcome(known.id, replaced)

    def _describe(self, source: _Source) -> KnowledgeSource:
        passages = [p for p in self._s.passages.values() if p.item.source_id == source.id]
        return KnowledgeSource(
            id=source.id,
            companion_id=source.companion_id,
            source=source.source,
            title=source.title,
            created_at=source.created_at,
            passages=len(passages),
            pending=sum(p.index_state is IndexState.PENDING for p in passages),
        )

    def passages(self, source_id: uuid.UUID) -> list[str]:
        with self._s.lock:
            mine = [p.item for p in self._s.passages.values() if p.item.source_id == source_id]
        return [item.text for item in sorted(mine, key=lambda item: item.chunk_index)]

    def sources(self, companion_id: str | None) -> list[KnowledgeSource]:
        with self._s.lock:
            chosen = [s for s in self._sources.values() if companion_id in (None, s.companion_id)]
            return [self._describe(s) for s in sorted(chosen, key=lambda s: s.created_at)]

    def forget(self, companion_id: str, prefix: str) -> KnowledgeSource:
        clean = id_prefix(prefix, "a knowledge source id", "`aria-mem knowledge list`")
        with self._s.lock:
            found = [
                s
                for s in self._sources.values()
                if s.companion_id == companion_id and str(s.id).startswith(clean)
            ]
            source = only_match(found, prefix, "knowledge source", "`aria-mem knowledge list`")
            described = self._describe(source)
            self._drop_passages(source.id)
            del self._sources[source.id]
            return described


class MemConversations:
    def __init__(self, state: State) -> None:
        self._s = state
        self._conversations: dict[uuid.UUID, tuple[str, str, datetime]] = {}
        self._turns: dict[uuid.UUID, list[tuple[int, str, str, datetime]]] = {}
        self._started: dict[uuid.UUID, datetime] = {}
        self._personas: dict[uuid.UUID, str | None] = {}
        self._turn_ids = itertools.count(1)

    def open_conversation(self, user_id: str, companion_id: str, *, new: bool = False) -> uuid.UUID:
        with self._s.lock:
            if not new:
                mine = [
                    (at, cid)
                    for cid, (u, c, at) in self._conversations.items()
                    if (u, c) == (user_id, companion_id)
                ]
                if mine:
                    return max(mine)[1]
            conversation_id = uuid.uuid4()
            self._conversations[conversation_id] = (user_id, companion_id, now())
            self._started[conversation_id] = now()
            self._turns[conversation_id] = []
            return conversation_id

    def add_turns(
        self, conversation_id: uuid.UUID, turns: Sequence[tuple[str, str, datetime]]
    ) -> None:
        with self._s.lock:
            self._turns.setdefault(conversation_id, []).extend(
                (next(self._turn_ids), r, c, at) for r, c, at in turns
            )
            user, companion, _ = self._conversations[conversation_id]
            self._conversations[conversation_id] = (user, companion, now())

    def recent_turns(self, conversation_id: uuid.UUID, limit: int) -> list[tuple[str, str]]:
        with self._s.lock:
            turns = self._turns.get(conversation_id, [])
            return [(r, c) for _id, r, c, _at in turns[-limit:]] if limit else []

    def _summary(self, conversation_id: uuid.UUID) -> ConversationSummary:
        user, companion, at = self._conversations[conversation_id]
        turns = self._turns.get(conversation_id, [])
        first = next((content for _id, role, content, _at in turns if role == "user"), "")
        return ConversationSummary(conversation_id, user, companion, at, len(turns), first)

    def list_conversations(self, user_id: str, companion_id: str) -> list[ConversationSummary]:
        with self._s.lock:
            mine = [
                self._summary(cid)
                for cid, (u, c, _at) in self._conversations.items()
                if (u, c) == (user_id, companion_id)
            ]
        return sorted(mine, key=lambda s: (-s.updated_at.timestamp(), str(s.id)))

    def find_conversation(
        self, prefix: str, owner: tuple[str, str] | None = None
    ) -> ConversationSummary:
        clean = id_prefix(prefix, "a conversation id", "`aria-mem conversations list`")
        with self._s.lock:
            found = [
                cid
                for cid, (u, c, _at) in self._conversations.items()
                if str(cid).startswith(clean) and owner in (None, (u, c))
            ]
            chosen = only_match(found, prefix, "conversation", "`aria-mem conversations list`")
            return self._summary(chosen)

    def turns(self, conversation_id: uuid.UUID) -> list[tuple[str, str]]:
        with self._s.lock:
            return [(r, c) for _id, r, c, _at in self._turns.get(conversation_id, [])]

    def turns_mentioning(self, user_id: str, companion_id: str, text: str) -> list[StoredTurn]:
        wanted = mentions.plain_words(text)
        with self._s.lock:
            found = [
                StoredTurn(turn_id, cid, role, content)
                for cid, (u, c, _at) in self._conversations.items()
                if (u, c) == (user_id, companion_id)
                for turn_id, role, content, _at in self._turns.get(cid, [])
                if mentions.mentions(wanted, mentions.plain_words(content))
            ]
        return sorted(found, key=lambda t: t.id)[: mentions.MAX_MENTIONS]

    def system_prompt(self, conversation_id: uuid.UUID) -> str | None:
        with self._s.lock:
            return self._personas.get(conversation_id)

    def set_system_prompt(self, conversation_id: uuid.UUID, text: str | None) -> None:
        with self._s.lock:
            if conversation_id in self._conversations:
                self._personas[conversation_id] = text

    def conversation_records(
        self, user_id: str | None, companion_id: str | None = None
    ) -> list[ConversationRecord]:
        with self._s.lock:
            found = [
                ConversationRecord(
                    cid,
                    u,
                    c,
                    self._started[cid],
                    at,
                    tuple(ArchivedTurn(r, t, when) for _id, r, t, when in self._turns[cid]),
                    self._personas.get(cid),
                )
                for cid, (u, c, at) in self._conversations.items()
                if user_id in (None, u) and companion_id in (None, c)
            ]
        return sorted(found, key=lambda r: (r.started_at, str(r.id)))

    def import_conversation(self, record: ConversationRecord) -> bool:
        with self._s.lock:
            if record.id in self._conversations:
                return False
            self._conversations[record.id] = (
                record.user_id,
                record.companion_id,
                record.updated_at,
            )
            self._started[record.id] = record.started_at
            self._personas[record.id] = record.system_prompt
            self._turns[record.id] = [
                (next(self._turn_ids), t.role, t.content, t.created_at) for t in record.turns
            ]
            return True

    def forget_turns(self, user_id: str, companion_id: str, turn_ids: Sequence[int]) -> int:
        doomed = set(turn_ids)
        gone = 0
        with self._s.lock:
            for cid, (u, c, _at) in self._conversations.items():
                if (u, c) != (user_id, companion_id):
                    continue
                kept = [t for t in self._turns.get(cid, []) if t[0] not in doomed]
                gone += len(self._turns.get(cid, [])) - len(kept)
                self._turns[cid] = kept
        return gone

    def forget_conversation(self, conversation_id: uuid.UUID) -> int:
        with self._s.lock:
            if conversation_id not in self._conversations:
                raise NotFoundError(f"No conversation {conversation_id}")
            del self._conversations[conversation_id]
            self._started.pop(conversation_id, None)
            self._personas.pop(conversation_id, None)
            return len(self._turns.pop(conversation_id, []))

    def drop_user(self, user_id: str) -> tuple[int, int]:
        """(conversations, turns) of ``user_id`` removed; the caller holds the lock."""
        mine = [cid for cid, (u, _c, _at) in self._conversations.items() if u == user_id]
        turns = sum(len(self._turns.pop(cid, [])) for cid in mine)
        for cid in mine:
            del self._conversations[cid]
            self._started.pop(cid, None)
            self._personas.pop(cid, None)
        return len(mine), turns


class MemErasure:
    def __init__(self, state: State, conversations: MemConversations) -> None:
        self._s = state
        self._conversations = conversations

    def erase_user(self, user_id: str) -> ErasedUser:
        with self._s.lock:
            mine = [mid for mid, m in self._s.memories.items() if m.user_id == user_id]
            for memory_id in mine:
                self._s.drop_memory(memory_id)
            conversations, turns = self._conversations.drop_user(user_id)
            stages = [key for key in self._s.stages if key[0] == user_id]
            for key in stages:
                del self._s.stages[key]
        return ErasedUser(len(mine), conversations, turns, len(stages))


class MemDaemonRecords:
    def __init__(self, state: State) -> None:
        self._s = state
        self._state: DaemonState | None = None
        self._runs: list[tuple[str, int, datetime, bool, bool]] = []
        """(model, total, started_at, background, finished)."""

    def daemon_started(self, start: DaemonStart) -> None:
        with self._s.lock:
            self._state = DaemonState(
                pid=start.pid,
                host=start.host,
                started_at=start.started_at,
                heartbeat_at=now(),
                reconcile_interval=start.reconcile_interval,
            )

    def daemon_heartbeat(
        self,
        *,
        last_pass: PassReport | None = None,
        last_sweep: SweepReport | None = None,
        dimension: DimensionCheck | None = None,
    ) -> None:
        with self._s.lock:
            state = self._state or DaemonState()
            self._state = replace(
                state,
                heartbeat_at=now(),
                last_pass=last_pass or state.last_pass,
                last_sweep=last_sweep or state.last_sweep,
                dimension=dimension or state.dimension,
            )

    def daemon_stopped(self) -> None:
        with self._s.lock:
            self._state = replace(self._state or DaemonState(), stopped_at=now())

    def daemon_state(self) -> DaemonState | None:
        with self._s.lock:
            if self._state is None:
                return None
            beat = self._state.heartbeat_at
            age = None if beat is None else (now() - beat).total_seconds()
            return replace(self._state, heartbeat_age_s=age)

    def start_reindex(self, model: str, total: int, background: bool) -> None:
        with self._s.lock:
            self._runs = [(m, t, s, b, True) for m, t, s, b, _ in self._runs]
            self._runs.append((model, total, now(), background, False))

    def finish_reindex(self, model: str) -> None:
        with self._s.lock:
            self._runs = [(m, t, s, b, f or m == model) for m, t, s, b, f in self._runs]

    def latest_reindex(self) -> ModelSwitch | None:
        with self._s.lock:
            if not self._runs:
                return None
            model, _, started, _, _ = self._runs[-1]
            return ModelSwitch(len(self._runs), model, started)

    def open_reindex(self) -> ReindexRun | None:
        with self._s.lock:
            open_runs = [r for r in self._runs if not r[4]]
            if not open_runs:
                return None
            model, total, started, background, _ = open_runs[-1]
            pending = pending_count(self._s)
            return ReindexRun(model, total, pending, started, background)
