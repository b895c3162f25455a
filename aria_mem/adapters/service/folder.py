"""The service's folder rules: the index folder (0700) holds the shards, the socket and
``index.lock``, whose exclusive lock says which process serves the folder (its pid inside, for
``stop_service``); the service's log sits in the data folder above it and starts afresh past
``MAX_LOG_BYTES``. It also knows which folder's service this process runs, if any (the
daemon's), so that its own clients are answered in place."""

from __future__ import annotations

import fcntl
import os
import signal
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING

from aria_mem.errors import StoreError
from aria_mem.private import FILE_MODE, private_dir
from aria_mem.processes import aria_mem_alive, is_aria_mem

if TYPE_CHECKING:
    from aria_mem.adapters.service.protocol import Host

LOCK_NAME = "index.lock"
LOG_NAME = "service.log"
MAX_LOG_BYTES = 5 * 1024 * 1024
"""A log over this size is started afresh when the service starts."""

_hosted: dict[Path, Host] = {}
"""The service this process runs, by its folder resolved, and by that folder as ``host`` was
given it: the service's own clients name it so, three times a search, and resolving it each
time cost 15-20 us of system calls."""
_hosted_lock = threading.Lock()


def hosted(root: Path) -> Host | None:
    """The service of ``root`` when this process runs it (the daemon), else None: its
    clients in this process are answered in place, without the socket."""
    if not _hosted:  # a client's process (resolving the path costs a few system calls)
        return None
    with _hosted_lock:
        found = _hosted.get(root)
        return found if found is not None else _hosted.get(root.resolve())


def host(root: Path, service: Host) -> None:
    with _hosted_lock:
        _hosted[root.resolve()] = service
        if root.is_absolute():  # a relative name would mean another folder after a chdir
            _hosted[root] = service


def unhost(*, root: Path, service: Host) -> None:
    with _hosted_lock:
        for name in {root, root.resolve()}:
            if _hosted.get(name) is service:
                del _hosted[name]


def lock_held(root: Path) -> bool:
    """Does some process run the service of ``root``? (Taking its lock for a moment tells.)"""
    try:
        fd = os.open(root / LOCK_NAME, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


def stop_service(root: Path, *, wait_seconds: float = 15.0) -> int | None:
    """Ask the aria-mem service of ``root`` to stop (SIGTERM: it finishes what it is
    doing; the daemon records that it stopped) and wait until it has let go of the index. Its
    pid, or None when no aria-mem process runs it."""
    lock = root / LOCK_NAME
    if not lock_held(root):
        return None
    try:
        pid = int(lock.read_text().strip())
    except (OSError, ValueError):
        return None
    if pid == os.getpid() or not is_aria_mem(pid):  # unknown: never signalled
        return None
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + wait_seconds
    while lock_held(root) and aria_mem_alive(pid):
        if time.monotonic() > deadline:
            raise StoreError(
                f"aria-mem process {pid} still holds the index after {wait_seconds:g}s — "
                f"stop it with `kill {pid}`"
            )
        time.sleep(0.05)
    return pid


def log_path_for(root: Path) -> Path:
    return root.parent / LOG_NAME


def open_log(path: Path) -> int:
    private_dir(path.parent, what="data folder")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW, FILE_MODE)
    os.fchmod(fd, FILE_MODE)
    if os.fstat(fd).st_size > MAX_LOG_BYTES:
        os.ftruncate(fd, 0)
    return fd


def read_log_tail(root: Path, lines: int = 3) -> str:
    try:
        text = log_path_for(root).read_text(errors="replace")
    except OSError:
        return ""
    return " | ".join(line for line in text.splitlines()[-lines:] if line.strip())
