"""The socket server of the aria-mem service: answers each client's requests on the private
Unix socket (``protocol``: the table of operations, the bounds), admitting only this account's
processes and at most so many connections, each in a thread of its own."""

from __future__ import annotations

import contextlib
import json
import logging
import os
import socket
import socketserver
import threading
import time
from pathlib import Path
from typing import Any

from aria_mem.adapters.service.protocol import (
    CLIENT_TIMEOUT,
    LISTEN_BACKLOG,
    MAX_CLIENTS,
    MAX_CLIENTS_PER_PROCESS,
    MAX_REQUEST_BYTES,
    Host,
    answer,
    busy_reply,
    error_reply,
    peer,
    reply_bytes,
    socket_address,
)
from aria_mem.errors import AriaMemError, IndexClosedError

log = logging.getLogger(__name__)


class _Handler(socketserver.StreamRequestHandler):
    server: Server

    def setup(self) -> None:
        super().setup()
        self.request.settimeout(self.server.client_timeout or None)

    def handle(self) -> None:
        while True:
            try:
                line = self.rfile.readline(MAX_REQUEST_BYTES + 1)
            except TimeoutError:
                log.info("closed a connection silent for %g s", self.server.client_timeout)
                return
            except OSError:
                return  # hung up (see Server.hang_up)
            if not line:
                return
            if len(line) > MAX_REQUEST_BYTES:
                log.warning("refused a request over %d bytes", MAX_REQUEST_BYTES)
                self._send(error_reply(ValueError(f"a request over {MAX_REQUEST_BYTES:,} bytes")))
                return
            self.server.touch()
            if not self._answer(line):
                return

    def _answer(self, line: bytes) -> bool:
        """Answer one request line; False when the connection is to end."""
        request: Any = None
        try:
            request = json.loads(line)
            if not isinstance(request, dict):
                raise ValueError("a request is a JSON object")
            result: dict[str, Any] = {"ok": answer(self.server.host, request)}
        except IndexClosedError:
            return False  # the service is stopping: the client reconnects to the next one
        except (AriaMemError, KeyError, ValueError, TypeError, RecursionError) as exc:
            whole = isinstance(request, dict) and request.get("op") == "operation"
            result = error_reply(exc, whole=whole)
        except Exception as exc:  # a disk that refuses a write, a model that breaks
            log.exception("the %r request failed", request.get("op") if request else None)
            result = {"error": f"{type(exc).__name__}: {exc}", "kind": "index"}
        return self._send(result)

    def _send(self, result: dict[str, Any]) -> bool:
        try:
            self.wfile.write(reply_bytes(result))
            self.wfile.flush()
        except OSError:
            return False  # hung up (see Server.hang_up), or silent past the timeout
        return True


class Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True
    request_queue_size = LISTEN_BACKLOG

    def __init__(self, path: Path, host: Host, *, client_timeout: float = CLIENT_TIMEOUT) -> None:
        """``client_timeout``: seconds of silence after which a connection is closed (0:
        never)."""
        self.host = host
        self.client_timeout = client_timeout
        self._clients: dict[socket.socket, int] = {}
        """Each connection being served, with the pid of its process."""
        self._clients_lock = threading.Lock()
        self._last_activity = time.monotonic()
        self._refused_logged = 0.0
        with socket_address(path) as address:
            super().__init__(address, _Handler)

    def process_request(self, request: Any, client_address: Any) -> None:
        """Admit a connection (in the accepting thread, before a thread is spent on it): only
        from this account, and within the bounds, else told ``busy`` and closed."""
        pid, uid = peer(request)
        if uid != os.geteuid():
            log.warning("refused a connection from another account (uid %d)", uid)
            self.shutdown_request(request)
            return
        refusal = self._admit(request, pid)
        if refusal is not None:
            self._refuse(request, refusal)
            return
        super().process_request(request, client_address)

    def _admit(self, client: socket.socket, pid: int) -> str | None:
        with self._clients_lock:
            if len(self._clients) >= MAX_CLIENTS:
                return (
                    f"The aria-mem service is busy: {MAX_CLIENTS} connections are open — try "
                    "again in a moment"
                )
            if sum(1 for p in self._clients.values() if p == pid) >= MAX_CLIENTS_PER_PROCESS:
                return (
                    f"The aria-mem service is busy: process {pid} already holds "
                    f"{MAX_CLIENTS_PER_PROCESS} connections to it — close some, or reuse one"
                )
            self._clients[client] = pid
        return None

    def _refuse(self, client: socket.socket, message: str) -> None:
        now = time.monotonic()
        if now - self._refused_logged > 10:  # one line for a burst, not one per connection
            log.warning("%s", message)
            self._refused_logged = now
        with contextlib.suppress(OSError):
            client.settimeout(0.1)  # a line into an empty socket buffer: never waits
            client.sendall(busy_reply(message))
        self.shutdown_request(client)

    def shutdown_request(self, request: Any) -> None:
        with self._clients_lock:
            served = self._clients.pop(request, None) is not None
        if served:
            self.touch()
        super().shutdown_request(request)

    def touch(self) -> None:
        self._last_activity = time.monotonic()

    def idle_seconds(self) -> float:
        """How long no client has been connected (0 while one is; a silent one is closed after
        ``client_timeout``)."""
        with self._clients_lock:
            if self._clients:
                return 0.0
        return time.monotonic() - self._last_activity

    def hang_up(self) -> None:
        """End every client's connection (after ``shutdown``, before the index is closed), so
        each notices at once and reconnects, instead of waiting on a handler whose index is
        gone."""
        with self._clients_lock:
            clients = list(self._clients)
        for client in clients:
            with contextlib.suppress(OSError):
                client.shutdown(socket.SHUT_RDWR)
