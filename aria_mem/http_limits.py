"""How aria-mem's HTTP servers (the review page, the OpenAI-compatible endpoint and MCP over
HTTP) keep slow clients from shutting their owner out.

uvicorn waits as long as a client likes for a request, and counts every open connection
against its limit: forty connections that each send half a request would have every other
request answered 503 for as long as they stay open. So:

- **A deadline for the request.** A connection must deliver a whole request (its head and
  its body) within ``HEAD_SECONDS`` of opening, or of the last answer when it is kept alive,
  or it is closed. Until then it is *waiting*.
- **A deadline for reading the answers.** A client that stops reading what it is sent (many
  requests sent in a row, none of the answers read) fills the buffers, and uvicorn waits to
  write for as long as it likes; the connection is closed when it could not be written to
  for ``HEAD_SECONDS``.
- **Few waiting connections per client.** A client has at most ``PER_CLIENT`` waiting
  connections and all clients together ``TOTAL``; one more closes that client's oldest
  waiting one (or, past the total, everyone's oldest). The newest connection, the one a
  person has just opened, always gets its turn, and no client can use up the rest.

Who is a client: every local account may connect from any loopback address (all of 127/8,
::1, and their v4-mapped forms), so by address there would be one client on loopback that
shares an intruder's limit, or as many as the intruder likes. On loopback (on Linux)
the client is the local account that owns the other end of the connection, which the kernel
tells any process that asks about one socket (sock_diag, as ``ss`` asks; some microseconds);
elsewhere its address, and where the kernel does not say, all of loopback is one client.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
import struct
from collections.abc import Hashable
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


_NETLINK_SOCK_DIAG = 4
_SOCK_DIAG_BY_FAMILY = 20
_NLM_F_REQUEST = 1
_NO_COOKIE = 0xFFFFFFFF
_DIAG_MSG_UID = 64
"""Where struct inet_diag_msg keeps the socket's uid: after family, state, timer, retrans
(4 bytes), the socket's id (48) and expires, rqueue, wqueue (12)."""


def diag_request(family: int, client: tuple[str, int], server: tuple[str, int]) -> bytes:
    """A netlink message asking the kernel about the one TCP socket at ``client`` that is
    connected to ``server`` (struct nlmsghdr, then struct inet_diag_req_v2)."""

    def address(host: str) -> bytes:
        return socket.inet_pton(family, host).ljust(16, b"\0")

    sockid = (
        struct.pack("!HH", client[1], server[1])
        + address(client[0])
        + address(server[0])
        + struct.pack("=III", 0, _NO_COOKIE, _NO_COOKIE)
    )
    request = struct.pack("=BBBBI", family, socket.IPPROTO_TCP, 0, 0, 0xFFFFFFFF) + sockid
    header = struct.pack("=IHHII", 16 + len(request), _SOCK_DIAG_BY_FAMILY, _NLM_F_REQUEST, 1, 0)
    return header + request


def diag_uid(reply: bytes) -> int | None:
    """The uid in the kernel's answer; None when it answered with an error (no such socket)."""
    if len(reply) < 16 + _DIAG_MSG_UID + 4:
        return None
    length, kind = struct.unpack_from("=IH", reply)
    if kind != _SOCK_DIAG_BY_FAMILY or length < 16 + _DIAG_MSG_UID + 4:
        return None
    uid: int = struct.unpack_from("=I", reply, 16 + _DIAG_MSG_UID)[0]
    return uid


def account_of(family: int, client: tuple[str, int], server: tuple[str, int]) -> int | None:
    """The uid that owns the socket at ``client`` connected to ``server``, if the kernel says."""
    try:
        with socket.socket(socket.AF_NETLINK, socket.SOCK_DGRAM, _NETLINK_SOCK_DIAG) as asking:
            asking.settimeout(1)
            asking.send(diag_request(family, client, server))
            return diag_uid(asking.recv(8192))
    except (OSError, AttributeError, ValueError):  # no netlink (not Linux), or refused
        return None


def client_of(peer: Any, ours: Any) -> Hashable:
    """Who is behind a connection: the local account for a loopback one (when the kernel
    says), else the address it comes from.

    Loopback is all of 127/8, ::1 and their v4-mapped forms: any account may connect from
    any of them, so were each its own client, one account could take the whole total. Where
    the kernel does not say, all of loopback is one client."""
    if not (isinstance(peer, tuple) and isinstance(ours, tuple)):
        return ("address", None)
    host = _unmapped(str(peer[0]))
    if host is None:
        return ("address", str(peer[0]))
    if not host.is_loopback:
        return ("address", str(host))
    family = socket.AF_INET6 if ":" in str(peer[0]) else socket.AF_INET
    try:
        client, server = (str(peer[0]), int(peer[1])), (str(ours[0]), int(ours[1]))
    except (IndexError, TypeError, ValueError):
        return ("address", "loopback")
    uid = account_of(family, client, server)
    return ("address", "loopback") if uid is None else ("account", uid)


def _unmapped(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """The address, an IPv4 one for a v4-mapped IPv6 one; None for what is not an address."""
    try:
        address = ipaddress.ip_address(host.partition("%")[0])
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def guarded_protocol(
    head_seconds: float = HEAD_SECONDS, per_client: int = PER_CLIENT, total: int = TOTAL
) -> type[H11Protocol]:
    """uvicorn's h11 protocol with the deadline and the limits above (one count per server)."""
    waiting: Waiting[Guarded] = Waiting(per_client, total)

    class Guarded(H11Protocol):
        _deadline: asyncio.TimerHandle | None = None
        _stalled: asyncio.TimerHandle | None = None

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
            self._writable()
            super().connection_lost(exc)

        def pause_writing(self) -> None:
            """The client has stopped reading its answers (its buffers and ours are full): it
            is no longer waiting, so only this deadline closes it."""
            super().pause_writing()
            if self._stalled is None:
                self._stalled = self.loop.call_later(head_seconds, self._abort)

        def resume_writing(self) -> None:
            super().resume_writing()
            self._writable()

        def _writable(self) -> None:
            if self._stalled is not None:
                self._stalled.cancel()
                self._stalled = None

        def _abort(self) -> None:
            """Close at once: a plain close would wait to hand the client what it never reads."""
            self._served()
            self.transport.abort()

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
