"""Who runs the PostgreSQL server a DSN names on this machine, over TCP or a Unix socket.

Any account can be first to listen on a free port of 127.0.0.1, or to make the socket file in a
folder every account may write (``host=/tmp``): should the person's PostgreSQL stop, another
person's program there would receive the DSN's password (libpq sends it in clear when a server
asks) and every memory written or read. So before each connection this store asks who holds
each address (``model_servers.ServerGuard``, as the model and index adapters do) and who owns
each socket file (``SocketGuard``), and connects to nothing another person's account holds
unless ``[postgres] trust_account`` names that account. The system PostgreSQL runs as the
system account ``postgres`` and passes. A DSN with ``requirepeer`` (the embedded server's)
has libpq check the socket's account itself; another machine's address and an abstract socket
have no owner to tell.
"""

from __future__ import annotations

import configparser
import os
from collections.abc import Callable
from pathlib import Path

from psycopg.conninfo import conninfo_to_dict

from aria_mem.adapters.model_servers import ServerGuard, refusal, refuses
from aria_mem.errors import ConfigError, StoreError
from aria_mem.listeners import Listener, account_name
from aria_mem.ownership import check_file

USUAL_PORT = 5432
DEFAULT_SOCKET_FOLDER = "/var/run/postgresql"
"""Where the libpq psycopg brings looks for a socket when a DSN names no host (compiled in)."""


def _keywords(dsn: str) -> Callable[[str, str], list[str]]:
    """A keyword's values as libpq reads them for ``dsn``: from the DSN, else its variable,
    else the service file's entry (``service=`` or ``PGSERVICE``), split at commas."""
    given = {k: str(v) for k, v in conninfo_to_dict(dsn).items() if v is not None}
    service = _service(given.get("service") or os.environ.get("PGSERVICE", ""))

    def keyword(name: str, variable: str) -> list[str]:  # given empty: libpq's default
        value = given[name] if name in given else os.environ.get(variable) or service.get(name, "")
        return [part.strip() for part in value.split(",")] if value else []

    return keyword


def _port(ports: list[str], at: int) -> int:
    """The port of the ``at``-th host: one port serves every host; an empty one is 5432."""
    port = ports[0] if len(ports) == 1 else ports[at] if at < len(ports) else ""
    return int(port) if port.isascii() and port.isdigit() else USUAL_PORT


def tcp_addresses(dsn: str) -> list[tuple[str, int]]:
    """The TCP addresses libpq would try for ``dsn``: per host, its ``hostaddr`` when given,
    with its port (``_keywords``, ``_port``). Socket folders are not addresses."""
    keyword = _keywords(dsn)
    hosts, addrs = keyword("host", "PGHOST"), keyword("hostaddr", "PGHOSTADDR")
    ports = keyword("port", "PGPORT") or [""]
    found = []
    for at in range(max(len(hosts), len(addrs))):
        addr = addrs[at] if at < len(addrs) else ""
        host = addr or (hosts[at] if at < len(hosts) else "")
        if not host or host.startswith(("/", "@")):  # a socket's folder, or an abstract one
            continue
        found.append((host, _port(ports, at)))
    return found


def socket_files(dsn: str) -> list[Path]:
    """The socket files libpq would try for ``dsn`` (``.s.PGSQL.PORT`` in each host that is a
    folder, the compiled-in folder when there is no host at all), unless ``requirepeer`` has
    libpq check the server's account itself."""
    keyword = _keywords(dsn)
    if keyword("requirepeer", "PGREQUIREPEER"):
        return []
    hosts, addrs = keyword("host", "PGHOST"), keyword("hostaddr", "PGHOSTADDR")
    ports = keyword("port", "PGPORT") or [""]
    if not hosts and not addrs:
        hosts = [DEFAULT_SOCKET_FOLDER]
    hosts = [host or DEFAULT_SOCKET_FOLDER for host in hosts]  # an empty one: the default
    return [
        Path(host) / f".s.PGSQL.{_port(ports, at)}"
        for at, host in enumerate(hosts)
        if host.startswith("/") and not (at < len(addrs) and addrs[at])
    ]


def _service(name: str) -> dict[str, str]:
    """The keywords of connection service ``name``, as libpq finds it: in ``PGSERVICEFILE``
    (else ~/.pg_service.conf), then in pg_service.conf of ``PGSYSCONFDIR`` (else Debian's
    /etc/postgresql-common); empty when there is none. A service file names the server as a
    DSN does, so it is trusted only as a config is (``ownership``), and one that cannot be read
    plainly (or that finds the server through LDAP) is refused: its server could not be
    judged."""
    if not name:
        return {}
    user_file = os.environ.get("PGSERVICEFILE") or os.path.expanduser("~/.pg_service.conf")
    system = os.environ.get("PGSYSCONFDIR") or "/etc/postgresql-common"
    for path in (user_file, os.path.join(system, "pg_service.conf")):
        if not os.path.exists(path):
            continue
        read = configparser.ConfigParser(interpolation=None)
        try:
            check_file(Path(path), "connection service file", _OWN_SERVICE)
            read.read(path, encoding="utf-8")
        except (ConfigError, configparser.Error, OSError, UnicodeDecodeError) as exc:
            raise StoreError(f"Cannot check the servers of service {name!r}: {exc}") from exc
        if read.has_section(name):
            found = dict(read.items(name))
            if any(key.lower().startswith("ldap") for key in found):
                raise StoreError(
                    f"Service {name!r} in {path} finds its server through LDAP, which aria-mem "
                    f"cannot check — {_OWN_SERVICE}"
                )
            return found
    return {}


_OWN_SERVICE = "name the server in [postgres] dsn instead, or keep the file only you can write"


class SocketGuard:
    """The check before each connection through one socket file: who owns it (the account
    whose server made it), and the link to it if it is one."""

    def __init__(self, path: Path, trust_account: str) -> None:
        self._path = path
        self._trust = trust_account.strip()

    def check(self, error: Callable[[str], Exception]) -> None:
        for look in (os.lstat, os.stat):
            try:
                uid = look(self._path).st_uid
            except OSError:
                return  # none there: libpq finds nothing to send to either
            holder = Listener(str(self._path), uid, account_name(uid))
            if refuses(holder, self._trust):
                raise error(refusal(str(self._path), holder, "postgres"))

    def forget(self) -> None:
        """Nothing is kept: a socket file's owner is looked up at each connection."""


class ServerOwner:
    """The check a store makes before each connection to the server its DSN names."""

    def __init__(self, dsn: str, trust_account: str = "") -> None:
        self._dsn = dsn
        self._trust = trust_account
        given = conninfo_to_dict(dsn).get("service") or os.environ.get("PGSERVICE")
        self._by_service = bool(given)
        """libpq reads a service file at each connection: so is it read here, at each check."""
        self._guards = self._judged()

    def _judged(self) -> list[ServerGuard | SocketGuard]:
        guards: list[ServerGuard | SocketGuard] = [
            ServerGuard("postgres", f"postgresql://{_shown(host)}:{port}", port, self._trust)
            for host, port in tcp_addresses(self._dsn)
        ]
        return guards + [SocketGuard(path, self._trust) for path in socket_files(self._dsn)]

    def check(self) -> None:
        """``StoreError`` with one line naming the address or socket, the account and the fix
        when another person's account holds one of them (nothing is sent to any)."""
        if self._by_service:
            self._guards = self._judged()
        for guard in self._guards:
            guard.check(StoreError)

    def forget(self) -> None:
        """A connection failed: look each address up afresh next time."""
        for guard in self._guards:
            guard.forget()


def _shown(host: str) -> str:
    return f"[{host}]" if ":" in host else host
