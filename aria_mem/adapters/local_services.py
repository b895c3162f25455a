"""Stopping what aria-mem starts on this machine: the process that owns the embedded index
(the daemon, a chat, the MCP server) and the embedded PostgreSQL server."""

from __future__ import annotations

import fcntl
import os
import signal
import time
from pathlib import Path

from aria_mem.errors import StoreError

LOCK_NAME = "index.lock"


def _is_aria_mem(pid: int) -> bool:
    try:
        command = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False
    return b"aria_mem" in command or b"aria-mem" in command


def _held(lock: Path) -> bool:
    """Does some process hold the index lock? (Taking it for a moment tells.)"""
    try:
        fd = os.open(lock, os.O_RDONLY)
    except FileNotFoundError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


def stop_index_owner(index_dir: Path, *, wait_seconds: float = 15.0) -> int | None:
    """Ask the aria-mem process that owns the index in ``index_dir`` to stop (SIGTERM: the
    daemon finishes its batch, records that it stopped and exits) and wait until it has let go
    of the index. Its pid, or None when no aria-mem process owns it."""
    lock = index_dir / LOCK_NAME
    if not _held(lock):
        return None
    try:
        pid = int(lock.read_text().strip())
    except (OSError, ValueError):
        return None
    if pid == os.getpid() or not _is_aria_mem(pid):
        return None
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + wait_seconds
    while _held(lock):
        if time.monotonic() > deadline:
            raise StoreError(
                f"aria-mem process {pid} still holds the index after {wait_seconds:g}s — "
                f"stop it with `kill {pid}`"
            )
        time.sleep(0.05)
    return pid
