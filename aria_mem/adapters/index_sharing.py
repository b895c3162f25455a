"""Sharing the embedded Qdrant Edge index between processes.

A Qdrant Edge shard can be open in one process only. So the first process that needs the
index takes an exclusive lock file, opens the shards and serves index calls to the others over
a Unix socket beside them; every other process (a second chat, a CLI command while the daemon
runs) becomes its client. When the owner exits its clients notice the closed socket, and one of
them takes the lock and becomes the owner. The daemon, when it runs, is simply a long-lived
owner. Calls are JSON lines; writes are idempotent (upsert and delete by id), so a call retried
after the owner vanished mid-way does no harm.

When the embedding model runs in process, the owner also embeds for its clients over the same
socket (op ``embed``), so the model (seconds to load, hundreds of MB) is loaded once, by the
owner, rather than by every command; a client whose model the owner does not have loads its
own.
"""

from __future__ import annotations

import fcntl
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
from typing import IO, Any, Protocol

from aria_mem.adapters.qdrant_edge import EdgeIndex
from aria_mem.domain.models import Hit, IndexPoint, SearchScope
from aria_mem.errors import DimensionMismatchError, EmbedderError, VectorIndexError
from aria_mem.private import FILE_MODE, private_dir

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


def _encode_points(points: Sequence[IndexPoint]) -> list[dict[str, Any]]:
    return [{"id": str(p.id), "vector": list(p.vector), "payload": p.payload} for p in points]


def _decode_points(raw: list[dict[str, Any]]) -> list[IndexPoint]:
    return [IndexPoint(uuid.UUID(p["id"]), p["vector"], p["payload"]) for p in raw]


def _embed(model: LocalModel | None, request: dict[str, Any]) -> list[list[float]]:
    wanted = request["model"]
    if model is None or wanted != model.model_name:
        raise OwnerHasNoModel(f"the index owner does not run {wanted!r}")
    texts = request["texts"]
    if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
        raise ValueError("texts must be a list of strings")
    if len(texts) > MAX_TEXTS_PER_CALL:
        raise ValueError(f"at most {MAX_TEXTS_PER_CALL} texts per call, not {len(texts)}")
    return model.encode(texts) if texts else []


def _dispatch(index: EdgeIndex, model: LocalModel | None, request: dict[str, Any]) -> Any:
    op = request["op"]
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
            request["vector"],
            SearchScope(**request["scope"]),
            int(request["limit"]),
            None if only is None else [uuid.UUID(i) for i in only],
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
    server: _Server

    def handle(self) -> None:
        uid = peer_uid(self.request)
        if uid != os.geteuid():
            log.warning("refused an index connection from another account (uid %d)", uid)
            return
        while line := self.rfile.readline(MAX_MESSAGE_BYTES + 1):
            if len(line) > MAX_MESSAGE_BYTES:
                log.warning("refused an index request over %d bytes", MAX_MESSAGE_BYTES)
                return
            try:
                request = json.loads(line)
                result: dict[str, Any] = {
                    "ok": _dispatch(self.server.index, self.server.model, request)
                }
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
            self.wfile.write(json.dumps(result).encode() + b"\n")
            self.wfile.flush()


class _Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True

    def __init__(self, path: Path, index: EdgeIndex, model: LocalModel | None) -> None:
        self.index = index
        self.model = model
        with socket_address(path) as address:
            super().__init__(address, _Handler)


class SharedEdgeIndex:
    """A VectorIndex over the Edge shards in ``root``, owned here or reached through the
    process that owns them."""

    def __init__(
        self, root: Path, *, wait_seconds: float = 10.0, model: LocalModel | None = None
    ) -> None:
        """``model``: the in-process embedding model to serve to clients while this process
        owns the index (it loads on the first request)."""
        self._root = root
        self._model = model
        self._socket_path = socket_path_for(root)
        self._wait = wait_seconds
        self._owned: EdgeIndex | None = None
        self._server: _Server | None = None
        self._lock_file: IO[str] | None = None
        self._conn: socket.socket | None = None
        self._reader: IO[bytes] | None = None
        self._mutex = threading.Lock()

    @property
    def is_owner(self) -> bool:
        return self._owned is not None

    # -- election -----------------------------------------------------------------------

    def _try_own(self) -> bool:
        private_dir(self._root, what="index folder")
        fd = os.open(self._root / "index.lock", os.O_RDWR | os.O_CREAT, FILE_MODE)
        handle = os.fdopen(fd, "w")
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.close()
            return False
        handle.truncate(0)
        handle.write(str(os.getpid()))
        handle.flush()
        self._lock_file = handle
        self._owned = EdgeIndex(self._root)
        self._socket_path.unlink(missing_ok=True)
        self._server = _Server(self._socket_path, self._owned, self._model)
        threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.05},
            name="aria-mem-index",
            daemon=True,
        ).start()
        log.debug("this process (%d) owns the index in %s", os.getpid(), self._root)
        return True

    def _try_connect(self) -> bool:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(30)
        try:
            with socket_address(self._socket_path) as address:
                sock.connect(address)
        except OSError:
            sock.close()
            return False
        uid = peer_uid(sock)
        if uid != os.geteuid():
            sock.close()
            raise VectorIndexError(
                f"The index socket {self._socket_path} is served by another account (uid "
                f"{uid}); nothing was sent to it — check who owns {self._root}"
            )
        self._conn = sock
        self._reader = sock.makefile("rb")
        return True

    def _elect(self) -> None:
        deadline = time.monotonic() + self._wait
        while True:
            if self._try_connect() or self._try_own():
                return
            if time.monotonic() > deadline:
                raise VectorIndexError(
                    f"Another aria-mem process holds the index in {self._root} but does not "
                    f"answer on {self._socket_path} — stop it, or remove that socket if no "
                    "aria-mem process runs"
                )
            time.sleep(0.05)

    def _drop_connection(self) -> None:
        if self._reader is not None:
            self._reader.close()
        if self._conn is not None:
            self._conn.close()
        self._conn = self._reader = None

    def _call(self, local: Callable[[EdgeIndex], Any], request: dict[str, Any]) -> Any:
        with self._mutex:
            for _attempt in range(3):
                if self._owned is None and self._conn is None:
                    self._elect()
                if self._owned is not None:
                    return local(self._owned)
                assert self._conn is not None and self._reader is not None
                try:
                    self._conn.sendall(json.dumps(request).encode() + b"\n")
                    line = self._reader.readline(MAX_MESSAGE_BYTES + 1)
                except OSError as exc:
                    log.debug("index owner connection failed (%s); electing again", exc)
                    line = b""
                if not line:
                    self._drop_connection()
                    continue
                reply = json.loads(line)
                if "error" in reply:
                    kind = reply.get("kind")
                    if kind == "dimension":
                        c, size, model, model_size = reply["args"]
                        raise DimensionMismatchError(c, size, model, model_size)
                    if kind == "no_model":
                        raise OwnerHasNoModel(reply["error"])
                    if kind == "embedder":
                        raise EmbedderError(reply["error"])
                    raise VectorIndexError(reply["error"])
                return reply["ok"]
            raise VectorIndexError(
                f"The index owner for {self._root} kept going away (tried 3 times)"
            )

    # -- VectorIndex --------------------------------------------------------------------

    def collection_size(self, collection: str) -> int | None:
        result = self._call(
            lambda i: i.collection_size(collection),
            {"op": "collection_size", "collection": collection},
        )
        return None if result is None else int(result)

    def ensure_collection(self, collection: str, size: int) -> None:
        self._call(
            lambda i: i.ensure_collection(collection, size),
            {"op": "ensure_collection", "collection": collection, "size": size},
        )

    def drop_collection(self, collection: str) -> None:
        self._call(
            lambda i: i.drop_collection(collection),
            {"op": "drop_collection", "collection": collection},
        )

    def upsert(self, collection: str, points: Sequence[IndexPoint]) -> None:
        self._call(
            lambda i: i.upsert(collection, points),
            {"op": "upsert", "collection": collection, "points": _encode_points(points)},
        )

    def delete(self, collection: str, ids: Sequence[uuid.UUID]) -> None:
        self._call(
            lambda i: i.delete(collection, ids),
            {"op": "delete", "collection": collection, "ids": [str(x) for x in ids]},
        )

    def search(
        self,
        collection: str,
        vector: Sequence[float],
        scope: SearchScope,
        limit: int,
        only: Sequence[uuid.UUID] | None = None,
    ) -> list[Hit]:
        result = self._call(
            lambda i: i.search(collection, vector, scope, limit, only),
            {
                "op": "search",
                "collection": collection,
                "vector": list(vector),
                "scope": {
                    "user_id": scope.user_id,
                    "companion_id": scope.companion_id,
                    "embedding_model": scope.embedding_model,
                },
                "limit": limit,
                "only": None if only is None else [str(x) for x in only],
            },
        )
        if result and isinstance(result[0], Hit):
            return list(result)
        return [Hit(uuid.UUID(h["id"]), float(h["score"]), h["payload"]) for h in result]

    def count(self, collection: str) -> int:
        return int(
            self._call(lambda i: i.count(collection), {"op": "count", "collection": collection})
        )

    def ids(self, collection: str) -> list[uuid.UUID]:
        result = self._call(lambda i: i.ids(collection), {"op": "ids", "collection": collection})
        return [x if isinstance(x, uuid.UUID) else uuid.UUID(x) for x in result]

    def embed_through_owner(self, model_name: str, texts: list[str]) -> list[list[float]] | None:
        """Vectors from the owner's copy of ``model_name``; None when this process is the
        owner (it runs the model itself) or the owner does not have that model."""
        try:
            result = self._call(
                lambda _index: None, {"op": "embed", "model": model_name, "texts": texts}
            )
        except OwnerHasNoModel:
            return None
        if result is None:
            return None
        return [list(map(float, v)) for v in result]

    def owner_pid(self) -> int:
        return int(self._call(lambda i: os.getpid(), {"op": "ping"}))

    def close(self) -> None:
        with self._mutex:
            self._drop_connection()
            if self._server is not None:
                self._server.shutdown()
                self._server.server_close()
                self._server = None
                self._socket_path.unlink(missing_ok=True)
            if self._owned is not None:
                self._owned.close()
                self._owned = None
            if self._lock_file is not None:
                fcntl.flock(self._lock_file, fcntl.LOCK_UN)
                self._lock_file.close()
                self._lock_file = None
