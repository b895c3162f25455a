"""Who runs the PostgreSQL server a DSN names over TCP on this machine.

Any account can be first to listen on a free port of 127.0.0.1: should the system PostgreSQL
stop, another person's program on 127.0.0.1:5432 would receive the DSN's password (libpq sends
it in clear when a server asks) and every memory written or read. So before each connection
this store asks who holds the address (``model_servers.ServerGuard``, as the model and index
adapters do), and connects to nothing another person's account holds unless ``[postgres]
trust_account`` names that account. The system PostgreSQL runs as the system account
``postgres`` and passes; a socket path (the embedded server's) and another machine's address
are not judged here.
"""

from __future__ import annotations

import os

from psycopg.conninfo import conninfo_to_dict

from aria_mem.adapters.model_servers import ServerGuard
from aria_mem.errors import StoreError

USUAL_PORT = 5432


def tcp_addresses(dsn: str) -> list[tuple[str, int]]:
    """The TCP addresses libpq would try for ``dsn`` (its hosts, or ``hostaddr`` where given,
    each with its port, else the first port, else ``PGPORT``, else 5432); none for sockets."""
    parts = conninfo_to_dict(dsn)
    named = str(parts.get("hostaddr") or parts.get("host") or os.environ.get("PGHOST") or "")
    hosts = [h.strip() for h in named.split(",")] if named else []
    ports = [p.strip() for p in str(parts.get("port") or os.environ.get("PGPORT") or "").split(",")]
    found = []
    for at, host in enumerate(hosts):
        if not host or host.startswith(("/", "@")):  # a socket's folder, or an abstract one
            continue
        port = ports[at] if at < len(ports) and ports[at] else ports[0] or str(USUAL_PORT)
        found.append((host, int(port) if port.isdigit() else USUAL_PORT))
    return found


class ServerOwner:
    """The check a store makes before each connection to the server its DSN names."""

    def __init__(self, dsn: str, trust_account: str = "") -> None:
        self._guards = [
            ServerGuard("postgres", f"postgresql://{_shown(host)}:{port}", port, trust_account)
            for host, port in tcp_addresses(dsn)
        ]

    def check(self) -> None:
        """``StoreError`` with one line naming the address, the account and the fix when
        another person's account holds one of the addresses (nothing is sent to any)."""
        for guard in self._guards:
            guard.check(StoreError)

    def forget(self) -> None:
        """A connection failed: look each address up afresh next time."""
        for guard in self._guards:
            guard.forget()


def _shown(host: str) -> str:
    return f"[{host}]" if ":" in host else host
