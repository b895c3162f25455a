"""Two real processes on one embedded index: the owner serves, the other is its client, and
ownership passes on when the owner goes away."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

import numpy as np
import pytest
import qdrant_edge as qe

from aria_mem.adapters import index_serving
from aria_mem.adapters.index_sharing import SharedEdgeIndex, socket_path_for
from aria_mem.adapters.qdrant_edge import EdgeIndex
from aria_mem.domain.models import IndexPoint, SearchScope
from aria_mem.errors import VectorIndexError
from tests.conftest import ROOT
from tests.fakes.vectors import embed


def _child(
    root: Path, user: str, count: int, hold: bool = False, *more: str
) -> subprocess.Popen[str]:
    args = [sys.executable, "-m", "tests.fakes.index_child", str(root), user, str(count)]
    if hold:
        args.append("hold")
    args.extend(more)
    return subprocess.Popen(
        args,
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def fake_point(text: str, user: str) -> IndexPoint:
    pid = uuid.uuid4()
    payload = {"memory_id": str(pid), "user_id": user, "companion_id": "aria", "active": True}
    return IndexPoint(pid, embed(text, 16), {**payload, "embedding_model": "ollama/fake"})


def _scope(user: str) -> SearchScope:
    return SearchScope(user, "aria", "ollama/fake")


def test_a_second_raw_open_of_a_shard_fails_which_is_why_we_share(tmp_path: Path) -> None:
    owner = EdgeIndex(tmp_path)
    owner.ensure_collection("memories", 16)
    probe = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, qdrant_edge as qe; qe.EdgeShard.load(sys.argv[1])",
            str(tmp_path / "memories"),
        ],
        capture_output=True,
        text=True,
    )
    owner.close()
    assert probe.returncode != 0
    assert "WouldBlock" in probe.stderr
    assert qe.EdgeShard.load(str(tmp_path / "memories")) is not None


def test_a_process_uses_the_index_through_the_owner(tmp_path: Path) -> None:
    owner = _child(tmp_path, "alice", 30, hold=True)
    try:
        assert owner.stdout is not None
        line = owner.stdout.readline()
        assert line.startswith("owner=True"), line + (owner.stderr.read() if owner.stderr else "")
        owner_pid = int(line.split("pid=")[1])
        client = SharedEdgeIndex(tmp_path)
        assert client.owner_pid() == owner_pid != os.getpid()
        assert not client.is_owner
        assert client.count("memories") == 30
        hits = client.search("memories", embed("alice fact 3", 16), _scope("alice"), 5)
        assert hits and hits[0].payload["user_id"] == "alice"
        client.close()
    finally:
        owner.communicate("", timeout=30)
    assert owner.returncode == 0


def test_two_processes_writing_at_once_lose_nothing(tmp_path: Path) -> None:
    children = [_child(tmp_path, user, 200) for user in ("alice", "bob")]
    outputs = [c.communicate(timeout=120) for c in children]
    assert [c.returncode for c in children] == [0, 0], outputs
    owners = sorted(out.split()[0] for out, _ in outputs)
    assert owners in (["owner=False", "owner=True"], ["owner=True", "owner=True"])
    index = SharedEdgeIndex(tmp_path)
    assert index.count("memories") == 400
    for user in ("alice", "bob"):
        hits = index.search("memories", embed(f"{user} fact 7", 16), _scope(user), 300)
        assert len(hits) == 200 and {h.payload["user_id"] for h in hits} == {user}
    index.close()


def test_the_client_takes_over_when_the_owner_is_killed(tmp_path: Path) -> None:
    owner = _child(tmp_path, "alice", 10, hold=True)
    assert owner.stdout is not None and owner.stdout.readline().startswith("owner=True")
    client = SharedEdgeIndex(tmp_path)
    assert client.count("memories") == 10 and not client.is_owner
    os.kill(owner.pid, signal.SIGKILL)
    owner.wait(timeout=30)
    assert client.count("memories") == 10
    assert client.is_owner
    assert socket_path_for(tmp_path).exists()
    client.close()
    assert not socket_path_for(tmp_path).exists()


def test_a_long_root_keeps_its_socket_in_the_private_index_folder(tmp_path: Path) -> None:
    """Too long for a Unix socket address, the socket still sits beside the shards (reached
    through /proc/self/fd), never at a guessable place in a shared folder."""
    deep = tmp_path / ("d" * 120)
    before = set(Path(tempfile.gettempdir()).iterdir())
    owner = _child(deep, "alice", 5, hold=True)
    try:
        assert owner.stdout is not None and owner.stdout.readline().startswith("owner=True")
        assert (deep / "index.sock").is_socket()
        assert stat.S_IMODE(deep.stat().st_mode) == 0o700
        client = SharedEdgeIndex(deep)
        assert client.count("memories") == 5 and not client.is_owner
        client.close()
    finally:
        owner.communicate("", timeout=30)
    assert owner.returncode == 0
    new = {p.name for p in set(Path(tempfile.gettempdir()).iterdir()) - before}
    assert not [name for name in new if name.startswith("aria-mem")]


def test_vectors_cross_the_socket_packed_and_give_the_owners_answers(tmp_path: Path) -> None:
    owner = SharedEdgeIndex(tmp_path)
    client = SharedEdgeIndex(tmp_path)
    try:
        owner.ensure_collection("memories", 16)
        assert owner.is_owner and client.owner_pid() == os.getpid() and not client.is_owner
        points = [fake_point(f"alice fact {i}", "alice") for i in range(5)]
        client.upsert("memories", points)
        query = embed("alice fact 3", 16)
        through = client.search("memories", query, _scope("alice"), 5, with_payload=False)
        direct = owner.search("memories", query, _scope("alice"), 5)
        assert [h.id for h in through] == [h.id for h in direct] and len(direct) == 5
        assert [round(h.score, 5) for h in through] == [round(h.score, 5) for h in direct]
    finally:
        client.close()
        owner.close()


def test_an_owner_from_before_the_hello_is_restarted_and_replaced(tmp_path: Path) -> None:
    """A daemon or chat started before an upgrade speaks the older protocol: the client says
    hello, hears an unknown operation, stops that aria-mem process and owns the index.
    (The folder's name puts "aria_mem" in the child's command line, as a real one has it.)"""
    root = tmp_path / "aria_mem_index"
    older = _child(root, "alice", 5, True, "older")
    assert older.stdout is not None and older.stdout.readline().startswith("owner=True")
    client = SharedEdgeIndex(root)
    try:
        assert client.count("memories") == 5
        assert client.is_owner
        assert older.wait(timeout=30) == -signal.SIGTERM
    finally:
        client.close()
        if older.poll() is None:
            older.kill()


def test_an_owner_of_a_newer_protocol_is_named_and_left_alone(tmp_path: Path) -> None:
    newer = _child(tmp_path, "alice", 5, True, "newer")
    assert newer.stdout is not None and newer.stdout.readline().startswith("owner=True")
    client = SharedEdgeIndex(tmp_path, wait_seconds=2)
    try:
        with pytest.raises(VectorIndexError, match=r"newer protocol \(3, this one 2\)"):
            client.count("memories")
        assert newer.poll() is None and not client.is_owner
    finally:
        client.close()
        newer.communicate("", timeout=30)
    assert newer.returncode == 0


def test_a_packed_vector_is_float32_exactly_and_garbage_is_refused() -> None:
    vector = [0.1, -2.5, 3.0e-7, 1.0]
    assert index_serving.unpack_vector(index_serving.pack_vector(vector)) == [
        float(np.float32(v)) for v in vector
    ]
    assert index_serving.unpack_vector([1.0, 2.0]) == [1.0, 2.0]
    for bad in ("not base64!", "AAAA", 7):
        with pytest.raises(ValueError):
            index_serving.unpack_vector(bad)
