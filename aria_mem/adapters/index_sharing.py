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
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from aria_mem.adapters.index_serving import (
    MAX_MESSAGE_BYTES,
    MAX_TEXTS_PER_CALL,
    PACKED,
    PROTOCOL,
    LocalModel,
    OwnerHasNoModel,
    Server,
    encode_points,
    pack_vector,
    peer_uid,
    socket_address,
    socket_path_for,
    unpack_vector,
)
from aria_mem.domain.models import Hit, IndexPoint, SearchScope
from aria_mem.domain.records import IndexOwner
from aria_mem.errors import DimensionMismatchError, EmbedderError, StoreError, VectorIndexError
from aria_mem.private import FILE_MODE, private_dir

if TYPE_CHECKING:
    from aria_mem.adapters.qdrant_edge import EdgeIndex

__all__ = ["MAX_TEXTS_PER_CALL", "SharedEdgeIndex", "peer_uid", "socket_path_for"]

log = logging.getLogger(__name__)


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
        self._server: Server | None = None
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
        from aria_mem.adapters.qdrant_edge import EdgeIndex  # only the owner opens the shards

        self._owned = EdgeIndex(self._root)
        self._socket_path.unlink(missing_ok=True)
        self._server = Server(self._socket_path, self._owned, self._model)
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
        try:
            sock.sendall(json.dumps({"op": "hello", "protocol": PROTOCOL}).encode() + b"\n")
            line = self._reader.readline(MAX_MESSAGE_BYTES + 1)
            reply = json.loads(line) if line else None
        except (OSError, ValueError):
            reply = None
        if not isinstance(reply, dict):
            self._drop_connection()
            return False  # the owner went away meanwhile (or is letting go): elect again
        owner = reply.get("ok")
        if isinstance(owner, dict) and owner.get("protocol") == PROTOCOL:
            return True
        self._drop_connection()
        if isinstance(owner, dict):
            raise VectorIndexError(
                f"The index in {self._root} is served by aria-mem {owner.get('version')} "
                f"(process {owner.get('pid')}), which speaks a newer protocol "
                f"({owner.get('protocol')}, this one {PROTOCOL}) — upgrade this aria-mem, or "
                "stop that process (`aria-mem stop`)"
            )
        self._restart_older_owner()
        return False

    def _restart_older_owner(self) -> None:
        """An owner that does not know ``hello`` is aria-mem from before it (an upgrade while
        a daemon or chat ran): it is asked to stop, and the next election starts afresh."""
        from aria_mem.adapters.local_services import stop_index_owner

        try:
            pid = stop_index_owner(self._root, wait_seconds=self._wait)
        except StoreError as exc:
            raise VectorIndexError(str(exc)) from exc
        if pid is None:
            raise VectorIndexError(
                f"The process serving the index in {self._root} does not speak aria-mem's "
                f"index protocol ({PROTOCOL}) and is not an aria-mem process that can be "
                f"stopped — stop it, or remove {self._socket_path} if none runs"
            )
        log.warning("stopped aria-mem process %d: it served the index with an older protocol", pid)

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
            {"op": "upsert", "collection": collection, "points": encode_points(points)},
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
        *,
        with_payload: bool = True,
    ) -> list[Hit]:
        request = {
            "op": "search",
            "collection": collection,
            PACKED: pack_vector(vector),
            "scope": {
                "user_id": scope.user_id,
                "companion_id": scope.companion_id,
                "embedding_model": scope.embedding_model,
            },
            "limit": limit,
            "only": None if only is None else [str(x) for x in only],
            "with_payload": with_payload,
        }
        result = self._call(
            lambda i: i.search(collection, vector, scope, limit, only, with_payload=with_payload),
            request,
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
                lambda _index: None,
                {"op": "embed", "model": model_name, "texts": texts, "packed": True},
            )
        except OwnerHasNoModel:
            return None
        if result is None:
            return None
        return [unpack_vector(v) if isinstance(v, str) else list(map(float, v)) for v in result]

    def owner(self) -> IndexOwner:
        info = self._call(lambda _index: self._own_hello(), {"op": "hello"})
        return IndexOwner(
            pid=int(info["pid"]),
            version=str(info["version"]),
            protocol=int(info["protocol"]),
            uptime_s=float(info["uptime_s"]),
            command=str(info.get("command", "?")),
            model=info.get("model"),
            this_process=self.is_owner,
        )

    def _own_hello(self) -> dict[str, Any]:
        assert self._server is not None  # called only while this process owns the index
        return self._server.hello()

    def owner_pid(self) -> int:
        return int(self._call(lambda i: os.getpid(), {"op": "ping"}))

    def close(self) -> None:
        with self._mutex:
            self._drop_connection()
            if self._server is not None:
                self._server.shutdown()
                self._server.server_close()
                self._server.hang_up()
                self._server = None
                self._socket_path.unlink(missing_ok=True)
            if self._owned is not None:
                self._owned.close()
                self._owned = None
            if self._lock_file is not None:
                fcntl.flock(self._lock_file, fcntl.LOCK_UN)
                self._lock_file.close()
                self._lock_file = None
