"""The owner's side of the shared Edge index: the private Unix socket, its peer check and
bounds, and the calls it answers (index operations, and embedding with the owner's in-process
model when it has one). See ``index_sharing`` for the election and the client side."""

from __future__ import annotations

import array
import base64
import binascii
import contextlib
import json
import logging
import os
import socket
import socketserver
import struct
import sys
import threading
import time
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Protocol

from aria_mem.adapters.qdrant_edge import EdgeIndex
from aria_mem.domain.models import IndexPoint, SearchScope
from aria_mem.errors import (
    DimensionMismatchError,
    EmbedderError,
    IndexClosedError,
    VectorIndexError,
)
from aria_mem.version import __version__

log = logging.getLogger(__name__)

_MAX_SOCKET_PATH = 100
"""A Unix socket path holds at most 107 bytes on Linux; keep a margin."""
MAX_MESSAGE_BYTES = 64 * 1024 * 1024
"""The longest request or reply line (a batch of vectors is a few MB)."""
SOCKET_NAME = "index.sock"


MAX_TEXTS_PER_CALL = 1024
"""The most texts one ``embed`` request may carry (the embedder sends a batch at a time)."""


class LocalModel(Protocol):
    """An embedding model loaded in this process, which the owner can lend to its clients."""

    @property
    def model_name(self) -> str: ...

    def encode(self, texts: list[str]) -> list[list[float]]:
        """Vectors for texts exactly as given (any query or document prefix already added)."""
        ...


class OwnerHasNoModel(VectorIndexError):
    """The owner does not run the model a client asked for (or none at all)."""


def socket_path_for(root: Path) -> Path:
    """The socket always sits beside the shards, in the owner's 0700 index folder."""
    return root / SOCKET_NAME


@contextmanager
def socket_address(path: Path) -> Iterator[str]:
    """An address for bind/connect: the path itself, or, when it is too long for a Unix
    socket, the same file reached through this process's handle on its folder
    (``/proc/self/fd/N/index.sock``), so the socket never has to move somewhere shared."""
    if len(os.fsencode(path)) <= _MAX_SOCKET_PATH:
        yield str(path)
        return
    folder = os.open(path.parent, os.O_PATH | os.O_DIRECTORY)
    try:
        yield f"/proc/self/fd/{folder}/{path.name}"
    finally:
        os.close(folder)


def peer_uid(sock: socket.socket) -> int:
    """The account of the process at the other end of a Unix socket (SO_PEERCRED)."""
    raw = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    _pid, uid, _gid = struct.unpack("3i", raw)
    return int(uid)


PROTOCOL = 2
"""The index socket's protocol. Every connection opens with ``hello``, which names the
owner's protocol; 1 (before hello) sent vectors as JSON numbers, 2 packs them. A client and an
owner of different protocols do not talk: an older owner is restarted, a newer one named."""
PACKED = "vector_f32"
"""The request key of a vector sent packed."""


def pack_vector(vector: Sequence[float]) -> str:
    """A vector as base64 of its float32 bytes: ~10 µs, against ~230 µs to write and read a
    384-dimensional vector as JSON numbers (three vectors cross the socket per turn). The
    index keeps float32 anyway, so nothing is lost."""
    return base64.b64encode(array.array("f", vector).tobytes()).decode("ascii")


def unpack_vector(raw: object) -> list[float]:
    if isinstance(raw, list):
        return raw
    if not isinstance(raw, str):
        raise ValueError("a vector is a list of numbers or base64 of float32 bytes")
    try:
        data = base64.b64decode(raw, validate=True)
    except binascii.Error as exc:
        raise ValueError(f"a packed vector is not base64: {exc}") from exc
    if len(data) % 4:
        raise ValueError("a packed vector is not a whole number of float32 values")
    return array.array("f", data).tolist()


def request_vector(request: dict[str, Any]) -> list[float]:
    return unpack_vector(request[PACKED])


def encode_points(points: Sequence[IndexPoint]) -> list[dict[str, Any]]:
    return [{"id": str(p.id), PACKED: pack_vector(p.vector), "payload": p.payload} for p in points]


def _decode_points(raw: list[dict[str, Any]]) -> list[IndexPoint]:
    return [IndexPoint(uuid.UUID(p["id"]), request_vector(p), p["payload"]) for p in raw]


def _embed(model: LocalModel | None, request: dict[str, Any]) -> list[list[float]] | list[str]:
    wanted = request["model"]
    if model is None or wanted != model.model_name:
        raise OwnerHasNoModel(f"the index owner does not run {wanted!r}")
    texts = request["texts"]
    if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
        raise ValueError("texts must be a list of strings")
    if len(texts) > MAX_TEXTS_PER_CALL:
        raise ValueError(f"at most {MAX_TEXTS_PER_CALL} texts per call, not {len(texts)}")
    vectors = model.encode(texts) if texts else []
    return [pack_vector(v) for v in vectors] if request.get("packed") else vectors


def _dispatch(server: Server, request: dict[str, Any]) -> Any:
    index, model = server.index, server.model
    op = request["op"]
    if op == "hello":
        return server.hello()
    if op == "embed":
        return _embed(model, request)
    c = request.get("collection", "")
    if op == "collection_size":
        return index.collection_size(c)
    if op == "ensure_collection":
        return index.ensure_collection(c, int(request["size"]))
    if op == "drop_collection":
        return index.drop_collection(c)
    if op == "upsert":
        return index.upsert(c, _decode_points(request["points"]))
    if op == "delete":
        return index.delete(c, [uuid.UUID(i) for i in request["ids"]])
    if op == "search":
        only = request.get("only")
        hits = index.search(
            c,
            request_vector(request),
            SearchScope(**request["scope"]),
            int(request["limit"]),
            None if only is None else [uuid.UUID(i) for i in only],
            with_payload=request.get("with_payload") is not False,
        )
        return [{"id": str(h.id), "score": h.score, "payload": h.payload} for h in hits]
    if op == "count":
        return index.count(c)
    if op == "ids":
        return [str(i) for i in index.ids(c)]
    if op == "ping":
        return os.getpid()
    raise VectorIndexError(f"unknown index operation {op!r}")


class _Handler(socketserver.StreamRequestHandler):
    server: Server

    def handle(self) -> None:
        uid = peer_uid(self.request)
        if uid != os.geteuid():
            log.warning("refused an index connection from another account (uid %d)", uid)
            return
        with self.server.connected(self.request):
            self._serve()

    def _serve(self) -> None:
        while line := self.rfile.readline(MAX_MESSAGE_BYTES + 1):
            if len(line) > MAX_MESSAGE_BYTES:
                log.warning("refused an index request over %d bytes", MAX_MESSAGE_BYTES)
                return
            try:
                request = json.loads(line)
                result: dict[str, Any] = {"ok": _dispatch(self.server, request)}
            except IndexClosedError:
                return  # this process let go of the index: the client asks its next owner
            except OwnerHasNoModel as exc:
                result = {"error": str(exc), "kind": "no_model"}
            except EmbedderError as exc:
                result = {"error": str(exc), "kind": "embedder"}
            except DimensionMismatchError as exc:
                result = {
                    "error": str(exc),
                    "kind": "dimension",
                    "args": [exc.collection, exc.collection_size, exc.model, exc.model_size],
                }
            except VectorIndexError as exc:
                result = {"error": str(exc), "kind": "index"}
            except (KeyError, ValueError, TypeError, RecursionError) as exc:
                result = {"error": f"bad index request: {exc}", "kind": "index"}
            try:
                self.wfile.write(json.dumps(result).encode() + b"\n")
                self.wfile.flush()
            except OSError:
                return  # hung up (see Server.hang_up): the client retries with the next owner


def _command_name() -> str:
    """The aria-mem command this process runs (its first word that is not an option): never
    its arguments, which may hold a memory's text."""
    words = [w for w in sys.argv[1:] if not w.startswith("-")]
    return words[0] if words else "python"


class Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True

    def __init__(self, path: Path, index: EdgeIndex, model: LocalModel | None) -> None:
        self.index = index
        self.model = model
        self._started_at = time.time()
        self._clients: set[socket.socket] = set()
        self._clients_lock = threading.Lock()
        with socket_address(path) as address:
            super().__init__(address, _Handler)

    def hello(self) -> dict[str, Any]:
        """Who owns the index: its protocol, aria-mem version, process, uptime, lent model."""
        return {
            "protocol": PROTOCOL,
            "version": __version__,
            "pid": os.getpid(),
            "uptime_s": round(time.time() - self._started_at, 1),
            "command": _command_name(),
            "model": self.model.model_name if self.model is not None else None,
        }

    @contextmanager
    def connected(self, client: socket.socket) -> Iterator[None]:
        with self._clients_lock:
            self._clients.add(client)
        try:
            yield
        finally:
            with self._clients_lock:
                self._clients.discard(client)

    def hang_up(self) -> None:
        """End every client's connection (after ``shutdown``, before the index is closed), so
        each notices at once that this process no longer owns the index and elects again,
        instead of sending its next call to a handler whose index is gone."""
        with self._clients_lock:
            clients = list(self._clients)
        for client in clients:
            with contextlib.suppress(OSError):
                client.shutdown(socket.SHUT_RDWR)
