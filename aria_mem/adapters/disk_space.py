"""Room on the disk before the embedded index writes.

Qdrant Edge writes its shards through memory-mapped files, sparse until written: on a full disk
a write into a page the file system cannot back is not an error but SIGBUS, which kills the
process (the aria-mem service, and every client's call with it). Python cannot catch it. So
``EdgeIndex`` writes nothing without room: each write first checks the free space of the index
folder's file system and, short of what the write needs, raises ``IndexDiskFullError`` with
nothing written (the memories stay pending in PostgreSQL; once there is room again the next write
goes through and the daemon or `aria-mem sync` indexes them). An ENOSPC that still comes back
from Edge, or from a plain file write, is raised as the same error.
"""

from __future__ import annotations

import errno
import json
import os
from collections.abc import Sequence
from pathlib import Path

from aria_mem.domain.models import IndexPoint
from aria_mem.errors import IndexDiskFullError

MB = 1024 * 1024
MIN_FREE_BYTES = 64 * MB
"""The free space every write leaves: Edge allocates in pieces of up to 32 MB (a write-ahead
log segment, a chunk of vectors, a page of payloads), sparse files whose pages are backed only
when written; creating a collection takes 22 MB at once. Twice the largest piece covers one
write's own pages and what else on the disk is written meanwhile."""
WRITE_FACTOR = 4
"""A write needs about four times its own size besides (the log record, the vector, the payload
and its indexes): a batch of 256 memories with 384-dimensional vectors takes ~1 MB."""
OPEN_FREE_BYTES = 8 * MB
"""Opening a shard needs this beside its holes (``sparse_bytes``): Edge fills in parts of its
memory maps as it opens them (a fresh shard of 384-dimensional vectors took 52 MB of its 149 MB
of holes at its first opening), so a shard is opened only when all its holes could be filled;
below that a service started on a nearly full disk says so, and never crashes."""


def room_for(points: Sequence[IndexPoint]) -> int:
    """The free space a write of ``points`` needs."""
    own = sum(4 * len(p.vector) + len(json.dumps(p.payload, default=str)) for p in points)
    return MIN_FREE_BYTES + WRITE_FACTOR * own


def sparse_bytes(folder: Path) -> int:
    """The holes of the files under ``folder``: what writing every page of them would take."""
    total = 0
    for dirpath, _dirs, files in os.walk(folder):
        for name in files:
            try:
                stat = os.lstat(os.path.join(dirpath, name))
            except OSError:
                continue
            total += max(0, stat.st_size - stat.st_blocks * 512)
    return total


def free_bytes(folder: Path) -> int | None:
    """Free space for this account on ``folder``'s file system; None when it cannot be read."""
    try:
        stat = os.statvfs(folder)
    except OSError:
        return None
    return stat.f_bavail * stat.f_frsize


def disk_full(folder: Path, needed: int = MIN_FREE_BYTES) -> IndexDiskFullError:
    free = free_bytes(folder) or 0
    return IndexDiskFullError(
        f"Disk full: the index folder {folder} has {free / MB:.0f} MB free, the index writes "
        f"only with {needed / MB:.0f} MB — free some space there; memories stay pending until "
        "then (the daemon or `aria-mem sync` indexes them)"
    )


def ensure_room(folder: Path, needed: int) -> None:
    """Refuse a write the file system may not be able to back."""
    free = free_bytes(folder)
    if free is not None and free < needed:
        raise disk_full(folder, needed)


def no_space(exc: BaseException) -> bool:
    """Was ``exc`` a full disk? Edge names ENOSPC only in the text of its errors."""
    if isinstance(exc, OSError):
        return exc.errno == errno.ENOSPC
    text = str(exc)
    return "No space left on device" in text or "os error 28" in text
