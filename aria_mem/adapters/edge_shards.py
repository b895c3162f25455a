"""Making and opening Qdrant Edge shards with aria-mem's settings (``qdrant_edge`` keeps them)."""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import qdrant_edge as qe

log = logging.getLogger(__name__)

VECTOR = "dense"
"""The name of a shard's one dense vector."""

_WAL_RETRY_SECONDS = 10.0

SEARCH_THREADS = 1
"""Edge searches on the calling thread. Its default, a pool of threads per shard (eight on a
two-core machine) that the caller hands each search to and waits for, cost a search 0.29 ms
against 0.20 ms here (REALTALK's shard, a median of 900; the retriever already runs its search
in a worker of its own), and the pool's idle threads spin, taking a core from the model and
the rest of the trip (docs/performance.md)."""

_OTHER_SIZE = re.compile(r"expected vector size (\d+), but got (\d+)")
"""How Edge refuses a shard opened with vectors of another size than it holds."""


def made(path: Path, size: int) -> Any:
    """A new shard at ``path`` for cosine vectors of ``size``."""
    config = _config(size)
    return _opening(lambda: qe.EdgeShard.create(str(path), config))


def loaded(path: Path, size: int) -> tuple[Any, int]:
    """The shard at ``path``, opened with ``_config``, and the size of its vectors: not always
    the size the folder records for it (``size``), as a crash between making a shard and
    recording its size can leave it; then the shard's own is returned, for the record, so that
    the dimension checks say what is wrong and how to mend it."""
    try:
        return _opening(lambda: qe.EdgeShard.load(str(path), _config(size))), size
    except Exception as exc:
        other = _OTHER_SIZE.search(str(exc))
        if other is None or int(other.group(1)) != size:
            raise
        held = int(other.group(2))
    log.warning("the index shard %s holds vectors of %d, not the %d recorded", path, held, size)
    return _opening(lambda: qe.EdgeShard.load(str(path), _config(held))), held


def _config(size: int) -> Any:
    """A shard's settings, to make it or to open it: cosine vectors of ``size`` and
    ``SEARCH_THREADS``."""
    vectors = {VECTOR: qe.EdgeVectorParams(size=size, distance=qe.Distance.Cosine)}
    return qe.EdgeConfig(vectors=vectors, max_search_threads=SEARCH_THREADS)


def _opening(open_shard: Callable[[], Any]) -> Any:
    """Open a shard, waiting while another process still holds its write-ahead log: a service
    that held the index may be exiting, its lock file released before its shard handles."""
    deadline = time.monotonic() + _WAL_RETRY_SECONDS
    while True:
        try:
            return open_shard()
        except Exception as exc:
            if "WouldBlock" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.05)
