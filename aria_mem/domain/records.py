"""Typed records that cross the boundaries between the store, the services and the public API
(no ``dict[str, Any]`` crosses them)."""

from __future__ import annotations

import uuid
from dataclasses import asdict, dataclass, field, fields
from datetime import datetime
from typing import Any, Self

from aria_mem.domain.models import Kind, Memory, MemoryStatus


@dataclass(frozen=True, slots=True)
class SaveOutcome:
    memory: Memory
    created: bool
    """False when the text was already known and the call confirmed it instead."""


@dataclass(frozen=True, slots=True)
class MemoryChanges:
    """Fields an update may change, in one transaction; None leaves a field as it is."""

    text: str | None = None
    importance: float | None = None
    emotional_significance: float | None = None
    confidence: float | None = None
    reason: str | None = None
    expires_at: datetime | None = None
    clear_expiry: bool = False
    pinned: bool | None = None
    status: MemoryStatus | None = None
    joins: uuid.UUID | None = None
    """With ``text``: the memory whose words the new text takes in (a pass's join), recorded
    with the edit so that forgetting that memory gives this one its own text back
    (``domain.unjoining``)."""
    unjoins: uuid.UUID | None = None
    """With ``text``: the memory whose join into this one is undone, the text being this one's
    own again; recorded without the joined wording (``domain.unjoining.edit_record``)."""


@dataclass(frozen=True, slots=True)
class ImportResult:
    inserted: int
    updated: int
    merged_duplicates: int
    unchanged: int = 0
    """Rows equal to what was stored: left alone, so they are not re-embedded."""

    def __add__(self, other: ImportResult) -> ImportResult:
        return ImportResult(
            self.inserted + other.inserted,
            self.updated + other.updated,
            self.merged_duplicates + other.merged_duplicates,
            self.unchanged + other.unchanged,
        )


@dataclass(frozen=True, slots=True)
class MemoryCounts:
    total: int = 0
    active: int = 0
    archived: int = 0
    expired: int = 0
    held: int = 0
    pending: int = 0
    indexed: int = 0
    with_vector: int = 0
    """Indexed and given a vector (an unusable memory is 'indexed' with none)."""
    index_errors: int = 0
    unreadable: int = 0
    """Rows with timestamps outside the years 1-9999 (only an older version let them in)."""
    queued_deletions: int = 0
    knowledge_passages: int = 0
    knowledge_pending: int = 0
    last_index_error: str | None = None
    """Why the most recently changed pending memory could not be indexed (None: none failed)."""


@dataclass(frozen=True, slots=True)
class QueuedDeletion:
    id: int
    collection: str
    point_id: uuid.UUID


@dataclass(frozen=True, slots=True)
class IndexEntry:
    """One memory or knowledge passage whose vector must be written (usable) or removed."""

    kind: Kind
    id: uuid.UUID
    text: str
    version: datetime
    """Its ``updated_at`` when read: marking it indexed only counts if it is unchanged."""
    usable: bool
    payload: dict[str, object]
    """The payload fields, all but the embedding model (added when the vector is made)."""


@dataclass(frozen=True, slots=True)
class KnowledgeSource:
    id: uuid.UUID
    companion_id: str
    source: str
    title: str
    created_at: datetime
    passages: int
    pending: int


@dataclass(frozen=True, slots=True)
class LearnOutcome:
    source_id: uuid.UUID
    replaced: int
    """Passages of an earlier reading of the same source that this one replaced."""


@dataclass(frozen=True, slots=True)
class ReindexRun:
    model: str
    total: int
    pending: int
    started_at: datetime
    background: bool

    @property
    def done(self) -> int:
        return max(0, self.total - self.pending)


class _JsonRecord:
    """Stored as JSON in PostgreSQL (the daemon's reports); read back leniently."""

    def as_dict(self) -> dict[str, object]:
        return asdict(self)  # type: ignore[call-overload, no-any-return]

    @classmethod
    def from_json(cls, data: Any) -> Self | None:
        if not isinstance(data, dict):
            return None
        known = {f.name for f in fields(cls)}  # type: ignore[arg-type]
        return cls(**{k: v for k, v in data.items() if k in known})


@dataclass
class SyncReport(_JsonRecord):
    indexed: int = 0
    removed: int = 0
    failed: int = 0
    deletions_done: int = 0
    errors: list[str] = field(default_factory=list)
    requeued: int = 0
    """Entries PostgreSQL held indexed whose vector of the current model the index lacked,
    or held indexed under another model: put back pending (and indexed in the same run)."""

    def add(self, other: SyncReport) -> None:
        self.indexed += other.indexed
        self.removed += other.removed
        self.failed += other.failed
        self.deletions_done += other.deletions_done
        self.requeued += other.requeued
        self.errors.extend(e for e in other.errors if e not in self.errors)


@dataclass
class PassReport(SyncReport):
    """What the indexer did in a daemon pass, plus what the daemon reports about it."""

    expired_found: int = 0
    pending_left: int = 0
    duration_ms: float = 0.0
    at: str = ""
    retired: int = 0
    """Stale memories archived by the hygiene pass ([hygiene] retire = "apply")."""
    retirements_proposed: int = 0
    """Stale memories put to a person (`aria-mem review`; [hygiene] retire = "propose")."""
    consolidated: int = 0
    """New memories judged against their nearest ones (merged, superseded, asked or left)."""


@dataclass
class SweepReport(_JsonRecord):
    index_points: int = 0
    orphans_removed: int = 0
    missing_requeued: int = 0
    """Indexed in PostgreSQL under the current model, with no vector of it in the index."""
    other_model_requeued: int = 0
    """Indexed in PostgreSQL under another model (e.g. written by a client during a switch)."""
    duration_ms: float = 0.0
    at: str = ""


@dataclass
class DimensionCheck(_JsonRecord):
    """Do the index collections and the embedding model agree on the vector size?"""

    model: str = ""
    ok: bool | None = None
    """None: not checked (a service did not answer)."""
    model_dimension: int | None = None
    collections: dict[str, int | None] = field(default_factory=dict)
    error: str | None = None
    checked_at: str = ""


@dataclass(frozen=True, slots=True)
class IndexOwner:
    """The aria-mem service: the process that holds the embedded index and the in-process
    model for every other aria-mem process."""

    pid: int
    version: str
    protocol: int
    uptime_s: float
    command: str
    """How it was started: "on demand" (by a command, in the background) or "daemon"."""
    model: str | None
    """The in-process embedding models it has loaded, if any."""
    this_process: bool


@dataclass(frozen=True, slots=True)
class DaemonState:
    pid: int | None = None
    host: str | None = None
    started_at: datetime | None = None
    heartbeat_at: datetime | None = None
    heartbeat_age_s: float | None = None
    reconcile_interval: float | None = None
    stopped_at: datetime | None = None
    last_pass: PassReport | None = None
    last_sweep: SweepReport | None = None
    dimension: DimensionCheck | None = None


@dataclass(frozen=True)
class ErasedUser:
    """What ``forget --everything`` removed for one user, with every companion."""

    memories: int
    conversations: int
    turns: int
    relationships: int


@dataclass(frozen=True)
class ArchivedTurn:
    role: str
    content: str
    created_at: datetime


@dataclass(frozen=True)
class ConversationRecord:
    """A whole conversation, as export writes it and import restores it."""

    id: uuid.UUID
    user_id: str
    companion_id: str
    started_at: datetime
    updated_at: datetime
    turns: tuple[ArchivedTurn, ...]
    system_prompt: str | None = None
    """The persona set for it with /system, if any."""


@dataclass(frozen=True)
class StoredTurn:
    """One stored chat turn, as offered for forgetting."""

    id: int
    conversation_id: uuid.UUID
    role: str
    content: str


@dataclass(frozen=True)
class ConversationSummary:
    """One stored conversation, as `conversations list` shows it."""

    id: uuid.UUID
    user_id: str
    companion_id: str
    updated_at: datetime
    turns: int
    first_message: str
    """The user's first message (empty when there is none yet)."""
