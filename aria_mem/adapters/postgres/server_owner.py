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

import configparser
import os

from psycopg.conninfo import conninfo_to_dict

from aria_mem.adapters.model_servers import ServerGuard
from aria_mem.errors import StoreError

USUAL_PORT = 5432


def tcp_addresses(dsn: str) -> list[tuple[str, int]]:
    """The TCP addresses libpq would try for ``dsn``: each keyword from the DSN, else its
    variable (``PGHOST``, ``PGHOSTADDR``, ``PGPORT``), else the service file's entry
    (``service=`` or ``PGSERVICE``); per host, its ``hostaddr`` when given, with its port (one
    port serves every host; an empty one is 5432). Socket folders are not addresses."""
    given = {k: str(v) for k, v in conninfo_to_dict(dsn).items() if v is not None}
    service = _service(given.get("service") or os.environ.get("PGSERVICE", ""))

    def keyword(name: str, variable: str) -> list[str]:
        value = given.get(name) or os.environ.get(variable) or service.get(name, "")
        return [part.strip() for part in value.split(",")] if value else []

    hosts, addrs = keyword("host", "PGHOST"), keyword("hostaddr", "PGHOSTADDR")
    ports = keyword("port", "PGPORT") or [""]
    found = []
    for at in range(max(len(hosts), len(addrs))):
        addr = addrs[at] if at < len(addrs) else ""
        host = addr or (hosts[at] if at < len(hosts) else "")
        if not host or host.startswith(("/", "@")):  # a socket's folder, or an abstract one
            continue
        port = ports[0] if len(ports) == 1 else ports[at] if at < len(ports) else ""
        number = int(port) if port.isascii() and port.isdigit() else USUAL_PORT
        found.append((host, number))
    return found


def _service(name: str) -> dict[str, str]:
    """The keywords of connection service ``name``, as libpq finds it: in ``PGSERVICEFILE``
    (else ~/.pg_service.conf), then in pg_service.conf of ``PGSYSCONFDIR`` (else Debian's
    /etc/postgresql-common); empty when there is none."""
    if not name:
        return {}
    user_file = os.environ.get("PGSERVICEFILE") or os.path.expanduser("~/.pg_service.conf")
    system = os.environ.get("PGSYSCONFDIR") or "/etc/postgresql-common"
    for path in (user_file, os.path.join(system, "pg_service.conf")):
        read = configparser.ConfigParser(interpolation=None)
        try:
            read.read(path, encoding="utf-8")
        except (configparser.Error, OSError, UnicodeDecodeError):
            continue
        if read.has_section(name):
            return dict(read.items(name))
    return {}


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
