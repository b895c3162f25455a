"""The aria-mem service's socket protocol, stated once: the operations (one table), how
vectors and points cross, how errors cross (as kinds, never matched by their text), and the
server that answers on the private Unix socket with its peer check and bounds.

The service itself (who runs it, when it starts and stops) is ``index_service``; its clients
are ``index_sharing`` (the index) and ``embedders.shared`` (the in-process model)."""

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
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from aria_mem.domain.models import IndexPoint, SearchScope
from aria_mem.errors import (
    AriaMemError,
    DimensionMismatchError,
    EmbedderError,
    IndexClosedError,
    VectorIndexError,
)

if TYPE_CHECKING:
    from aria_mem.adapters.qdrant_edge import EdgeIndex

log = logging.getLogger(__name__)

PROTOCOL = 3
"""The socket's protocol, exchanged by ``hello`` on every connection. 1 had no hello and sent
vectors as JSON numbers; 2 packed them and let any aria-mem process own the index; 3 is the
one service (clients never own; ``embed`` names any in-process model). A client and a service
of different protocols do not talk: an older service is restarted, a newer one named."""
PACKED = "vector_f32"
"""The request key of a vector sent packed."""
MAX_MESSAGE_BYTES = 64 * 1024 * 1024
"""The longest request or reply line (a batch of vectors is a few MB)."""
MAX_TEXTS_PER_CALL = 1024
"""The most texts one ``embed`` request may carry (the embedder sends a batch at a time)."""
SOCKET_NAME = "index.sock"
_MAX_SOCKET_PATH = 100
"""A Unix socket path holds at most 107 bytes on Linux; keep a margin."""


class Host(Protocol):
    """What the service offers its clients: the shards, the in-process models, who it is."""

    @property
    def index(self) -> EdgeIndex: ...

    def embed(self, model: str, texts: list[str]) -> list[list[float]]: ...

    def hello(self) -> dict[str, Any]: ...


# -- how values cross ---------------------------------------------------------------------


def pack_vector(vector: Sequence[float]) -> str:
    """A vector as base64 of its float32 bytes: ~10 µs, against ~230 µs to write and read a
    384-dimensional vector as JSON numbers. The index keeps float32 anyway."""
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


def encode_points(points: Sequence[IndexPoint]) -> list[dict[str, Any]]:
    return [{"id": str(p.id), PACKED: pack_vector(p.vector), "payload": p.payload} for p in points]


def _points(raw: list[dict[str, Any]]) -> list[IndexPoint]:
    return [IndexPoint(uuid.UUID(p["id"]), unpack_vector(p[PACKED]), p["payload"]) for p in raw]


def _ids(raw: list[str] | None) -> list[uuid.UUID] | None:
    return None if raw is None else [uuid.UUID(i) for i in raw]


def _texts(request: dict[str, Any]) -> list[str]:
    texts = request["texts"]
    if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
        raise ValueError("texts must be a list of strings")
    if len(texts) > MAX_TEXTS_PER_CALL:
        raise ValueError(f"at most {MAX_TEXTS_PER_CALL} texts per call, not {len(texts)}")
    return texts


def _search(host: Host, r: dict[str, Any]) -> list[dict[str, Any]]:
    hits = host.index.search(
        r["collection"],
        unpack_vector(r[PACKED]),
        SearchScope(**r["scope"]),
        int(r["limit"]),
        _ids(r.get("only")),
        with_payload=r.get("with_payload") is not False,
    )
    return [{"id": str(h.id), "score": h.score, "payload": h.payload} for h in hits]


# -- the operations -----------------------------------------------------------------------

OPERATIONS: dict[str, Callable[[Host, dict[str, Any]], Any]] = {
    "hello": lambda host, r: host.hello(),
    "embed": lambda host, r: [pack_vector(v) for v in host.embed(str(r["model"]), _texts(r))],
    "collection_size": lambda host, r: host.index.collection_size(r["collection"]),
    "ensure_collection": lambda host, r: host.index.ensure_collection(
        r["collection"], int(r["size"])
    ),
    "drop_collection": lambda host, r: host.index.drop_collection(r["collection"]),
    "upsert": lambda host, r: host.index.upsert(r["collection"], _points(r["points"])),
    "delete": lambda host, r: host.index.delete(r["collection"], _ids(r["ids"]) or []),
    "search": _search,
    "count": lambda host, r: host.index.count(r["collection"]),
    "ids": lambda host, r: [str(i) for i in host.index.ids(r["collection"])],
}
"""Every operation the service answers: a request ``{"op": name, ...}`` in, its ``ok`` value
out (JSON). A client in the service's own process runs the same entries without the socket."""


def answer(host: Host, request: dict[str, Any]) -> Any:
    """The ``ok`` value of one request; raises what the operation raised."""
    op = OPERATIONS.get(request.get("op", ""))
    if op is None:
        raise VectorIndexError(f"unknown operation {request.get('op')!r}")
    return op(host, request)


# -- how errors cross ---------------------------------------------------------------------


def error_reply(exc: Exception) -> dict[str, Any]:
    """An error as a reply: its kind (which the client raises again) and its message."""
    if isinstance(exc, DimensionMismatchError):
        args = [exc.collection, exc.collection_size, exc.model, exc.model_size]
        return {"error": str(exc), "kind": "dimension", "args": args}
    if isinstance(exc, EmbedderError):
        return {"error": str(exc), "kind": "embedder"}
    if isinstance(exc, AriaMemError):
        return {"error": str(exc), "kind": "index"}
    return {"error": f"bad request: {exc}", "kind": "request"}


def raise_reply(reply: dict[str, Any]) -> None:
    """Raise the error a reply carries, as the type the service raised."""
    kind, message = reply.get("kind"), str(reply.get("error"))
    if kind == "dimension":
        collection, size, model, model_size = reply["args"]
        raise DimensionMismatchError(collection, size, model, model_size)
    if kind == "embedder":
        raise EmbedderError(message)
    raise VectorIndexError(message)


# -- the socket ---------------------------------------------------------------------------


def socket_path_for(root: Path) -> Path:
    """The socket always sits beside the shards, in the service's 0700 index folder."""
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


class _Handler(socketserver.StreamRequestHandler):
    server: Server

    def handle(self) -> None:
        uid = peer_uid(self.request)
        if uid != os.geteuid():
            log.warning("refused a connection from another account (uid %d)", uid)
            return
        with self.server.connected(self.request):
            self._serve()

    def _serve(self) -> None:
        while line := self.rfile.readline(MAX_MESSAGE_BYTES + 1):
            if len(line) > MAX_MESSAGE_BYTES:
                log.warning("refused a request over %d bytes", MAX_MESSAGE_BYTES)
                return
            self.server.touch()
            try:
                request = json.loads(line)
                if not isinstance(request, dict):
                    raise ValueError("a request is a JSON object")
                result: dict[str, Any] = {"ok": answer(self.server.host, request)}
            except IndexClosedError:
                return  # the service is stopping: the client reconnects to the next one
            except (AriaMemError, KeyError, ValueError, TypeError, RecursionError) as exc:
                result = error_reply(exc)
            except Exception as exc:  # a disk that refuses a write, a model that breaks
                log.exception("the %r request failed", request.get("op"))
                result = {"error": f"{type(exc).__name__}: {exc}", "kind": "index"}
            try:
                self.wfile.write(json.dumps(result).encode() + b"\n")
                self.wfile.flush()
            except OSError:
                return  # hung up (see Server.hang_up)


class Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True

    def __init__(self, path: Path, host: Host) -> None:
        self.host = host
        self._clients: set[socket.socket] = set()
        self._clients_lock = threading.Lock()
        self._last_activity = time.monotonic()
        with socket_address(path) as address:
            super().__init__(address, _Handler)

    def touch(self) -> None:
        self._last_activity = time.monotonic()

    def idle_seconds(self) -> float:
        """How long no client has been connected (0 while one is)."""
        with self._clients_lock:
            if self._clients:
                return 0.0
        return time.monotonic() - self._last_activity

    @contextmanager
    def connected(self, client: socket.socket) -> Iterator[None]:
        with self._clients_lock:
            self._clients.add(client)
        try:
            yield
        finally:
            with self._clients_lock:
                self._clients.discard(client)
            self.touch()

    def hang_up(self) -> None:
        """End every client's connection (after ``shutdown``, before the index is closed), so
        each notices at once and reconnects, instead of waiting on a handler whose index is
        gone."""
        with self._clients_lock:
            clients = list(self._clients)
        for client in clients:
            with contextlib.suppress(OSError):
                client.shutdown(socket.SHUT_RDWR)
