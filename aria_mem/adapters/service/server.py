"""The aria-mem service: the one process of an account that opens the embedded index's shards
and runs the in-process embedding model. Every other aria-mem process is its client.

A Qdrant Edge shard can be open in one process only, and loading the model takes seconds and
hundreds of MB; so one process does both, for as long as it is wanted. The first command that
needs it starts it in the background (``client.start_in_background``: detached, logging to
``service.log`` in the data folder) and it exits after ``idle_exit`` seconds with no client;
``aria-mem daemon`` hosts the same service in the foreground (and also reconciles), replacing
one started on demand (``takeover``). An exclusive lock on ``index.lock`` says which process it
is (``folder``); the shards stay open for the service's whole life, so a config change never
reopens them.

    python -m aria_mem.adapters.service.server INDEX_DIR [--idle-exit S] [--client-timeout S]
"""

from __future__ import annotations

import argparse
import contextlib
import faulthandler
import fcntl
import logging
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from aria_mem.adapters.model_shelf import ModelShelf
from aria_mem.adapters.service import folder
from aria_mem.adapters.service.folder import LOCK_NAME
from aria_mem.adapters.service.protocol import CLIENT_TIMEOUT, PROTOCOL, socket_path_for
from aria_mem.adapters.service.socket_server import Server
from aria_mem.errors import IndexClosedError, VectorIndexError
from aria_mem.private import FILE_MODE, private_dir
from aria_mem.version import __version__

if TYPE_CHECKING:
    from aria_mem.adapters.qdrant_edge import EdgeIndex

log = logging.getLogger(__name__)

ON_DEMAND = "on demand"
DAEMON = "daemon"

Operations = Callable[[Path, dict[str, Any]], Any]
"""A handler of whole operations: the service's index folder and the request in, the JSON
answer out. The process that runs the service registers it (``answer_operations``): the
operations run on the public API, which this layer may not import."""
_operations: Operations | None = None
_operation_names: list[str] = []


def answer_operations(handler: Operations | None, names: Iterable[str] = ()) -> None:
    """Let the service of this process answer whole operations with ``handler`` (None: no
    more); ``names``: the operations it knows, which ``hello`` lists (a client asks only
    for one its service knows, else works in-process)."""
    global _operations, _operation_names
    _operations = handler
    _operation_names = sorted(names) if handler is not None else []


class IndexService:
    """The shards of ``root`` and the models, served on the socket beside the shards."""

    def __init__(
        self,
        root: Path,
        lock: IO[str],
        *,
        started: str,
        shelf: ModelShelf,
        client_timeout: float = CLIENT_TIMEOUT,
    ) -> None:
        self.root = root
        self.started = started
        self.shelf = shelf
        self.protocol = PROTOCOL
        self._lock_file = lock
        self._started_at = time.time()
        self._index: EdgeIndex | None = None
        self._index_lock = threading.Lock()
        self._closed = False
        self._socket_path = socket_path_for(root)
        self._socket_path.unlink(missing_ok=True)
        self._server = Server(self._socket_path, self, client_timeout=client_timeout)
        self._socket_inode = os.stat(self._socket_path).st_ino
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.05},
            name="aria-mem-service",
            daemon=True,
        )
        self._thread.start()
        folder.host(root, self)
        log.info(
            "aria-mem service %s (pid %d, %s) serves %s", __version__, os.getpid(), started, root
        )

    @classmethod
    def take(
        cls,
        root: Path,
        *,
        started: str,
        shelf: ModelShelf | None = None,
        client_timeout: float = CLIENT_TIMEOUT,
    ) -> IndexService | None:
        """The service of ``root`` in this process, or None when another process runs it.
        ``client_timeout``: seconds of silence after which a client's connection is closed."""
        private_dir(root, what="index folder")
        fd = os.open(root / LOCK_NAME, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, FILE_MODE)
        handle = os.fdopen(fd, "w")
        deadline = time.monotonic() + 0.3  # a client's probe (lock_held) holds it a moment
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    handle.close()
                    return None
                time.sleep(0.01)
        try:
            handle.truncate(0)
            handle.write(str(os.getpid()))
            handle.flush()
            return cls(
                root,
                handle,
                started=started,
                shelf=shelf or ModelShelf(),
                client_timeout=client_timeout,
            )
        except BaseException:
            handle.close()
            raise

    # -- what clients are served (protocol.Host) ------------------------------------

    @property
    def index(self) -> EdgeIndex:
        """The shards, opened on first use (a service asked only for vectors never opens
        them, as with a Qdrant server) and never twice."""
        with self._index_lock:
            if self._closed:
                raise IndexClosedError(f"The aria-mem service for {self.root} is stopping")
            if self._index is None:
                from aria_mem.adapters.qdrant_edge import EdgeIndex

                self._index = EdgeIndex(self.root)
            return self._index

    def embed(self, model: str, texts: list[str]) -> list[list[float]]:
        return self.shelf.encode(model, texts) if texts else []

    def operation(self, request: dict[str, Any]) -> Any:
        handler = _operations
        if handler is None:
            raise VectorIndexError(
                f"The aria-mem service for {self.root} answers no whole operations"
            )
        return handler(self.root, request)

    def hello(self) -> dict[str, Any]:
        models = self.shelf.names()
        return {
            "operations": _operation_names,
            "protocol": self.protocol,
            "version": __version__,
            "pid": os.getpid(),
            "uptime_s": round(time.time() - self._started_at, 1),
            "command": self.started,
            "model": ", ".join(models) if models else None,
        }

    # -- life ------------------------------------------------------------------------------

    def idle_seconds(self) -> float:
        return self._server.idle_seconds()

    def serve(self, stop: threading.Event, idle_exit: float) -> None:
        """Serve until ``stop`` is set or, with ``idle_exit`` > 0, no client has been
        connected for that long."""
        while not stop.wait(min(1.0, idle_exit) if idle_exit > 0 else 1.0):
            if idle_exit > 0 and self.idle_seconds() >= idle_exit:
                log.info("no client for %.0f s; exiting", idle_exit)
                return
            if not self.in_place():
                log.warning("%s was removed or replaced; exiting", self.root / LOCK_NAME)
                return

    def in_place(self) -> bool:
        """Is the lock this service holds still the one in the index folder? (A removed
        folder leaves the service holding deleted files that no client can reach; the next
        command starts a new service there.)"""
        try:
            return (
                os.stat(self.root / LOCK_NAME).st_ino == os.fstat(self._lock_file.fileno()).st_ino
            )
        except OSError:
            return False

    def close(self) -> None:
        """Stop answering, hang up on clients (they reconnect to the next service), close
        the shards and let go of the lock."""
        folder.unhost(root=self.root, service=self)
        self._server.shutdown()
        with contextlib.suppress(OSError):  # only our own: a removed folder may hold the next's
            if os.stat(self._socket_path).st_ino == self._socket_inode:
                self._socket_path.unlink()
        self._server.server_close()
        self._server.hang_up()
        with self._index_lock:
            self._closed = True
            if self._index is not None:
                self._index.close()
                self._index = None
        with contextlib.suppress(OSError):
            self._lock_file.truncate(0)  # no pid left behind for a later stop to signal
        fcntl.flock(self._lock_file, fcntl.LOCK_UN)
        self._lock_file.close()
        log.info("stopped")


def main(
    argv: list[str] | None = None,
    *,
    operations: Operations | None = None,
    names: Iterable[str] = (),
) -> int:
    """Run the service started on demand until it is told to stop or is idle; ``operations``
    answers whole operations (``python -m aria_mem.operations`` passes its handler)."""
    parser = argparse.ArgumentParser(prog="aria-mem service", description=__doc__)
    parser.add_argument("root", type=Path)
    parser.add_argument("--idle-exit", type=float, default=1800.0)
    parser.add_argument("--client-timeout", type=float, default=CLIENT_TIMEOUT)
    args = parser.parse_args(argv)
    os.umask(0o077)
    faulthandler.enable()  # a crash in Edge or torch (SIGBUS, SIGSEGV) leaves its trace in the log
    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    answer_operations(operations, names)
    try:
        service = IndexService.take(
            args.root, started=ON_DEMAND, client_timeout=args.client_timeout
        )
    except (OSError, VectorIndexError) as exc:
        log.error("could not start: %s", exc)
        return 1
    if service is None:
        return 0  # another process runs it (a client that started one at the same moment)
    try:
        service.serve(stop, args.idle_exit)
    finally:
        service.close()
        logging.shutdown()
    return 0


if __name__ == "__main__":
    sys.stdout.flush()
    # os._exit: torch's and Edge's native threads never see interpreter teardown
    os._exit(main())
