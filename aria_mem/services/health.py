"""`status`: is each service reachable, how fast, and do the index and the model agree?"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from aria_mem.domain.liveness import DaemonSighting, is_running
from aria_mem.domain.models import KNOWLEDGE_COLLECTION, MEMORIES_COLLECTION
from aria_mem.errors import AriaMemError
from aria_mem.ports import Embedder, MemoryStore, VectorIndex

T = TypeVar("T")


@dataclass
class Check:
    name: str
    ok: bool
    target: str
    latency_ms: float | None = None
    detail: dict[str, Any] = field(default_factory=dict)
    error: str | None = None


@dataclass
class StatusReport:
    checks: list[Check]
    counts: dict[str, int] | None

    @property
    def ok(self) -> bool:
        return all(c.ok for c in self.checks)

    def as_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "checks": {
                c.name: {
                    "ok": c.ok,
                    "target": c.target,
                    "latency_ms": c.latency_ms,
                    "error": c.error,
                    **c.detail,
                }
                for c in self.checks
            },
            "memories": self.counts,
        }


def _timed(action: Callable[[], T]) -> tuple[T, float]:
    start = time.perf_counter()
    result = action()
    return result, round((time.perf_counter() - start) * 1000, 2)


def collect(
    store: Callable[[], MemoryStore],
    index: Callable[[], VectorIndex],
    embedder: Callable[[], Embedder],
    targets: dict[str, str],
    daemon_interval: float = 60.0,
) -> StatusReport:
    """Check each service in turn; one failing never stops the others being checked."""
    checks: list[Check] = []
    counts: dict[str, int] | None = None

    pg = Check("postgres", False, targets["postgres"])
    try:
        s = store()
        _, pg.latency_ms = _timed(s.ping)
        counts = s.counts()
        pg.ok = True
    except AriaMemError as exc:
        pg.error = str(exc)
    checks.append(pg)

    ix = Check("index", False, targets["index"])
    sizes: dict[str, int | None] = {}
    try:
        i = index()
        sizes, ix.latency_ms = _timed(
            lambda: {c: i.collection_size(c) for c in (MEMORIES_COLLECTION, KNOWLEDGE_COLLECTION)}
        )
        ix.detail["collections"] = {
            c: {"vector_size": size, "points": i.count(c) if size is not None else 0}
            for c, size in sizes.items()
        }
        ix.ok = True
    except AriaMemError as exc:
        ix.error = str(exc)
    checks.append(ix)

    if counts is not None and ix.ok:
        lost = _lost_vectors(counts, ix.detail["collections"][MEMORIES_COLLECTION])
        if lost:
            ix.ok, ix.error = False, lost
    if counts is not None:
        checks.append(_data_check(counts))

    em = Check("embedder", False, targets["embedder"])
    dimension: int | None = None
    try:
        e = embedder()
        em.detail["model"] = e.model_name
        dimension, em.latency_ms = _timed(e.dimension)
        em.detail["dimension"] = dimension
        em.ok = True
    except AriaMemError as exc:
        em.error = str(exc)
    checks.append(em)

    dim = Check("dimension", True, "index collections vs embedding model")
    mismatches = []
    for collection, size in sizes.items():
        if size is not None and dimension is not None and size != dimension:
            mismatches.append(
                f"'{collection}' holds {size}-dimensional vectors but the model "
                f"makes {dimension}-dimensional ones"
            )
    if mismatches:
        dim.ok = False
        dim.error = "; ".join(mismatches) + " — run `aria-mem reindex` to rebuild for this model"
    elif dimension is None or not ix.ok:
        dim.detail["checked"] = False
    dim.detail["model_dimension"] = dimension
    checks.append(dim)
    if pg.ok:
        checks.append(_daemon_check(store(), daemon_interval))
    return StatusReport(checks, counts)


def _lost_vectors(counts: dict[str, int], memories: dict[str, Any]) -> str | None:
    """PostgreSQL says memories have vectors, the index holds none: its folder was deleted or
    the server lost its data. Searches would be silently empty until it is rebuilt."""
    expected = counts.get("with_vector", 0)
    if not expected or memories["points"]:
        return None
    where = "has no" if memories["vector_size"] is None else "holds no vectors in its"
    return (
        f"The index {where} '{MEMORIES_COLLECTION}' collection, but PostgreSQL has {expected} "
        "memories indexed — it was deleted or lost; run `aria-mem reindex` to rebuild it "
        "(the daemon also does, at its next sweep)"
    )


def _data_check(counts: dict[str, int]) -> Check:
    """Rows PostgreSQL holds but Python cannot read as they are (an older aria-mem let in
    timestamps outside the years 1-9999): shown clamped, and reported here."""
    check = Check("data", True, "memories in PostgreSQL")
    unreadable = counts.get("unreadable", 0)
    check.detail["unreadable"] = unreadable
    if unreadable:
        check.ok = False
        check.error = (
            f"{unreadable} memories carry timestamps outside the years 0001-9999 (stored by an "
            "older aria-mem); they are shown clamped (dated 0001-01-01 or 9999-12-31 in "
            "`aria-mem list`) — forget them, or re-import them with valid dates"
        )
    return check


def _process_alive(pid: int) -> bool:
    """Is ``pid`` a live aria-mem process on this machine? (A killed daemon's pid may already
    belong to something else, or be a zombie with no command line.)"""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    try:
        command = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return True
    return b"aria_mem" in command or b"aria-mem" in command


def daemon_running(state: dict[str, Any] | None, fallback_interval: float) -> bool:
    """The liveness rule (``domain.liveness``) applied to the daemon's row."""
    if not state:
        return False
    same_host = state.get("host") == socket.gethostname()
    pid = state.get("pid")
    age = state.get("heartbeat_age")
    interval = state.get("reconcile_interval")
    return is_running(
        DaemonSighting(
            heartbeat_age_s=None if age is None else float(age),
            interval_s=None if interval is None else float(interval),
            stopped=state.get("stopped_at") is not None,
            same_host=same_host,
            process_alive=_process_alive(int(pid)) if same_host and pid else None,
        ),
        fallback_interval,
    )


def _daemon_check(store: MemoryStore, interval: float) -> Check:
    """The daemon is optional: not running is reported, not an error; a dimension mismatch
    it found is."""
    check = Check("daemon", True, "aria-mem daemon")
    try:
        state = store.daemon_state()
        run = store.open_reindex()
    except AriaMemError as exc:
        check.ok, check.error = False, str(exc)
        return check
    if run is not None:
        done = max(0, int(run["total"]) - int(run["pending"]))
        check.detail["reindex"] = {
            "model": run["model"],
            "total": run["total"],
            "done": done,
            "started_at": str(run["started_at"]),
            "background": run["background"],
        }
    if state is None:
        check.detail["running"] = False
        return check
    age = state.get("heartbeat_age")
    check.detail["running"] = daemon_running(state, interval)
    check.detail["heartbeat_age_s"] = None if age is None else round(float(age), 1)
    check.detail["interval_s"] = state.get("reconcile_interval")
    if state.get("stopped_at") is not None:
        check.detail["stopped_at"] = str(state["stopped_at"])
    check.detail["pid"] = state.get("pid")
    check.detail["last_pass"] = state.get("last_pass")
    check.detail["last_sweep"] = state.get("last_sweep")
    dimension = state.get("dimension") or {}
    check.detail["dimension"] = dimension
    if check.detail["running"] and dimension.get("ok") is False:
        check.ok, check.error = False, str(dimension.get("error"))
    return check
