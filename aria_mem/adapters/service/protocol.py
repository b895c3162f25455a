"""The aria-mem service's socket protocol, stated once: the operations (one table), how
vectors and points cross, how errors cross (as kinds, never matched by their text), where the
socket sits and who is at its other end, and the bounds every request keeps.

The bounds, so that no client (a bug, a script, a burst) can take the service from the others:
a listen backlog for bursts (``LISTEN_BACKLOG``); at most ``MAX_CLIENTS`` connections, and
``MAX_CLIENTS_PER_PROCESS`` from one process, beyond which a connection is answered with a
``busy`` error and closed; a request line of at most ``MAX_REQUEST_BYTES``; an ``embed`` of at
most ``MAX_TEXTS_PER_CALL`` texts, ``MAX_TEXT_CHARS`` each and ``MAX_EMBED_CHARS`` in all; and a
connection that sends nothing for ``client_timeout`` seconds is closed (its client reconnects on
its next call), so a silent one neither holds a thread nor keeps an idle service from exiting.

The socket's server is ``socket_server``, the process that runs it ``server``, its clients
``client`` (and ``shared_index``, ``embedders.shared``)."""

from __future__ import annotations

import array
import base64
import binascii
import json
import os
import socket
import struct
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from aria_mem import errors
from aria_mem.domain.models import IndexPoint, SearchScope
from aria_mem.errors import (
    AriaMemError,
    DimensionMismatchError,
    EmbedderError,
    IndexDiskFullError,
    VectorIndexError,
)

if TYPE_CHECKING:
    from aria_mem.adapters.qdrant_edge import EdgeIndex

PROTOCOL = 6
"""The socket's protocol, exchanged by ``hello`` on every connection. 1 had no hello and sent
vectors as JSON numbers; 2 packed them and let any aria-mem process own the index; 3 is the
one service (clients never own; ``embed`` names any in-process model); 4 counts and lists ids
of one model's vectors (a service of 3 would ignore the model and list all); 5 answers whole
operations (``operation``: a command's search, remember, list, show, status) and sends their
errors as the type raised; 6 sends an answer of raw bytes (a program's search result) as a
``FRAME``, and a program's settings once (then by their digest). A client and a service of
different protocols do not talk: an older service is restarted, a newer one named."""
PACKED = "vector_f32"
"""The request key of a vector sent packed."""
FRAME = "frame"
"""The reply key of an answer that is raw bytes: their length, the bytes themselves right after
the reply line (not base64 inside it: a search result is 20-40 kB, written and read whole)."""
MAX_MESSAGE_BYTES = 64 * 1024 * 1024
"""The longest reply line a client reads (every id of a large collection is tens of MB)."""
MAX_REQUEST_BYTES = 16 * 1024 * 1024
"""The longest request line: a batch of 256 vectors of 8,192 dimensions is 11 MB, the most
text ``embed`` takes at most 12 MB even as JSON escapes."""
MAX_TEXTS_PER_CALL = 1024
"""The most texts one ``embed`` request may carry (the embedder sends a batch at a time)."""
MAX_TEXT_CHARS = 50_000
"""The longest text ``embed`` takes: more than anything aria-mem embeds (a memory is at most
2,000 characters, a knowledge passage 32,000, a query 1,000 a message) and more than any model
reads (MiniLM reads 256 tokens, about 1,000 characters). The client cuts longer texts here; the
service refuses them, since tokenizing 20 MB took 24 s and 2.5 GB."""
MAX_EMBED_CHARS = 100_000
"""The most characters one ``embed`` request carries in all: the model makes one client's
vectors at a time, and 1,000,000 characters held every query behind them for 6 s on a busy
2-core machine, 100,000 well under a second. The client splits a batch to fit."""
LISTEN_BACKLOG = 1024
"""Connections the kernel holds for the service while it accepts others (Python's default, 5,
refused 485 of a burst of 500)."""
MAX_CLIENTS = 256
"""Connections served at once (each holds a thread); more are told the service is busy."""
MAX_CLIENTS_PER_PROCESS = 64
"""Connections one process may hold at once (a command holds one; a program with many
threads a few), so that one runaway process cannot fill ``MAX_CLIENTS``."""
CLIENT_TIMEOUT = 300.0
"""Default seconds of silence after which the service closes a connection
(``[daemon] service_client_timeout``)."""
SOCKET_NAME = "index.sock"
_MAX_SOCKET_PATH = 100
"""A Unix socket path holds at most 107 bytes on Linux; keep a margin."""


class Host(Protocol):
    """What the service offers its clients: the shards, the in-process models, who it is."""

    @property
    def index(self) -> EdgeIndex: ...

    def embed(self, model: str, texts: list[str]) -> list[list[float]]: ...

    def hello(self) -> dict[str, Any]: ...

    def operation(self, request: dict[str, Any]) -> Any:
        """A whole operation (``{"op": "operation", "name": ..., "args": ...}``), answered by
        the handler the process that runs the service registered."""
        ...


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
    longest = max(map(len, texts), default=0)
    if longest > MAX_TEXT_CHARS:
        raise EmbedderError(
            f"A text of {longest:,} characters was sent to embed; the service takes at most "
            f"{MAX_TEXT_CHARS:,} per text — shorten it (no model reads that far)"
        )
    total = sum(map(len, texts))
    if total > MAX_EMBED_CHARS:
        raise EmbedderError(
            f"{total:,} characters were sent to embed at once; the service takes at most "
            f"{MAX_EMBED_CHARS:,} per request — send them in smaller batches"
        )
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
    "count": lambda host, r: host.index.count(r["collection"], r.get("model")),
    "ids": lambda host, r: [str(i) for i in host.index.ids(r["collection"], r.get("model"))],
    "operation": lambda host, r: host.operation(r),
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


def error_reply(exc: Exception, *, whole: bool = False) -> dict[str, Any]:
    """An error as a reply: its kind (which the client raises again) and its message. An
    aria-mem error of a ``whole`` operation crosses as its own type, exit code and option, so
    that a command answered by the service fails as it would in-process."""
    if whole and isinstance(exc, AriaMemError) and not isinstance(exc, DimensionMismatchError):
        return {
            "error": str(exc),
            "kind": "operation",
            "type": type(exc).__name__,
            "exit_code": exc.exit_code,
            "option": exc.option,
        }
    if isinstance(exc, DimensionMismatchError):
        args = [exc.collection, exc.collection_size, exc.model, exc.model_size]
        return {"error": str(exc), "kind": "dimension", "args": args}
    if isinstance(exc, EmbedderError):
        return {"error": str(exc), "kind": "embedder"}
    if isinstance(exc, IndexDiskFullError):
        return {"error": str(exc), "kind": "disk_full"}
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
    if kind == "disk_full":
        raise IndexDiskFullError(message)
    if kind == "operation":
        raise _operation_error(reply, message)
    raise VectorIndexError(message)


def _operation_error(reply: dict[str, Any], message: str) -> AriaMemError:
    """The error a whole operation raised in the service, as its type from ``aria_mem.errors``
    (a name that is not one there: the base, with the exit code it had)."""
    kind = getattr(errors, str(reply.get("type")), None)
    option = str(reply.get("option") or "")
    if not (isinstance(kind, type) and issubclass(kind, AriaMemError)):
        kind = AriaMemError
    try:
        exc = kind(message, option=option)
    except TypeError:  # a constructor of its own fields
        exc = AriaMemError(message, option=option)
    code = reply.get("exit_code")
    if isinstance(code, int) and code != exc.exit_code:
        exc.exit_code = code
    return exc


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


def peer(sock: socket.socket) -> tuple[int, int]:
    """The process and account at the other end of a Unix socket (SO_PEERCRED)."""
    raw = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    pid, uid, _gid = struct.unpack("3i", raw)
    return int(pid), int(uid)


def peer_uid(sock: socket.socket) -> int:
    """The account of the process at the other end of a Unix socket (SO_PEERCRED)."""
    return peer(sock)[1]


def reply_bytes(result: dict[str, Any]) -> bytes:
    """What the service writes for one reply: its line, and an answer of raw bytes as a
    ``FRAME`` after it (one write, so the client wakes once)."""
    answered = result.get("ok")
    if isinstance(answered, bytes):
        return json.dumps({FRAME: len(answered)}).encode() + b"\n" + answered
    return json.dumps(result).encode() + b"\n"


def frame_size(reply: dict[str, Any]) -> int | None:
    """The length of the raw bytes after a reply line (``FRAME``), None for a reply that is
    all on its line; ``ValueError`` for a length no client reads."""
    if FRAME not in reply:
        return None
    size = reply[FRAME]
    if type(size) is not int or not 0 <= size <= MAX_MESSAGE_BYTES:
        raise ValueError(f"a frame of {size!r} bytes")
    return size


def busy_reply(message: str) -> bytes:
    return json.dumps({"error": message, "kind": "busy"}).encode() + b"\n"
