"""A full disk under the embedded index (issue 34.2): the aria-mem service lives on, says "Disk
full" in one line, keeps the memories pending in PostgreSQL, and catches up once there is room.

The index folder is a small tmpfs of its own (PostgreSQL stays on the test's disk), filled by a
file while memories are written. Edge writes through sparse memory-mapped files, so without the
free-space check a write on the full disk was SIGBUS: the service died and every client saw
"kept going away"."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from aria_mem.adapters.disk_space import (
    MB,
    MIN_FREE_BYTES,
    free_bytes,
    no_space,
)
from aria_mem.adapters.postgres import embedded
from aria_mem.adapters.qdrant_edge import EdgeIndex
from aria_mem.adapters.service.folder import lock_held, stop_service
from aria_mem.domain.models import IndexPoint, SearchScope
from aria_mem.errors import IndexDiskFullError
from tests.conftest import CliResult
from tests.test_daemon import DaemonProcess

Cli = Callable[..., CliResult]
IN_PROCESS = {
    "ARIA_MEM_EMBEDDER_PROVIDER": "sentence-transformers",
    "ARIA_MEM_RETRIEVAL_MIN_SIMILARITY": "0.25",
}
DISK_MB = 320
LEFT = 24 * MB
"""What the filler leaves at first: short of what a write needs."""
assert LEFT < MIN_FREE_BYTES


@pytest.fixture
def small_disk(isolated_env: Path) -> Iterator[Path]:
    """The index folder (``data/index``) as a tmpfs of DISK_MB; skipped where mounting is
    refused (not root, or a container without CAP_SYS_ADMIN)."""
    data = isolated_env / "data"
    index = data / "index"
    index.mkdir(parents=True)
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={DISK_MB}m,mode=0700", "tmpfs", str(index)],
        capture_output=True,
        text=True,
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a small file system here: {mounted.stderr.strip()}")
    try:
        yield index
    finally:
        try:
            pid = stop_service(index) if lock_held(index) else None
            deadline = time.monotonic() + 30
            while pid and Path(f"/proc/{pid}").exists() and time.monotonic() < deadline:
                time.sleep(0.05)  # it let go of the lock; its maps of the shards go with it
        finally:
            if subprocess.run(["umount", str(index)], capture_output=True).returncode != 0:
                subprocess.run(["umount", "-l", str(index)], check=True)
            embedded.stop(data / "postgres")


def _fill(path: Path, leave: int) -> None:
    """Grow ``path`` until its file system has ``leave`` bytes free (0: until it is full)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        while (free := free_bytes(path.parent) or 0) > leave:
            try:
                os.write(fd, b"\xa5" * min(MB, free - leave))
            except OSError as exc:
                if exc.errno != errno.ENOSPC:
                    raise
                return
    finally:
        os.close(fd)


def _remember(cli: Cli, text: str, env: dict[str, str]) -> dict[str, object]:
    made = cli("remember", text, "--json", env=env)
    assert made.code == 0, made.stderr
    result: dict[str, object] = _json(made)
    return result


def _json(done: CliResult) -> Any:
    assert done.stdout.strip(), f"exit {done.code}, no output: {done.stderr}"
    return json.loads(done.stdout)


def _disk_full_line(problem: object) -> None:
    assert isinstance(problem, str) and problem.startswith("Disk full:"), problem
    assert "\n" not in problem and "reindex" not in problem


def _states(cli: Cli, env: dict[str, str]) -> dict[str, str]:
    listed = cli("list", "--json", "--limit", "200", env=env)
    assert listed.code == 0, listed.stderr
    return {m["text"]: m["index_state"] for m in _json(listed)}


def _owner_pid(cli: Cli, env: dict[str, str]) -> int:
    status = cli("status", "--json", env=env)
    return int(_json(status)["checks"]["index"]["owner"]["pid"])


@pytest.mark.slow
def test_a_disk_filled_during_writes_leaves_the_service_running_and_nothing_lost(
    cli: Cli, small_disk: Path
) -> None:
    env = IN_PROCESS
    first = _remember(cli, "The user plays the cello.", env)
    assert first["indexed"] is True
    pid = _owner_pid(cli, env)
    filler = small_disk / "filler"

    # Filled while memories are written: each is indexed, or saved pending with the one line.
    filling = threading.Thread(target=_fill, args=(filler, LEFT))
    filling.start()
    during: list[dict[str, object]] = []
    while filling.is_alive() or not during:
        during.append(_remember(cli, f"The user's fact number {len(during)}.", env))
    filling.join()
    for result in during:
        if result["indexed"] is not True:
            _disk_full_line(result["problem"])

    # Then full to the last byte: still alive, still answering searches, still one line.
    _fill(filler, 0)
    assert free_bytes(small_disk) == 0
    full = _remember(cli, "The user grows tomatoes on the balcony.", env)
    assert full["indexed"] is False and full["index_state"] == "pending"
    _disk_full_line(full["problem"])
    shown = cli("remember", "The user speaks Portuguese.", env=env)
    assert shown.code == 0 and shown.stdout.count("Disk full") == 1, shown.stdout
    assert "index update pending" in shown.stdout and "reindex" not in shown.stdout
    status = cli("status", "--json", env=env)
    index = _json(status)["checks"]["index"]
    assert status.code == 1 and index["ok"] is False
    _disk_full_line(index["error"])
    assert index["owner"]["pid"] == pid and Path(f"/proc/{pid}").exists()
    found = cli("search", "Who plays the cello?", "--json", env=env)
    assert found.code == 0, found.stderr
    assert "The user plays the cello." in {m["text"] for m in _json(found)["memories"]}
    states = _states(cli, env)
    assert states["The user grows tomatoes on the balcony."] == "pending"
    assert len(states) == 3 + len(during)

    # Stopped while the disk is full (as by its idle exit), the next command's service cannot
    # open the shard (opening fills in parts of it): it says so the same way, and lives.
    assert cli("stop", env=env).code == 0
    late = _remember(cli, "The user sings in a choir.", env)
    _disk_full_line(late["problem"])
    restarted = cli("status", "--json", env=env)
    index = _json(restarted)["checks"]["index"]
    _disk_full_line(index["error"])
    pid = int((small_disk / "index.lock").read_text())
    found = cli("search", "Does the user sing?", "--json", env=env)
    assert found.code == 0 and Path(f"/proc/{pid}").exists(), found.stderr

    # Room again: the next sync indexes every pending memory, on the same service.
    filler.unlink()
    synced = cli("sync", "--json", env=env)
    assert synced.code == 0, synced.stdout + synced.stderr
    assert set(_states(cli, env).values()) == {"indexed"}, _states(cli, env)
    again = cli("status", "--json", env=env)
    assert again.code == 0, again.stdout
    assert _json(again)["checks"]["index"]["owner"]["pid"] == pid
    found = cli("search", "Who grows tomatoes on a balcony?", "--json", env=env)
    texts = {m["text"] for m in _json(found)["memories"]}
    assert "The user grows tomatoes on the balcony." in texts


@pytest.mark.slow
def test_the_daemon_indexes_what_a_full_disk_left_pending_once_there_is_room(
    cli: Cli, small_disk: Path
) -> None:
    env = IN_PROCESS
    daemon = DaemonProcess(env)
    try:
        daemon.wait_for("pass:", timeout=120)
        assert _remember(cli, "The user plays the cello.", env)["indexed"] is True
        filler = small_disk / "filler"
        _fill(filler, 0)
        pending = _remember(cli, "The user grows tomatoes on the balcony.", env)
        _disk_full_line(pending["problem"])
        seen = daemon.wait_for("Disk full", timeout=60)
        assert daemon.proc.poll() is None
        filler.unlink()
        daemon.wait_for("pass: indexed=1 ", timeout=60, after=seen)
        assert set(_states(cli, env).values()) == {"indexed"}
        assert cli("status", "--json", env=env).code == 0
    finally:
        code = daemon.stop()
    assert code == 0, "\n".join(daemon.lines)


@pytest.fixture
def small_folder(tmp_path: Path) -> Iterator[Path]:
    """A tmpfs of 256 MB of its own, for the index adapter alone (a fresh shard has 149 MB of
    holes, which opening it may fill)."""
    folder = tmp_path / "small"
    folder.mkdir(mode=0o700)
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=256m,mode=0700", "tmpfs", str(folder)],
        capture_output=True,
        text=True,
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a small file system here: {mounted.stderr.strip()}")
    try:
        yield folder
    finally:
        if subprocess.run(["umount", str(folder)], capture_output=True).returncode != 0:
            subprocess.run(["umount", "-l", str(folder)], check=True)


def _point(n: int) -> IndexPoint:
    return IndexPoint(
        uuid.uuid5(uuid.NAMESPACE_OID, str(n)),
        [1.0, float(n), 0.5],
        {
            "memory_id": str(n),
            "user_id": "u",
            "companion_id": "c",
            "embedding_model": "m",
            "active": True,
        },
    )


def test_the_edge_index_refuses_writes_and_opens_on_a_full_disk_and_resumes(
    small_folder: Path,
) -> None:
    """Every write, and opening a shard, on a file system with no room: refused with the
    disk-full error (never SIGBUS, which would end this test's own process); the open shard
    still answers searches; with room again the same index writes."""
    root = small_folder / "index"
    root.mkdir(mode=0o700)
    scope = SearchScope("u", "c", "m")
    index = EdgeIndex(root)
    index.ensure_collection("memories", 3)
    index.upsert("memories", [_point(1)])
    filler = small_folder / "filler"
    _fill(filler, 0)
    try:
        with pytest.raises(IndexDiskFullError, match="^Disk full: "):
            index.upsert("memories", [_point(2)])
        with pytest.raises(IndexDiskFullError):
            index.delete("memories", [_point(1).id])
        with pytest.raises(IndexDiskFullError):
            index.ensure_collection("knowledge", 3)
        assert [h.id for h in index.search("memories", [1.0, 1.0, 0.5], scope, 5)] == [_point(1).id]
        index.close()
        index = EdgeIndex(root)  # a service started on the full disk
        with pytest.raises(IndexDiskFullError):
            index.search("memories", [1.0, 1.0, 0.5], scope, 5)
    finally:
        filler.unlink()
    index.upsert("memories", [_point(2)])
    assert index.count("memories") == 2
    index.close()


def test_a_full_disk_is_told_from_other_failures_by_errno_or_edges_words() -> None:
    assert no_space(OSError(errno.ENOSPC, "No space left on device"))
    assert no_space(RuntimeError("Service internal error: No space left on device (os error 28)"))
    assert not no_space(OSError(errno.EACCES, "Permission denied"))
    assert not no_space(RuntimeError("Can't init WAL: WouldBlock"))
