"""What a killed embedded PostgreSQL leaves behind, and how long a start waits for it to go.

A postmaster killed with SIGKILL (an out-of-memory kill, a crash) leaves ``postmaster.pid``
behind and its backends running until they notice: an idle one at once, one busy in a query
only when the query ends. Each keeps the server's System V shared memory segment attached, and
PostgreSQL refuses to start on a data folder whose old segment is attached ("pre-existing
shared memory block ... is still in use"): it protects the data from two servers at once. The
killed postmaster itself stays a zombie until its parent (init) reaps it, and while its pid
answers a signal PostgreSQL takes it for a running server ("lock file already exists").

So a command that comes within seconds of such a crash first waits, for a bounded time, for
those processes to go. They are read from ``/proc`` (Linux): the segment named on the seventh
line of ``postmaster.pid`` (key and id) and its count of attached processes in
``/proc/sysvipc/shm``, and the server account's ``postgres`` processes that work in the data
folder (every backend does). Where ``/proc`` cannot tell, the start itself is retried while
PostgreSQL's log says it was refused for these reasons.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from aria_mem.adapters.postgres.cluster_files import made_socket_folder
from aria_mem.errors import StoreError

log = logging.getLogger(__name__)

PROC = Path("/proc")
WAIT_S = 15.0
"""How long a start waits for a killed server's processes: a backend notices the death of its
postmaster when its query ends, and a query of the memory layer takes milliseconds."""
POLL_S = 0.1
REFUSALS = ("pre-existing shared memory block", "lock file")
"""What PostgreSQL logs when it refuses to start beside a killed server's processes."""


class HeldByOldServer(StoreError):
    """A killed server's processes outlasted the wait: the message is the whole story."""


@dataclass(frozen=True)
class Leftovers:
    """What remains of a server whose postmaster is dead."""

    postmaster: int
    zombie: bool
    """The postmaster is dead but not yet reaped (its pid still answers a signal)."""
    processes: tuple[int, ...]
    """Its processes still alive (backends, the checkpointer...)."""
    attached: int
    """How many processes have its shared memory segment attached (0 when unknown)."""

    @property
    def holding(self) -> bool:
        """Would PostgreSQL refuse to start because of these processes?"""
        return bool(self.processes) or self.attached > 0

    def describe(self, pgdata: Path, waited: float) -> str:
        """The one line to say when they have not gone in time: what holds it, and the fix."""
        if self.processes:
            pids = " ".join(map(str, self.processes))
            what = f"its processes {', '.join(map(str, self.processes))} still run"
            fix = f"wait for them to end, or end them (kill {pids}), then run the command again"
        else:
            what = f"{self.attached} process(es) still have its shared memory attached"
            fix = "end the old `postgres` processes (ipcs -m -p lists them), then run it again"
        return (
            f"The embedded PostgreSQL in {pgdata} cannot start: its previous server (pid "
            f"{self.postmaster}) was killed and {what} after a {waited:g}s wait — {fix}"
        )


def _state(pid: int) -> str | None:
    """The process's state letter from /proc (``Z`` for a zombie), or None when unknown."""
    try:
        stat = (PROC / str(pid) / "stat").read_text()
    except OSError:
        return None
    return stat.rpartition(")")[2].split()[0] if ")" in stat else None


def is_dead(pid: int) -> bool:
    """Gone, or a zombie waiting to be reaped (its signal still finds it: it is dead all
    the same)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        pass
    return _state(pid) == "Z"


def attached_count(shm_table: str, key: int, shm_id: int) -> int:
    """Processes attached to the segment (``key``, ``shm_id``) in the text of
    /proc/sysvipc/shm (columns: key shmid perms size cpid lpid nattch ...); 0 when absent."""
    for line in shm_table.splitlines()[1:]:
        fields = line.split()
        if len(fields) > 6 and fields[0] == str(key) and fields[1] == str(shm_id):
            return int(fields[6])
    return 0


def _segment(lines: list[str]) -> tuple[int, int] | None:
    parts = lines[6].split() if len(lines) > 6 else []
    if len(parts) == 2 and all(p.isdigit() for p in parts):
        return int(parts[0]), int(parts[1])
    return None


def _attached(lines: list[str]) -> int:
    segment = _segment(lines)
    if segment is None:
        return 0
    try:
        return attached_count((PROC / "sysvipc" / "shm").read_text(), *segment)
    except OSError:
        return 0


def server_processes(pgdata: Path, uid: int) -> tuple[int, ...]:
    """The live ``postgres`` processes of account ``uid`` that work in ``pgdata``."""
    target = os.path.realpath(pgdata)
    found = []
    try:
        entries = list(PROC.iterdir())
    except OSError:
        return ()
    for entry in entries:
        if not entry.name.isdigit():
            continue
        try:
            if (
                entry.stat().st_uid != uid
                or (entry / "comm").read_text().strip() != "postgres"
                or os.readlink(entry / "cwd") != target
            ):
                continue
        except OSError:
            continue  # gone meanwhile, a zombie (no cwd), or not ours to read
        found.append(int(entry.name))
    return tuple(sorted(found))


def leftovers(pgdata: Path, uid: int) -> Leftovers | None:
    """What a dead postmaster named in ``pgdata/postmaster.pid`` left, or None when there is
    no such file, it is half-written, or its postmaster is alive."""
    try:
        lines = (pgdata / "postmaster.pid").read_text().splitlines()
    except OSError:
        return None
    if not lines or not lines[0].strip().isdigit():
        return None
    pid = int(lines[0])
    if not is_dead(pid):
        return None
    processes = tuple(p for p in server_processes(pgdata, uid) if p != pid)
    return Leftovers(pid, _state(pid) == "Z", processes, _attached(lines))


def refused(log: Path, offset: int) -> bool:
    """Did the server's log, past ``offset``, say it refused to start beside old processes?"""
    try:
        with log.open("rb") as handle:
            handle.seek(offset)
            written = handle.read().decode("utf-8", "replace")
    except OSError:
        return False
    return any(reason in written for reason in REFUSALS)


def _clear_locks(pgdata: Path, postmaster: int, uid: int) -> None:
    """Remove the lock files of a dead postmaster whose pid still answers a signal (a zombie
    init has not reaped: where init never reaps, it stays): PostgreSQL would take it for a
    running server. No process holds the old server any more, and PostgreSQL still finds
    the old shared memory by the data folder's inode, so this is safe."""
    pid_file = pgdata / "postmaster.pid"
    try:
        lines = pid_file.read_text().splitlines()
    except OSError:
        return
    if len(lines) < 5 or lines[0].strip() != str(postmaster) or not lines[3].strip().isdigit():
        return
    socket_dir = Path(lines[4].strip()) if lines[4].strip() else pgdata
    if not made_socket_folder(socket_dir, pgdata, uid):  # the server's account wrote that file
        socket_dir = pgdata
    socket_lock = socket_dir / f".s.PGSQL.{lines[3].strip()}.lock"
    try:
        if socket_lock.read_text().splitlines()[:1] == [str(postmaster)]:
            socket_lock.unlink()
    except (OSError, IndexError):
        pass  # gone already, or not the dead server's
    pid_file.unlink(missing_ok=True)


def start_when_free(
    pgdata: Path, uid: int, start: Callable[[], None], *, wait: float | None = None
) -> None:
    """Run ``start`` once a killed server's processes have gone (waiting at most ``wait``
    seconds, ``WAIT_S`` by default), and again while the server's log says it was refused
    because of them; raise ``HeldByOldServer`` naming what still holds the data folder when
    they outlast the wait."""
    wait = WAIT_S if wait is None else wait
    deadline = time.monotonic() + wait
    while True:
        left = leftovers(pgdata, uid)
        if left is not None and left.holding:
            if time.monotonic() >= deadline:
                raise HeldByOldServer(left.describe(pgdata, wait))
            time.sleep(POLL_S)
            continue
        if left is not None and left.zombie:
            _clear_locks(pgdata, left.postmaster, uid)
        server_log = pgdata / "log"
        offset = server_log.stat().st_size if server_log.exists() else 0
        try:
            start()
            return
        except StoreError:
            if time.monotonic() >= deadline or not refused(server_log, offset):
                raise
        log.info("the embedded PostgreSQL refused to start beside old processes; retrying")
        time.sleep(POLL_S)
