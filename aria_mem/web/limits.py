"""How the page's server keeps slow clients from shutting its owner out.

uvicorn waits as long as a client likes for a request, and counts every open connection
against its limit: forty connections that each send half a request would have every other
request answered 503 for as long as they stay open. So:

- **A deadline for the request.** A connection must deliver a whole request (its head and
  its body) within ``HEAD_SECONDS`` of opening, or of the last answer when it is kept alive,
  or it is closed. Until then it is *waiting*.
- **Few waiting connections per client.** A client has at most ``PER_CLIENT`` waiting
  connections and all clients together ``TOTAL``; one more closes that client's oldest
  waiting one (or, past the total, everyone's oldest). The newest connection, the one a
  person has just opened, always gets its turn, and no client can use up the rest.

Who is a client: every local account connects from 127.0.0.1, so by address there would be
one client on loopback, and the owner would share an intruder's limit. On loopback (on Linux)
the client is the local account that owns the other end of the connection, which the kernel
lists in ``/proc/net/tcp``; elsewhere, and where that cannot be read, its address.
"""

from __future__ import annotations

import asyncio
import socket
import sys
from collections.abc import Hashable
from pathlib import Path
from typing import Any, Generic, TypeVar

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

HEAD_SECONDS = 10.0
PER_CLIENT = 10
"""A browser opens up to six connections to a site, and keeps some alive between pages."""
TOTAL = 50
CONCURRENCY = TOTAL + 30
"""uvicorn's own limit of open connections (503 beyond): the waiting ones and room for
requests being answered."""

T = TypeVar("T", bound=Hashable)


class Waiting(Generic[T]):
    """The connections still waiting for their request, oldest first, with their client."""

    def __init__(self, per_client: int = PER_CLIENT, total: int = TOTAL) -> None:
        self._per_client = per_client
        self._total = total
        self._clients: dict[T, Hashable] = {}

    def add(self, connection: T, client: Hashable) -> list[T]:
        """Count a new waiting connection; the ones it pushes out, to be closed."""
        pushed: list[T] = []
        same = [c for c, who in self._clients.items() if who == client]
        if len(same) >= self._per_client:
            pushed.append(same[0])
            del self._clients[same[0]]
        if len(self._clients) >= self._total:
            oldest = next(iter(self._clients))
            pushed.append(oldest)
            del self._clients[oldest]
        self._clients[connection] = client
        return pushed

    def done(self, connection: T) -> None:
        self._clients.pop(connection, None)

    def __len__(self) -> int:
        return len(self._clients)


def proc_address(host: str, port: int) -> str:
    """An address as /proc/net/tcp(6) writes it: each 32-bit word of the address in the
    machine's byte order, in hex, then the port."""
    packed = socket.inet_pton(socket.AF_INET6 if ":" in host else socket.AF_INET, host)
    words = (packed[i : i + 4] for i in range(0, len(packed), 4))
    return "".join(f"{int.from_bytes(w, sys.byteorder):08X}" for w in words) + f":{port:04X}"


def owner_in(table: str, local: str, remote: str) -> int | None:
    """The uid column of the socket of a /proc/net/tcp table with these two ends."""
    for line in table.splitlines()[1:]:
        parts = line.split()
        if len(parts) > 7 and parts[1] == local and parts[2] == remote and parts[7].isdigit():
            return int(parts[7])
    return None


def client_of(peer: Any, ours: Any) -> Hashable:
    """Who is behind a connection: the local account for a loopback one (when the kernel
    says), else the address it comes from."""
    if not (isinstance(peer, tuple) and isinstance(ours, tuple)):
        return ("address", None)
    host = str(peer[0])
    if host in ("127.0.0.1", "::1") and str(ours[0]) == host:
        table = Path("/proc/net/tcp6" if ":" in host else "/proc/net/tcp")
        try:
            uid = owner_in(
                table.read_text(), proc_address(host, peer[1]), proc_address(host, ours[1])
            )
        except (OSError, ValueError):
            uid = None
        if uid is not None:
            return ("account", uid)
    return ("address", host)


def guarded_protocol(
    head_seconds: float = HEAD_SECONDS, per_client: int = PER_CLIENT, total: int = TOTAL
) -> type[H11Protocol]:
    """uvicorn's h11 protocol with the deadline and the limits above (one count per server)."""
    waiting: Waiting[Guarded] = Waiting(per_client, total)

    class Guarded(H11Protocol):
        _deadline: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._client = client_of(
                transport.get_extra_info("peername"), transport.get_extra_info("sockname")
            )
            self._wait()

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            if self._deadline is not None and self.conn.their_state not in (
                h11.IDLE,
                h11.SEND_BODY,
            ):
                self._served()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing() and self.conn.their_state is h11.IDLE:
                self._wait()

        def connection_lost(self, exc: Exception | None) -> None:
            self._served()
            super().connection_lost(exc)

        def _wait(self) -> None:
            for pushed in waiting.add(self, self._client):
                pushed.cut()
            self._deadline = self.loop.call_later(head_seconds, self.cut)

        def _served(self) -> None:
            waiting.done(self)
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None

        def cut(self) -> None:
            """Close a connection that waited too long or was pushed out."""
            self._served()
            if not self.transport.is_closing():
                self.transport.close()

    return Guarded
