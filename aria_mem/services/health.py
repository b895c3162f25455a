"""`status`: is each service reachable, how fast, do the index and the model agree, is the
data readable, and is the daemon running?"""

from __future__ import annotations

import socket
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TypeVar

from aria_mem.domain import dimension as dimension_rule
from aria_mem.domain.liveness import DaemonSighting, is_running
from aria_mem.domain.models import MEMORIES_COLLECTION, IndexPoint, Kind
from aria_mem.domain.records import (
    DaemonState,
    DimensionCheck,
    IndexOwner,
    MemoryCounts,
    ReindexRun,
)
from aria_mem.errors import AriaMemError, IndexDiskFullError, ServiceError
from aria_mem.ports import Embedder, SharedIndex, Store, VectorIndex
from aria_mem.processes import aria_mem_alive

T = TypeVar("T")


@dataclass(frozen=True)
class Targets:
    """What each service is, for people: a redacted DSN, a URL, a model."""

    postgres: str
    index: str
    embedder: str


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    target: str
    latency_ms: float | None = None
    error: str | None = None
    counts_rows: bool = False
    """The error counts rows of every user and companion: for the owner's `status`, not for
    a client that serves one user (MCP)."""


@dataclass(frozen=True)
class CollectionInfo:
    name: str
    vector_size: int | None
    """None: the collection does not exist yet."""
    points: int


@dataclass(frozen=True)
class IndexCheck(Check):
    collections: tuple[CollectionInfo, ...] = ()
    owner: IndexOwner | None = None
    """Who serves the embedded index (None for a Qdrant server)."""


@dataclass(frozen=True)
class VectorsCheck(Check):
    """The index compared with PostgreSQL entry by entry, for the current model."""

    model: str | None = None
    indexed: int = 0
    """Memories and passages PostgreSQL says are indexed under the model."""
    present: int = 0
    """Vectors of the model in the index."""
    missing: int = 0
    """Indexed under the model in PostgreSQL, with no vector of it in the index."""
    other_model: int = 0
    """Memories PostgreSQL says are indexed under another model: no search finds them."""
    stale: int = 0
    """Vectors of memories that are gone or may no longer be used (nothing is pending)."""


@dataclass(frozen=True)
class EmbedderCheck(Check):
    model: str | None = None
    dimension: int | None = None


@dataclass(frozen=True)
class DimensionStatus(Check):
    checked: bool = True
    """False when a service was down and the sizes could not be compared."""
    model_dimension: int | None = None


@dataclass(frozen=True)
class DataCheck(Check):
    unreadable: int = 0


@dataclass(frozen=True)
class DaemonCheck(Check):
    running: bool = False
    state: DaemonState | None = None
    reindex: ReindexRun | None = None


@dataclass(frozen=True)
class StatusReport:
    postgres: Check
    index: IndexCheck
    embedder: EmbedderCheck
    dimension: DimensionStatus
    data: DataCheck | None = None
    daemon: DaemonCheck | None = None
    counts: MemoryCounts | None = None
    vectors: VectorsCheck | None = None
    checks: tuple[Check, ...] = field(init=False)
    """Every check, in the order shown."""

    def __post_init__(self) -> None:
        ordered = (
            self.postgres,
            self.index,
            self.vectors,
            self.data,
            self.embedder,
            self.dimension,
        )
        every = tuple(c for c in (*ordered, self.daemon) if c is not None)
        object.__setattr__(self, "checks", every)

    @property
    def ok(self) -> bool:
        return all(c.ok for c in self.checks)


def _timed(action: Callable[[], T]) -> tuple[T, float]:
    start = time.perf_counter()
    result = action()
    return result, round((time.perf_counter() - start) * 1000, 2)


def check_dimension(index: VectorIndex, embedder: Embedder) -> DimensionCheck:
    """The one dimension check (``domain.dimension``) against the live services."""
    result = DimensionCheck(model=embedder.model_name, checked_at=datetime.now(UTC).isoformat())
    try:
        model_dimension = embedder.dimension()
    except ServiceError as exc:
        result.error = f"embedding model not reachable: {exc}"
        return result
    sizes = {k.collection: index.collection_size(k.collection) for k in Kind}
    mismatch = dimension_rule.mismatched(sizes, model_dimension)
    result.ok, result.model_dimension, result.collections = not mismatch, model_dimension, sizes
    if mismatch:
        result.error = dimension_rule.describe(mismatch, embedder.model_name, model_dimension)
    return result


def collect(
    store: Callable[[], Store],
    index: Callable[[], VectorIndex],
    embedder: Callable[[], Embedder],
    targets: Targets,
    daemon_interval: float = 60.0,
    *,
    compare_vectors: bool = True,
) -> StatusReport:
    """Check each service in turn; one failing never stops the others being checked.
    ``compare_vectors=False`` leaves out the vectors check, which lists every id in
    PostgreSQL and the index: too costly for a client that polls (MCP)."""
    pg, counts = _postgres(store, targets.postgres)
    ix = _index(index, targets.index, counts)
    em = _embedder(embedder, targets.embedder)
    dim = _dimension(ix, em)
    vectors = None
    if compare_vectors and pg.ok and ix.ok and counts is not None and em.model is not None:
        vectors = _vectors(store(), index(), em.model, counts)
    return StatusReport(
        postgres=pg,
        index=ix,
        embedder=em,
        dimension=dim,
        data=_data_check(counts) if counts is not None else None,
        daemon=_daemon_check(store(), daemon_interval) if pg.ok else None,
        counts=counts,
        vectors=vectors,
    )


def _postgres(store: Callable[[], Store], target: str) -> tuple[Check, MemoryCounts | None]:
    try:
        s = store()
        _, latency = _timed(s.ping)
        counts = s.memories.counts()
    except AriaMemError as exc:
        return Check("postgres", False, target, error=str(exc)), None
    return Check("postgres", True, target, latency), counts


def _index(
    index: Callable[[], VectorIndex], target: str, counts: MemoryCounts | None
) -> IndexCheck:
    try:
        i = index()
        sizes, latency = _timed(
            lambda: {k.collection: i.collection_size(k.collection) for k in Kind}
        )
        collections = tuple(
            CollectionInfo(c, size, i.count(c) if size is not None else 0)
            for c, size in sizes.items()
        )
    except AriaMemError as exc:
        return IndexCheck("index", False, target, error=str(exc))
    problem = _write_probe(i, sizes.get(MEMORIES_COLLECTION))
    counted = None
    if problem is None and counts is not None:
        problem = counted = _lost_vectors(counts, collections[0])
    try:
        owner = i.owner() if isinstance(i, SharedIndex) else None
    except AriaMemError:
        owner = None  # it let go meanwhile; the checks above spoke to it
    lost = counted is not None
    return IndexCheck("index", problem is None, target, latency, problem, lost, collections, owner)


PROBE_ID = uuid.UUID("00000000-a11a-4e0e-8000-000000000001")
"""The one point `status` writes and removes again. Not active and of no user, companion or
model, so no search can find it; a sweep removes it if a probe was cut short."""


def _write_probe(index: VectorIndex, size: int | None) -> str | None:
    """An index can open and answer reads yet refuse every write (a broken shard): only a
    write tells. None when the probe point was written and removed again."""
    if size is None:
        return None  # no collection yet: the first memory creates it
    probe = IndexPoint(
        PROBE_ID,
        [1.0] + [0.0] * (size - 1),
        {"memory_id": str(PROBE_ID), "user_id": "", "companion_id": "", "active": False},
    )
    try:
        index.upsert(MEMORIES_COLLECTION, [probe])
        index.delete(MEMORIES_COLLECTION, [PROBE_ID])
    except IndexDiskFullError as exc:
        return str(exc)  # space, not a rebuild, is what it needs
    except AriaMemError as exc:
        return (
            f"The index answers but a test write failed: {exc} — memories stay pending; "
            "`aria-mem reindex` rebuilds the index from PostgreSQL"
        )
    return None


def _embedder(embedder: Callable[[], Embedder], target: str) -> EmbedderCheck:
    model = None
    try:
        e = embedder()
        model = e.model_name
        size, latency = _timed(e.probe)
    except AriaMemError as exc:
        return EmbedderCheck("embedder", False, target, error=str(exc), model=model)
    return EmbedderCheck("embedder", True, target, latency, model=model, dimension=size)


def _dimension(ix: IndexCheck, em: EmbedderCheck) -> DimensionStatus:
    target = "index collections vs embedding model"
    if em.dimension is None or not ix.collections:
        return DimensionStatus("dimension", True, target, checked=False)
    sizes = {c.name: c.vector_size for c in ix.collections}
    mismatch = dimension_rule.mismatched(sizes, em.dimension)
    if mismatch:
        error = dimension_rule.describe(mismatch, em.model or "the model", em.dimension)
        return DimensionStatus(
            "dimension", False, target, error=error, model_dimension=em.dimension
        )
    return DimensionStatus("dimension", True, target, model_dimension=em.dimension)


def _lost_vectors(counts: MemoryCounts, memories: CollectionInfo) -> str | None:
    """PostgreSQL says memories have vectors, the index holds none: its folder was deleted or
    the server lost its data. Searches would be silently empty until it is rebuilt."""
    if not counts.with_vector or memories.points:
        return None
    where = "has no" if memories.vector_size is None else "holds no vectors in its"
    return (
        f"The index {where} '{MEMORIES_COLLECTION}' collection, but PostgreSQL has "
        f"{counts.with_vector} memories indexed — it was deleted or lost; run `aria-mem reindex`"
        " to rebuild it (the daemon also does, at its next sweep)"
    )


def _vectors(store: Store, index: VectorIndex, model: str, counts: MemoryCounts) -> VectorsCheck:
    """What PostgreSQL says is indexed under ``model`` against what the index holds of it,
    id by id: a count that agrees can still hide a lost vector behind a stale one."""
    target = f"index vs PostgreSQL, entry by entry, for {model}"
    start = time.perf_counter()
    indexed = present = missing = stale = other_model = 0
    try:
        for kind in Kind:
            expected = store.queue.indexed_ids(kind, model)
            held = set(index.ids(kind.collection, model))
            extra = sorted(held - expected)
            indexed, present = indexed + len(expected), present + len(held)
            missing += len(expected - held)
            stale += len(store.queue.unwanted(kind, extra, model)) if extra else 0
            if kind is Kind.MEMORY:
                other_model = max(0, counts.with_vector - len(expected))
    except AriaMemError as exc:
        return VectorsCheck("vectors", False, target, error=str(exc), counts_rows=True, model=model)
    latency = round((time.perf_counter() - start) * 1000, 2)
    problems = []
    if missing:
        problems.append(
            f"{missing} of the {indexed} entries PostgreSQL says are indexed under {model} "
            "have no vector in the index"
        )
    if other_model:
        problems.append(f"{other_model} memories are indexed under another model")
    if stale:
        problems.append(f"{stale} vectors of memories that are gone or may not be used remain")
    error = None
    if problems:
        error = (
            "; ".join(problems)
            + " — run `aria-mem sync` to repair it (the daemon also does, at its next sweep)"
        )
    return VectorsCheck(
        "vectors",
        not problems,
        target,
        latency,
        error,
        counts_rows=True,
        model=model,
        indexed=indexed,
        present=present,
        missing=missing,
        other_model=other_model,
        stale=stale,
    )


def _data_check(counts: MemoryCounts) -> DataCheck:
    """Rows PostgreSQL holds but Python cannot read as they are (an older aria-mem let in
    timestamps outside the years 1-9999): shown clamped, and reported here."""
    target = "memories in PostgreSQL"
    if not counts.unreadable:
        return DataCheck("data", True, target)
    return DataCheck(
        "data",
        False,
        target,
        error=(
            f"{counts.unreadable} memories carry timestamps outside the years 0001-9999 "
            "(stored by an older aria-mem); they are shown clamped (dated 0001-01-01 or "
            "9999-12-31 in `aria-mem list`) — forget them, or re-import them with valid dates"
        ),
        counts_rows=True,
        unreadable=counts.unreadable,
    )


def daemon_running(state: DaemonState | None, fallback_interval: float) -> bool:
    """The liveness rule (``domain.liveness``) applied to the daemon's record."""
    if state is None:
        return False
    same_host = state.host == socket.gethostname()
    return is_running(
        DaemonSighting(
            heartbeat_age_s=state.heartbeat_age_s,
            interval_s=state.reconcile_interval,
            stopped=state.stopped_at is not None,
            same_host=same_host,
            process_alive=aria_mem_alive(state.pid) if same_host and state.pid else None,
        ),
        fallback_interval,
    )


def _daemon_check(store: Store, interval: float) -> DaemonCheck:
    """The daemon is optional: not running is reported, not an error; a dimension mismatch
    it found is."""
    target = "aria-mem daemon"
    try:
        state = store.daemon.daemon_state()
        run = store.daemon.open_reindex()
    except AriaMemError as exc:
        return DaemonCheck("daemon", False, target, error=str(exc))
    running = daemon_running(state, interval)
    found = state.dimension if state is not None else None
    if running and found is not None and found.ok is False:
        return DaemonCheck(
            "daemon", False, target, error=found.error, running=True, state=state, reindex=run
        )
    return DaemonCheck("daemon", True, target, running=running, state=state, reindex=run)
