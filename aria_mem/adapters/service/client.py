"""The client of the aria-mem service (``server``): requests over its private socket, the
service started in the background when none answers.

A client never opens the shards or loads the model. When the service goes away (stopped, idle,
upgraded) the next call reconnects, starting a new one if needed. Writes are idempotent (upsert
and delete by id), so a call retried on a new connection does no harm. In the process that runs
the service (the daemon) the same requests are answered in place, without the socket.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO, Any

from aria_mem.adapters.service.folder import (
    hosted,
    lock_held,
    log_path_for,
    open_log,
    read_log_tail,
    stop_service,
)
from aria_mem.adapters.service.protocol import (
    CLIENT_TIMEOUT,
    MAX_MESSAGE_BYTES,
    MAX_REQUEST_BYTES,
    PROTOCOL,
    Host,
    answer,
    frame_size,
    peer_uid,
    raise_reply,
    socket_address,
    socket_path_for,
)
from aria_mem.errors import StoreError, VectorIndexError
from aria_mem.private import private_dir

log = logging.getLogger(__name__)

SERVER = "aria_mem.adapters.service.server"
"""The module that runs the service (``python -m``), answering this layer's operations."""
WITH_OPERATIONS = "aria_mem.operations"
"""The module that runs the service answering whole operations too (the entry points' layer
registers their handler); what aria-mem's own clients start."""
NOTICES = logging.getLogger("aria_mem.notice")
"""One-line notices a person should see (the CLI prints this logger's INFO records)."""

REPLY_TIMEOUT = 300.0
"""The longest wait for one reply: the first embedding loads the model (seconds; more on a
busy machine), a batch of vectors after it."""


def start_in_background(
    root: Path,
    *,
    idle_exit: float,
    client_timeout: float = CLIENT_TIMEOUT,
    entry: str = SERVER,
) -> subprocess.Popen[bytes]:
    """Start the service of ``root`` detached from this process (its own session, no
    terminal), logging to ``service.log``. If another one wins the race it simply exits.
    ``entry``: the module run as the service (``python -m``), one that answers whole
    operations or only this layer's."""
    private_dir(root, what="index folder")
    log_fd = open_log(log_path_for(root))
    try:
        child = subprocess.Popen(
            [
                sys.executable,
                "-m",
                entry,
                str(root),
                "--idle-exit",
                f"{idle_exit:g}",
                "--client-timeout",
                f"{client_timeout:g}",
            ],
            stdin=subprocess.DEVNULL,
            stdout=log_fd,
            stderr=log_fd,
            cwd=root,
            start_new_session=True,
        )
    finally:
        os.close(log_fd)
    threading.Thread(target=child.wait, name="aria-mem-service-reaper", daemon=True).start()
    return child


class ServiceClient:
    """Requests to the service of ``root`` (the index folder), started when none answers."""

    def __init__(
        self,
        root: Path,
        *,
        idle_exit: float = 1800.0,
        wait_seconds: float = 60.0,
        in_place: bool = True,
        start: bool = True,
        client_timeout: float = CLIENT_TIMEOUT,
        entry: str = SERVER,
    ) -> None:
        """``idle_exit``: the idle time after which a service this client starts exits
        (0: never); ``client_timeout``: the silence after which it closes a connection
        (this client then reconnects). ``wait_seconds``: how long to wait for a service to
        answer (or to be less busy).
        ``in_place``: answer in this process when it runs the service (False: always over
        the socket, as another process would). ``start``: start a service when none answers
        (False: a probe, which only asks). ``entry``: the module a service this client starts
        runs (see ``start_in_background``)."""
        self._entry = entry
        self.info: dict[str, Any] = {}
        """The service's ``hello`` on the current connection."""
        self.root = root
        self._in_place = in_place
        self._start = start
        self._idle_exit = idle_exit
        self._client_timeout = client_timeout
        self._wait = wait_seconds
        self._busy: str | None = None
        """The service's last "busy" answer, while it turns connections away."""
        self._socket_path = socket_path_for(root)
        self._conn: socket.socket | None = None
        self._reader: IO[bytes] | None = None
        self._mutex = threading.Lock()
        self.started_service = False
        """This client started the service (for its notice and for tests)."""

    def here(self) -> Host | None:
        """The service itself when this process runs it and answers in place, else None."""
        return hosted(self.root) if self._in_place else None

    def call(self, request: dict[str, Any], *, resend: bool = True) -> Any:
        """The service's answer to one request; its error raised as the type it was.
        ``resend``: send the request again on a new connection when the service went away
        before answering (False for a request that is not idempotent: then the loss is an
        error that says the service stopped mid-request)."""
        here = self.here()
        if here is not None:
            return answer(here, request)
        line = json.dumps(request).encode() + b"\n"
        if len(line) > MAX_REQUEST_BYTES:
            raise VectorIndexError(
                f"A {request.get('op')} request of {len(line):,} bytes is over the aria-mem "
                f"service's bound of {MAX_REQUEST_BYTES:,} — send it in smaller batches"
            )
        with self._mutex:
            for _attempt in range(3):
                if self._conn is None:
                    self._connect_or_start()
                assert self._conn is not None and self._reader is not None
                try:
                    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                        self._conn.sendall(line)  # cut short: an error reply may be waiting
                    reply = self._read_reply(self._reader)
                except TimeoutError as exc:
                    self._drop_connection()
                    raise VectorIndexError(
                        f"The aria-mem service for {self.root} did not answer within "
                        f"{REPLY_TIMEOUT:g} s — see {log_path_for(self.root)}"
                    ) from exc
                except OSError as exc:
                    log.debug("the service connection failed (%s); reconnecting", exc)
                    reply = None
                except ValueError as exc:
                    self._drop_connection()
                    raise VectorIndexError(
                        f"The aria-mem service for {self.root} sent a reply that is not JSON "
                        f"(or over {MAX_MESSAGE_BYTES:,} bytes, or a bad frame): {exc}"
                    ) from exc
                except BaseException:  # interrupted mid-call: the next reply is not ours
                    self._drop_connection()
                    raise
                if not isinstance(reply, dict):
                    self._drop_connection()
                    if not resend:
                        raise VectorIndexError(
                            f"The aria-mem service (pid {self.info.get('pid', '?')}) stopped "
                            f"before it answered — see {log_path_for(self.root)}; the next "
                            "command starts it again (a write it was making may have been "
                            "stored: `aria-mem list` shows)"
                        )
                    continue
                if "error" in reply:
                    raise_reply(reply)
                return reply["ok"]
        raise VectorIndexError(
            f"The aria-mem service for {self.root} kept going away (tried 3 times) — see "
            f"{log_path_for(self.root)}"
        )

    @staticmethod
    def _read_reply(reader: IO[bytes]) -> Any:
        """One reply: its line, with the raw bytes of a ``FRAME`` as its ``ok`` value; None
        when the connection ended before all of it came."""
        raw = reader.readline(MAX_MESSAGE_BYTES + 1)
        reply = json.loads(raw) if raw else None
        size = frame_size(reply) if isinstance(reply, dict) else None
        if size is None:
            return reply
        data = reader.read(size)
        return {"ok": data} if len(data) == size else None

    def hello(self) -> dict[str, Any]:
        info: dict[str, Any] = self.call({"op": "hello", "protocol": PROTOCOL})
        return info

    def close(self) -> None:
        with self._mutex:
            self._drop_connection()

    # -- connecting ----------------------------------------------------------------------

    def _connect_or_start(self) -> None:
        deadline = time.monotonic() + self._wait
        child: subprocess.Popen[bytes] | None = None
        self._busy = None
        while (service_pid := self._try_connect()) is None:
            if not self._start:
                raise VectorIndexError(self._busy or f"No aria-mem service answers for {self.root}")
            if child is None or (child.poll() == 0 and not lock_held(self.root)):
                if not lock_held(self.root):
                    child = start_in_background(
                        self.root,
                        idle_exit=self._idle_exit,
                        client_timeout=self._client_timeout,
                        entry=self._entry,
                    )
            elif child.poll() not in (None, 0):
                raise VectorIndexError(
                    f"The aria-mem service could not start (exit {child.returncode}): "
                    f"{read_log_tail(self.root) or 'no log'} — see {log_path_for(self.root)}"
                )
            if time.monotonic() > deadline:
                raise VectorIndexError(
                    f"{self._busy} (for {self._wait:g} s)"
                    if self._busy
                    else f"The aria-mem service for {self.root} did not answer within "
                    f"{self._wait:g} s — see {log_path_for(self.root)}, or `aria-mem stop` "
                    "and try again"
                )
            time.sleep(0.2 if self._busy else 0.02)
        if child is not None and child.pid == service_pid:  # not one that lost a race
            self.started_service = True
            NOTICES.info(
                "started the aria-mem service in the background (pid %d): it keeps the index "
                "and the embedding model loaded for later commands; log: %s; `aria-mem stop` "
                "stops it",
                service_pid,
                log_path_for(self.root),
            )

    def _try_connect(self) -> int | None:
        """The service's pid once connected to a service of this protocol; None when none
        answers (yet)."""
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(min(REPLY_TIMEOUT, self._wait))  # the hello; calls get REPLY_TIMEOUT
        try:
            with socket_address(self._socket_path) as address:
                sock.connect(address)
        except OSError:
            sock.close()
            return None
        uid = peer_uid(sock)
        if uid != os.geteuid():
            sock.close()
            raise VectorIndexError(
                f"The socket {self._socket_path} is served by another account (uid {uid}); "
                f"nothing was sent to it — check who owns {self.root}"
            )
        self._conn = sock
        self._reader = sock.makefile("rb")
        try:
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                sock.sendall(json.dumps({"op": "hello", "protocol": PROTOCOL}).encode() + b"\n")
            line = self._reader.readline(MAX_MESSAGE_BYTES + 1)
            reply = json.loads(line) if line else None
        except (OSError, ValueError):
            reply = None
        if not isinstance(reply, dict) or reply.get("kind") == "busy":
            self._drop_connection()
            self._busy = str(reply["error"]) if isinstance(reply, dict) else None
            return None  # stopping or busy: wait for it, or start the next
        info = reply.get("ok")
        protocol = info.get("protocol") if isinstance(info, dict) else None
        if isinstance(info, dict) and protocol == PROTOCOL:
            sock.settimeout(REPLY_TIMEOUT)
            self.info = info
            return int(info.get("pid", 0))
        self._drop_connection()
        if isinstance(info, dict) and isinstance(protocol, int) and protocol > PROTOCOL:
            raise VectorIndexError(
                f"The index in {self.root} is served by aria-mem {info.get('version')} "
                f"(process {info.get('pid')}), which speaks a newer protocol ({protocol}, this "
                f"one {PROTOCOL}) — upgrade this aria-mem, or stop that one (`aria-mem stop`)"
            )
        self._restart_older_service()
        return None

    def _restart_older_service(self) -> None:
        """A service of an older protocol is aria-mem from before an upgrade: it is asked to
        stop, and the next attempt starts this version's."""
        try:
            pid = stop_service(self.root, wait_seconds=self._wait)
        except StoreError as exc:
            raise VectorIndexError(str(exc)) from exc
        if pid is None:
            raise VectorIndexError(
                f"The process serving {self._socket_path} does not speak aria-mem's protocol "
                f"({PROTOCOL}) and is not an aria-mem process that can be stopped — stop it, "
                "or remove that socket if none runs"
            )
        log.warning("stopped aria-mem process %d: it served an older protocol", pid)

    def _drop_connection(self) -> None:
        if self._reader is not None:
            self._reader.close()
        if self._conn is not None:
            self._conn.close()
        self._conn = self._reader = None
