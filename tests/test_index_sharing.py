"""One aria-mem service per index: real processes, real shards. A client starts the service
when none answers and never opens the shards itself; a service that goes away is replaced
by the next call; an older one is restarted, a newer one named."""

from __future__ import annotations

import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import qdrant_edge as qe

from aria_mem.adapters.postgres.cluster_files import SOCKET_FOLDER
from aria_mem.adapters.postgres.embedded import INITDB_STAGE
from aria_mem.adapters.qdrant_edge import EdgeIndex
from aria_mem.adapters.service import protocol as wire
from aria_mem.adapters.service.client import ServiceClient
from aria_mem.adapters.service.folder import lock_held, stop_service
from aria_mem.adapters.service.protocol import socket_path_for
from aria_mem.adapters.service.server import IndexService
from aria_mem.adapters.service.shared_index import SharedEdgeIndex
from aria_mem.domain.models import IndexPoint, SearchScope
from aria_mem.errors import VectorIndexError
from tests.conftest import CHILD, ROOT
from tests.fakes.vectors import embed

OPEN_A_SHARD = "import sys, qdrant_edge as qe; qe.EdgeShard.load(sys.argv[1])"


def _child(root: Path, user: str, count: int, *flags: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [*CHILD, str(root), user, str(count), *flags],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _first_line(child: subprocess.Popen[str]) -> str:
    assert child.stdout is not None
    line = child.stdout.readline()
    assert line.startswith("service="), line + (child.stderr.read() if child.stderr else "")
    return line


def fake_point(text: str, user: str) -> IndexPoint:
    pid = uuid.uuid4()
    payload = {"memory_id": str(pid), "user_id": user, "companion_id": "aria", "active": True}
    return IndexPoint(pid, embed(text, 16), {**payload, "embedding_model": "ollama/fake"})


def _scope(user: str) -> SearchScope:
    return SearchScope(user, "aria", "ollama/fake")


@pytest.fixture
def client(tmp_path: Path) -> Iterator[SharedEdgeIndex]:
    index = SharedEdgeIndex(tmp_path / "index")
    yield index
    index.close()
    stop_service(tmp_path / "index")


def test_a_second_raw_open_of_a_shard_fails_which_is_why_one_process_holds_them(
    tmp_path: Path,
) -> None:
    owner = EdgeIndex(tmp_path)
    owner.ensure_collection("memories", 16)
    probe = subprocess.run(
        [
            sys.executable,
            "-c",
            OPEN_A_SHARD,
            str(tmp_path / "memories"),
        ],
        capture_output=True,
        text=True,
    )
    owner.close()
    assert probe.returncode != 0
    assert "WouldBlock" in probe.stderr
    assert qe.EdgeShard.load(str(tmp_path / "memories")) is not None


def test_the_first_client_starts_the_service_in_the_background_and_never_opens_a_shard(
    client: SharedEdgeIndex, tmp_path: Path
) -> None:
    root = tmp_path / "index"
    assert not lock_held(root)
    client.ensure_collection("memories", 16)
    client.upsert("memories", [fake_point("alice fact 1", "alice")])
    assert client.service.started_service and not client.in_service
    service = client.owner()
    assert service.pid != os.getpid() and service.command == "on demand"
    assert lock_held(root) and socket_path_for(root).is_socket()
    assert (tmp_path / "service.log").exists()
    assert stat.S_IMODE((tmp_path / "service.log").stat().st_mode) == 0o600
    # this process holds no shard: it could open one only if nobody else did
    probe = subprocess.run(
        [sys.executable, "-c", OPEN_A_SHARD, str(root / "memories")],
        capture_output=True,
        text=True,
    )
    assert probe.returncode != 0 and "WouldBlock" in probe.stderr  # the service holds it
    second = SharedEdgeIndex(root)
    try:
        assert second.count("memories") == 1
        assert not second.service.started_service and second.owner().pid == service.pid
    finally:
        second.close()


def test_processes_writing_at_once_start_one_service_and_lose_nothing(
    tmp_path: Path, client: SharedEdgeIndex
) -> None:
    root = tmp_path / "index"
    children = [_child(root, user, 200) for user in ("alice", "bob", "carol")]
    outputs = [c.communicate(timeout=120) for c in children]
    assert [c.returncode for c in children] == [0, 0, 0], outputs
    pids = {out.split("pid=")[1].strip() for out, _ in outputs}
    assert len(pids) == 1 and all(out.startswith("service=False") for out, _ in outputs)
    assert client.count("memories") == 600
    for user in ("alice", "bob", "carol"):
        hits = client.search("memories", embed(f"{user} fact 7", 16), _scope(user), 300)
        assert len(hits) == 200 and {h.payload["user_id"] for h in hits} == {user}


def test_a_killed_service_is_replaced_by_the_next_call(
    client: SharedEdgeIndex, tmp_path: Path
) -> None:
    client.ensure_collection("memories", 16)
    client.upsert("memories", [fake_point(f"alice fact {i}", "alice") for i in range(10)])
    first = client.owner().pid
    os.kill(first, signal.SIGKILL)
    assert client.count("memories") == 10
    assert client.owner().pid not in (first, os.getpid()) and not client.in_service


def test_a_service_that_cannot_start_is_reported_with_its_log(tmp_path: Path) -> None:
    root = tmp_path / "index"
    root.mkdir(mode=0o700)
    (root / "index.lock").mkdir()  # the service cannot take its lock: it exits at once
    client = ServiceClient(root, wait_seconds=30)
    with pytest.raises(VectorIndexError, match=r"could not start \(exit 1\).*service\.log"):
        client.call({"op": "count", "collection": "memories"})


def test_a_long_root_keeps_its_socket_in_the_private_index_folder(tmp_path: Path) -> None:
    """Too long for a Unix socket address, the socket still sits beside the shards (reached
    through /proc/self/fd), never at a guessable place in a shared folder."""
    deep = tmp_path / ("d" * 120)
    before = set(Path(tempfile.gettempdir()).iterdir())
    holder = _child(deep, "alice", 5, "hold", "serve")
    try:
        assert _first_line(holder).startswith("service=True")
        assert (deep / "index.sock").is_socket()
        assert stat.S_IMODE(deep.stat().st_mode) == 0o700
        client = SharedEdgeIndex(deep)
        assert client.count("memories") == 5 and not client.service.started_service
        client.close()
    finally:
        holder.communicate("", timeout=30)
    assert holder.returncode == 0
    new = {p.name for p in set(Path(tempfile.gettempdir()).iterdir()) - before}
    # Other test workers' embedded PostgreSQL servers keep private folders there meanwhile.
    theirs = (INITDB_STAGE, SOCKET_FOLDER)
    assert not [n for n in new if n.startswith("aria-mem") and not n.startswith(theirs)]


_SEARCH_AS_A_CLIENT = """
import json, sys
from pathlib import Path
from aria_mem.adapters.service.shared_index import SharedEdgeIndex
from aria_mem.domain.models import SearchScope
from tests.fakes.vectors import embed
hits = SharedEdgeIndex(Path(sys.argv[1])).search(
    "memories", embed("alice fact 3", 16), SearchScope("alice", "aria", "ollama/fake"), 5,
    with_payload=False)
print(json.dumps([[str(h.id), h.score] for h in hits]))
"""


def test_answers_over_the_socket_are_the_services_own(tmp_path: Path) -> None:
    """The daemon answers in place; a client process gets the same answer packed over the
    socket (ids in order, float32 scores)."""
    root = tmp_path / "index"
    service = IndexService.take(root, started="test")
    assert service is not None
    try:
        here = SharedEdgeIndex(root)
        here.ensure_collection("memories", 16)
        here.upsert("memories", [fake_point(f"alice fact {i}", "alice") for i in range(5)])
        assert here.in_service
        direct = here.search("memories", embed("alice fact 3", 16), _scope("alice"), 5)
        done = subprocess.run(
            [sys.executable, "-c", _SEARCH_AS_A_CLIENT, str(root)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr
        through = json.loads(done.stdout)
        assert [h[0] for h in through] == [str(h.id) for h in direct] and len(direct) == 5
        assert [round(h[1], 5) for h in through] == [round(h.score, 5) for h in direct]
    finally:
        service.close()


def test_a_service_of_an_older_protocol_is_restarted_and_replaced(tmp_path: Path) -> None:
    """A service started before an upgrade speaks the older protocol: the client stops it and
    starts this version's. (The folder's name puts "aria_mem" in the child's command line,
    as a real one has it.)"""
    root = tmp_path / "aria_mem_index"
    older = _child(root, "alice", 5, "hold", "serve", "older")
    _first_line(older)
    client = SharedEdgeIndex(root)
    try:
        assert client.count("memories") == 5
        assert older.wait(timeout=30) == -signal.SIGTERM
        assert client.owner().pid != older.pid and client.service.started_service
    finally:
        client.close()
        stop_service(root)
        if older.poll() is None:
            older.kill()


def test_a_service_of_a_newer_protocol_is_named_and_left_alone(tmp_path: Path) -> None:
    newer = _child(tmp_path, "alice", 5, "hold", "serve", "newer")
    _first_line(newer)
    client = SharedEdgeIndex(tmp_path, wait_seconds=2)
    protocol = wire.PROTOCOL
    try:
        with pytest.raises(
            VectorIndexError, match=rf"newer protocol \({protocol + 1}, this one {protocol}\)"
        ):
            client.count("memories")
        assert newer.poll() is None and not client.service.started_service
    finally:
        client.close()
        newer.communicate("", timeout=30)
    assert newer.returncode == 0


def test_a_packed_vector_is_float32_exactly_and_garbage_is_refused() -> None:
    vector = [0.1, -2.5, 3.0e-7, 1.0]
    assert wire.unpack_vector(wire.pack_vector(vector)) == [float(np.float32(v)) for v in vector]
    assert wire.unpack_vector([1.0, 2.0]) == [1.0, 2.0]
    for bad in ("not base64!", "AAAA", 7):
        with pytest.raises(ValueError):
            wire.unpack_vector(bad)


def test_an_unknown_operation_and_a_malformed_request_come_back_as_errors(
    tmp_path: Path,
) -> None:
    root = tmp_path / "index"
    service = IndexService.take(root, started="test")
    assert service is not None
    client = ServiceClient(root, in_place=False)
    try:
        with pytest.raises(VectorIndexError, match="unknown operation 'drop_everything'"):
            client.call({"op": "drop_everything"})
        with pytest.raises(VectorIndexError, match="bad request"):
            client.call({"op": "upsert", "collection": "memories", "points": [{"id": "x"}]})
        assert client.call({"op": "count", "collection": "memories"}) == 0  # still serving
    finally:
        client.close()
        service.close()


def test_a_removed_index_folder_gets_a_new_service_and_the_old_one_exits(
    client: SharedEdgeIndex, tmp_path: Path
) -> None:
    """The index is disposable: a person may delete its folder while the service runs. The
    next call starts a service on a fresh folder; the old one, holding deleted files no client
    can reach, notices and exits."""
    client.ensure_collection("memories", 16)
    client.upsert("memories", [fake_point("alice fact 1", "alice")])
    old = client.owner().pid
    shutil.rmtree(tmp_path / "index")
    client.close()
    client.ensure_collection("memories", 16)
    assert client.count("memories") == 0
    assert client.owner().pid != old
    deadline = time.monotonic() + 30
    while Path(f"/proc/{old}").exists() and _state(old) != "Z":
        assert time.monotonic() < deadline, "the old service is still running"
        time.sleep(0.1)


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "gone"
