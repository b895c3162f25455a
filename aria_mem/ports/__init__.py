"""The small interfaces the services need, each shaped by the job of its caller. Adapters
implement them (PostgreSQL and an in-memory twin for the store; Qdrant Edge and qdrant-client
for the index; Ollama, LM Studio and an in-process model for embeddings); tests hand in real
ones, and the in-memory store lets service tests run without a database.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from aria_mem.domain.fusion import LexicalHit
from aria_mem.domain.models import (
    Kind,
    KnowledgeItem,
    Memory,
    MemoryOrder,
    MemoryStatus,
    MemoryType,
    NewMemory,
    Stage,
)
from aria_mem.domain.records import (
    ConversationRecord,
    ConversationSummary,
    DaemonState,
    DimensionCheck,
    ErasedUser,
    ImportResult,
    IndexEntry,
    KnowledgeSource,
    LearnOutcome,
    MemoryChanges,
    MemoryCounts,
    PassReport,
    QueuedDeletion,
    ReindexRun,
    SaveOutcome,
    StoredTurn,
    SweepReport,
)
from aria_mem.ports.engines import ChatModel as ChatModel
from aria_mem.ports.engines import DocumentReader as DocumentReader
from aria_mem.ports.engines import Embedder as Embedder
from aria_mem.ports.engines import SharedIndex as SharedIndex
from aria_mem.ports.engines import VectorIndex as VectorIndex
from aria_mem.ports.hygiene import Hygiene as Hygiene

# -- the store, by job ----------------------------------------------------------------------


class MemoryRepository(Protocol):
    """Managing memories: the writer, `list`/`show`, export and import."""

    def save(self, new: NewMemory) -> SaveOutcome: ...
    def get(self, memory_id: uuid.UUID) -> Memory: ...
    def find_prefix(self, prefix: str, owner: tuple[str, str] | None = None) -> Memory: ...

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
        """``contains``: a case-insensitive piece of the text; ``held``: held until a later
        stage; ``expiring``: with an expiry date; ``offset``: rows to skip, for paging."""
        ...

    def iter_all(self, batch_size: int = 1000) -> Iterator[Memory]: ...
    def edit(self, memory_id: uuid.UUID, changes: MemoryChanges) -> Memory: ...
    def confirm(self, memory_id: uuid.UUID) -> Memory: ...
    def delete(self, memory_id: uuid.UUID) -> Memory:
        """Remove it for good and queue its vector's removal, in one transaction."""
        ...

    def import_memories(self, memories: Sequence[Memory]) -> ImportResult: ...
    def counts(self, owner: tuple[str, str] | None = None) -> MemoryCounts:
        """Every memory's counts, or one (user, companion)'s with its companion's knowledge."""
        ...


@dataclass(frozen=True)
class Opening:
    """Steps 5 and 6 of the trip read together: the relationship stage, the usable profile
    candidates and the word matches."""

    stage: Stage
    profile: list[Memory]
    words: list[LexicalHit]
    words_skipped: str | None = None
    """Why the word matches are missing though the profile came (e.g. their query took
    longer than the timeout); None when they came or were not asked for."""


class RetrievalReads(Protocol):
    """What the trip of one message reads, each bounded by a timeout."""

    def opening(
        self,
        user_id: str,
        companion_id: str,
        text: str,
        limit: int,
        timeout: float | None = None,
    ) -> Opening:
        """``retrieval_context`` and, unless ``limit`` is 0 or ``text`` blank,
        ``lexical_candidates``, on one connection. Raises only when the profile cannot be
        read; a failed word search is reported in ``words_skipped``."""
        ...

    def retrieval_context(
        self, user_id: str, companion_id: str, timeout: float | None = None
    ) -> tuple[Stage, list[Memory]]:
        """The relationship stage and the usable profile candidates."""
        ...

    def lexical_candidates(
        self,
        user_id: str,
        companion_id: str,
        text: str,
        limit: int,
        timeout: float | None = None,
    ) -> list[LexicalHit]:
        """The pair's usable memories whose words best match ``text``, best first (empty
        where the store has no text-search engine)."""
        ...

    def fetch_with_usability(
        self, memory_ids: Sequence[uuid.UUID], timeout: float | None = None
    ) -> dict[uuid.UUID, tuple[Memory, bool]]:
        """The memories that still exist, each with whether it may be used now."""
        ...

    def knowledge_by_ids(
        self, ids: Sequence[uuid.UUID], timeout: float | None = None
    ) -> dict[uuid.UUID, KnowledgeItem]: ...
    def record_use(self, memory_ids: Sequence[uuid.UUID]) -> None: ...


class Relationships(Protocol):
    def stage(self, user_id: str, companion_id: str) -> Stage: ...
    def set_stage(self, user_id: str, companion_id: str, stage: Stage) -> None:
        """Held memories of the pair become pending, so indexing follows the new stage."""
        ...

    def stages(self, user_id: str | None) -> list[tuple[str, str, Stage]]:
        """(user, companion, stage) of every pair with a stage set (of one user, or all)."""
        ...


class IndexQueue(Protocol):
    """What must change in the vector index: pending entries of either kind, and the durable
    queue of vector removals."""

    def pending(self, kind: Kind, limit: int) -> list[IndexEntry]: ...
    def mark_indexed(
        self, kind: Kind, versions: Sequence[tuple[uuid.UUID, datetime]], model: str | None
    ) -> int:
        """In line with the index (``model`` None: usable no more, no vector). Rows changed
        since they were read stay pending."""
        ...

    def mark_failed(self, kind: Kind, ids: Sequence[uuid.UUID], error: str) -> None: ...
    def mark_pending(self, kind: Kind, ids: Sequence[uuid.UUID]) -> int: ...
    def indexed_ids(self, kind: Kind, model: str) -> set[uuid.UUID]:
        """Ids that should have a vector made by ``model`` right now."""
        ...

    def unwanted(self, kind: Kind, ids: Sequence[uuid.UUID], model: str) -> set[uuid.UUID]:
        """Those of ``ids`` that should hold no vector of ``model``: gone from PostgreSQL, or
        settled (not pending) and not indexed under it. A pending entry keeps its vector: the
        indexer is about to rewrite or remove it (a sweep must not race a write)."""
        ...

    def mark_pending_for_model(self, model: str, *, force: bool = False) -> int:
        """Pending: every entry indexed under another model (``force``: every entry)."""
        ...

    def pending_count(self) -> int: ...
    def mark_expired_pending(self) -> int: ...
    def queued_deletions(self, limit: int) -> list[QueuedDeletion]: ...
    def drop_queued_deletions(self, ids: Sequence[int]) -> None: ...
    def note_deletion_failure(self, ids: Sequence[int], error: str) -> None: ...


class KnowledgeRepository(Protocol):
    def learn(
        self,
        companion_id: str,
        source: str,
        title: str,
        chunks: Sequence[str],
        *,
        restored: tuple[uuid.UUID, datetime] | None = None,
    ) -> LearnOutcome:
        """Store a document's passages, replacing an earlier reading of the same source.
        ``restored``: the id and time it was first learned, for a source new here that an
        import brings back."""
        ...

    def sources(self, companion_id: str | None) -> list[KnowledgeSource]: ...
    def forget(self, companion_id: str, prefix: str) -> KnowledgeSource:
        """Delete a source of the companion and its passages; their vectors are queued for
        removal. Another companion's source is not found."""
        ...

    def passages(self, source_id: uuid.UUID) -> list[str]:
        """A source's passages in order."""
        ...


class ConversationLog(Protocol):
    def open_conversation(
        self, user_id: str, companion_id: str, *, new: bool = False
    ) -> uuid.UUID: ...
    def add_turns(
        self, conversation_id: uuid.UUID, turns: Sequence[tuple[str, str, datetime]]
    ) -> None: ...
    def recent_turns(self, conversation_id: uuid.UUID, limit: int) -> list[tuple[str, str]]: ...
    def list_conversations(self, user_id: str, companion_id: str) -> list[ConversationSummary]:
        """The pair's conversations, most recent first."""
        ...

    def find_conversation(
        self, prefix: str, owner: tuple[str, str] | None = None
    ) -> ConversationSummary:
        """By id or its first characters, among ``owner``'s; NotFoundError unless one."""
        ...

    def turns(self, conversation_id: uuid.UUID) -> list[tuple[str, str]]: ...
    def forget_conversation(self, conversation_id: uuid.UUID) -> int:
        """Delete it and its turns; how many turns went."""
        ...

    def turns_mentioning(self, user_id: str, companion_id: str, text: str) -> list[StoredTurn]:
        """The pair's stored turns that mention ``text`` (domain.mentions: most of its
        distinctive words), oldest first, at most MAX_MENTIONS."""
        ...

    def forget_turns(self, user_id: str, companion_id: str, turn_ids: Sequence[int]) -> int:
        """Delete those of ``turn_ids`` that are the pair's; how many went."""
        ...

    def system_prompt(self, conversation_id: uuid.UUID) -> str | None:
        """The persona set for this conversation (None: the configured one)."""
        ...

    def set_system_prompt(self, conversation_id: uuid.UUID, text: str | None) -> None: ...

    def conversation_records(
        self, user_id: str | None, companion_id: str | None = None
    ) -> list[ConversationRecord]:
        """Whole conversations with their turns, oldest first (of one user, or of one pair,
        or of everyone), for export."""
        ...

    def import_conversation(self, record: ConversationRecord) -> bool:
        """Store a conversation and its turns as they were; False (and nothing changed) when
        a conversation with its id is already stored."""
        ...


class Erasure(Protocol):
    def erase_user(self, user_id: str) -> ErasedUser:
        """Everything stored about one user, with every companion (memories, conversations
        and their turns, relationship stages), in one transaction; the memories' vectors are
        queued for removal in the same transaction."""
        ...


@dataclass(frozen=True)
class ModelSwitch:
    """The latest re-index run recorded in PostgreSQL: the embedding model the database is
    being indexed under, the run's number (a later switch has a higher one) and when it
    started (by PostgreSQL's clock)."""

    number: int
    model: str
    started_at: datetime


@dataclass(frozen=True)
class DaemonStart:
    pid: int
    host: str
    started_at: datetime
    reconcile_interval: float


class DaemonRecords(Protocol):
    """What the daemon reports to `status`, and re-index runs."""

    def daemon_started(self, start: DaemonStart) -> None: ...
    def daemon_heartbeat(
        self,
        *,
        last_pass: PassReport | None = None,
        last_sweep: SweepReport | None = None,
        dimension: DimensionCheck | None = None,
    ) -> None: ...
    def daemon_stopped(self) -> None: ...
    def daemon_state(self) -> DaemonState | None: ...
    def start_reindex(self, model: str, total: int, background: bool) -> None: ...
    def finish_reindex(self, model: str) -> None: ...
    def open_reindex(self) -> ReindexRun | None: ...
    def latest_reindex(self) -> ModelSwitch | None:
        """The latest re-index run, finished or not (None: never re-indexed). A process
        that opened before it learns from it that the embedding model was switched."""
        ...


class Store(Protocol):
    """Everything the source of truth keeps, one narrow port per job."""

    @property
    def memories(self) -> MemoryRepository: ...
    @property
    def reads(self) -> RetrievalReads: ...
    @property
    def relationships(self) -> Relationships: ...
    @property
    def queue(self) -> IndexQueue: ...
    @property
    def knowledge(self) -> KnowledgeRepository: ...
    @property
    def conversations(self) -> ConversationLog: ...
    @property
    def daemon(self) -> DaemonRecords: ...
    @property
    def erasure(self) -> Erasure: ...
    @property
    def hygiene(self) -> Hygiene: ...

    def migrate(self) -> list[str]: ...
    def schema_version(self) -> int: ...
    def ping(self) -> None: ...
    def close(self) -> None: ...


class DaemonLock(Protocol):
    """One daemon reconciles a database at a time."""

    def try_acquire(self) -> bool: ...
    def still_held(self) -> bool: ...
    def release(self) -> None: ...
