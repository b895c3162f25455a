"""The aria-mem service's socket under a burst, an oversized request, an unknown model and a
silent client (issue 34.5), each against a service in its own process, as commands meet it."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from aria_mem.adapters.embedders.local_model import BUNDLED
from aria_mem.adapters.embedders.shared import SharedModelEmbedder
from aria_mem.adapters.model_shelf import ModelShelf
from aria_mem.adapters.service.client import ServiceClient
from aria_mem.adapters.service.folder import lock_held, log_path_for
from aria_mem.adapters.service.protocol import (
    MAX_CLIENTS_PER_PROCESS,
    MAX_EMBED_CHARS,
    MAX_REQUEST_BYTES,
    MAX_TEXT_CHARS,
    PROTOCOL,
    socket_address,
    socket_path_for,
)
from aria_mem.adapters.service.server import IndexService
from aria_mem.adapters.service.shared_index import SharedEdgeIndex
from aria_mem.domain.models import IndexPoint, SearchScope
from aria_mem.errors import EmbedderError, VectorIndexError
from tests.test_shared_model import CountingModel

HELLO = json.dumps({"op": "hello", "protocol": PROTOCOL}).encode() + b"\n"
SCOPE = SearchScope("alice", "aria", "m")


def _connect(root: Path, *, blocking: bool = True) -> socket.socket:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.setblocking(blocking)
    with socket_address(socket_path_for(root)) as address:
        sock.connect(address)
    return sock


def _reply(sock: socket.socket) -> dict[str, Any]:
    sock.settimeout(60)
    with sock.makefile("rb") as reader:
        line = reader.readline()
    assert line, "the service closed the connection without a word"
    reply: dict[str, Any] = json.loads(line)
    return reply


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """The index folder of a service in its own process, started by its first client (the
    isolated_env fixture stops it)."""
    return tmp_path / "index"


def _client(root: Path, idle_exit: float = 0, client_timeout: float = 300) -> ServiceClient:
    return ServiceClient(root, in_place=False, idle_exit=idle_exit, client_timeout=client_timeout)


def test_a_burst_of_500_connections_is_answered_or_told_busy_none_refused(root: Path) -> None:
    """The service is stopped (SIGSTOP) while 500 connections arrive, so only its listen
    backlog holds them (Python's default of 5 refused all but a few); then each is answered,
    or, past the bound one process may hold, told the service is busy. None is refused or
    dropped without a word, and the service serves as before."""
    client = _client(root, idle_exit=0)
    pid = int(client.hello()["pid"])
    client.close()
    os.kill(pid, signal.SIGSTOP)
    burst: list[socket.socket] = []
    try:
        for _ in range(500):
            burst.append(_connect(root, blocking=False))  # BlockingIOError once the backlog is full
            burst[-1].sendall(HELLO)
    finally:
        os.kill(pid, signal.SIGCONT)
    replies = [_reply(sock) for sock in burst]
    answered = [r["ok"] for r in replies if "ok" in r]
    busy = [r for r in replies if r.get("kind") == "busy"]
    assert len(answered) + len(busy) == 500
    assert MAX_CLIENTS_PER_PROCESS - 1 <= len(answered) <= MAX_CLIENTS_PER_PROCESS
    assert {a["pid"] for a in answered} == {pid}
    assert all(f"process {os.getpid()} already holds" in r["error"] for r in busy)
    for sock in burst:
        sock.close()
    assert int(client.hello()["pid"]) == pid
    client.close()


def test_a_client_of_a_busy_service_waits_and_then_says_it_is_busy(root: Path) -> None:
    client = _client(root, idle_exit=0)
    client.hello()
    held = [_connect(root) for _ in range(MAX_CLIENTS_PER_PROCESS)]
    try:
        other = ServiceClient(root, in_place=False, wait_seconds=1)
        with pytest.raises(VectorIndexError, match="busy: process .* already holds"):
            other.hello()
        other.close()
    finally:
        for sock in held:
            sock.close()
    assert client.hello()["protocol"] == PROTOCOL
    client.close()


def test_oversized_requests_are_refused_and_searches_go_on(root: Path) -> None:
    client = _client(root, idle_exit=0)
    index = SharedEdgeIndex(root, service=client)
    index.ensure_collection("memories", 3)
    point = IndexPoint(
        uuid.uuid4(),
        [1.0, 0.0, 0.0],
        {"user_id": "alice", "companion_id": "aria", "embedding_model": "m", "active": True},
    )
    index.upsert("memories", [point])

    # A 20 MB text, as the tester sent it: refused on the way in, the model never loaded.
    with pytest.raises(VectorIndexError, match="over the aria-mem service's bound"):
        client.call({"op": "embed", "model": BUNDLED, "texts": ["x" * 20_000_000]})
    raw = _connect(root)
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # it stops reading
        raw.sendall(b'{"op": "embed", "texts": ["' + b"x" * (MAX_REQUEST_BYTES + 10) + b'"]}\n')
    assert f"a request over {MAX_REQUEST_BYTES:,} bytes" in _reply(raw)["error"]
    raw.close()
    too_long = {"op": "embed", "model": BUNDLED, "texts": ["x" * (MAX_TEXT_CHARS + 1)]}
    with pytest.raises(EmbedderError, match=f"at most {MAX_TEXT_CHARS:,} per text"):
        client.call(too_long)
    count = MAX_EMBED_CHARS // MAX_TEXT_CHARS + 1
    too_many = {"op": "embed", "model": BUNDLED, "texts": ["x" * MAX_TEXT_CHARS] * count}
    with pytest.raises(EmbedderError, match=f"at most {MAX_EMBED_CHARS:,} per request"):
        client.call(too_many)

    assert [h.id for h in index.search("memories", [1.0, 0.0, 0.0], SCOPE, 5)] == [point.id]
    assert client.hello()["model"] is None
    index.close()


@pytest.mark.slow
def test_an_unknown_model_is_refused_and_never_shown_as_loaded(root: Path, tmp_path: Path) -> None:
    client = _client(root, idle_exit=0)
    with pytest.raises(EmbedderError, match="'no-such-model' is neither"):
        client.call({"op": "embed", "model": "no-such-model", "texts": ["x"]})
    not_a_model = tmp_path / "empty-folder"
    not_a_model.mkdir()
    with pytest.raises(EmbedderError, match="Could not load the model"):
        client.call({"op": "embed", "model": str(not_a_model), "texts": ["x"]})
    assert client.hello()["model"] is None
    client.close()


def test_a_silent_connection_is_closed_and_the_idle_service_still_exits(root: Path) -> None:
    client = _client(root, idle_exit=2, client_timeout=1)
    pid = int(client.hello()["pid"])
    silent = _connect(root)
    silent.settimeout(60)
    assert silent.recv(1) == b""  # closed by the service, not by this test
    silent.close()
    deadline = time.monotonic() + 60
    while lock_held(root):
        assert time.monotonic() < deadline, "a silent client kept the idle service running"
        time.sleep(0.1)
    log = log_path_for(root).read_text()
    assert "closed a connection silent for 1 s" in log and "no client for 2 s; exiting" in log
    assert int(client.hello()["pid"]) != pid  # the client reconnects, to a new service
    client.close()


def test_a_client_whose_connection_went_silent_reconnects_on_its_next_call(root: Path) -> None:
    client = _client(root, idle_exit=0, client_timeout=1)
    pid = int(client.hello()["pid"])
    log = log_path_for(root)
    deadline = time.monotonic() + 60
    while "closed a connection silent" not in log.read_text():
        assert time.monotonic() < deadline
        time.sleep(0.1)
    assert int(client.hello()["pid"]) == pid
    client.close()


def test_the_embedder_cuts_and_splits_its_texts_to_the_services_bounds(tmp_path: Path) -> None:
    loaded: dict[str, CountingModel] = {}

    def load(name: str) -> CountingModel:
        loaded[name] = CountingModel(name)
        return loaded[name]

    service = IndexService.take(tmp_path / "index", started="test", shelf=ModelShelf(load))
    assert service is not None
    client = _client(tmp_path / "index")
    try:
        embedder = SharedModelEmbedder(BUNDLED, lambda: client, batch_size=64)
        texts = ["y" * (MAX_TEXT_CHARS + 5)] + ["z" * 40_000] * 30
        assert len(embedder.embed(texts)) == 31
        calls = loaded[BUNDLED].calls
        assert len(calls) > 1 and sum(len(c) for c in calls) == 31
        assert calls[0][0] == "y" * MAX_TEXT_CHARS
        assert all(sum(map(len, c)) <= MAX_EMBED_CHARS for c in calls)
    finally:
        client.close()
        service.close()
