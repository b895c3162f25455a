"""Which local account holds the socket listening at an address? Any account can be first to
listen on a free port of 127.0.0.1, so a model server or an MCP port found there may be
another person's, receiving memories, prompts or a bearer token. Linux tells the owner of
every listening TCP socket in ``/proc/net/tcp`` and ``/proc/net/tcp6`` (state ``0A``, with
the uid of the account that opened it); `init`, `status` and `mcp --print-config` ask here.

The rule for a model server (``another_person``): one run by you, by root or by a system
account (uid below ``UID_MIN`` of ``/etc/login.defs``, 1000 if unset: Ollama's Linux installer
runs it as the system account ``ollama``) is the machine's; one run by any other account
(another person's, or ``nobody``) is not used unless the person says so.

An address that is not this machine's, or a system without ``/proc/net``, gets an unknown
owner, never a guessed one.
"""

from __future__ import annotations

import ipaddress
import os
import pwd
import socket
import struct
from dataclasses import dataclass
from pathlib import Path

PROC_NET = Path("/proc/net")
LOGIN_DEFS = Path("/etc/login.defs")
LISTEN = "0A"
DEFAULT_UID_MIN = 1000

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


@dataclass(frozen=True)
class Listener:
    """What holds ``address`` (``host:port``) on this machine."""

    address: str
    uid: int | None = None
    """The account whose socket listens there; None: nothing listens, or unknown (``why``)."""
    account: str = ""
    """That account's name (its uid as text when it has none)."""
    known: bool = True
    """False when the owner cannot be told: not this machine's address, or no /proc/net."""
    why: str = ""

    @property
    def listening(self) -> bool:
        return self.uid is not None

    @property
    def yours(self) -> bool:
        return self.uid == os.geteuid()

    @property
    def another_person(self) -> bool:
        """Held by an account that is neither you, nor root, nor a system account."""
        return self.uid is not None and not self.yours and self.uid != 0 and self.uid >= uid_min()

    def describe(self) -> str:
        """Who holds it, for people: "you", "root", "system account 'ollama'", "account
        'bob'", "nothing listens" or why the owner is unknown."""
        if self.uid is None:
            return self.why or "nothing listens"
        if self.yours:
            return f"you ({self.account})"
        if self.uid == 0:
            return "root"
        kind = "account" if self.uid >= uid_min() else "system account"
        return f"{kind} '{self.account}' (uid {self.uid})"


def uid_min() -> int:
    """The first uid of an ordinary account (``UID_MIN`` in /etc/login.defs)."""
    try:
        lines = LOGIN_DEFS.read_text(errors="replace").splitlines()
    except OSError:
        return DEFAULT_UID_MIN
    for line in lines:
        words = line.split()
        if len(words) > 1 and words[0] == "UID_MIN" and words[1].isdigit():
            return int(words[1])
    return DEFAULT_UID_MIN


def account_name(uid: int) -> str:
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return str(uid)


def listener(host: str, port: int) -> Listener:
    """Who listens at ``host:port``: a literal address or a name, looked up as a client
    would (every address a name has is checked; the first held by another person, else the
    first held at all, is the answer)."""
    shown = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    try:
        addresses = _resolve(host)
    except OSError as exc:
        return Listener(shown, known=False, why=f"owner unknown: {host} does not resolve ({exc})")
    if not _all_local(addresses):
        return Listener(shown, known=False, why="owner unknown: not an address of this machine")
    try:
        table = _listening()
    except OSError as exc:
        return Listener(shown, known=False, why=f"owner unknown: {exc.strerror or exc}")
    found = [
        Listener(shown, uid, account_name(uid))
        for uid in (_owner(table, address, port) for address in addresses)
        if uid is not None
    ]
    if not found:
        return Listener(shown, why="nothing listens")
    return next((f for f in found if f.another_person), found[0])


def on_this_machine(host: str) -> bool:
    """Whether every address ``host`` (a literal address or a name) has is this machine's."""
    try:
        return _all_local(_resolve(host))
    except OSError:
        return False


def _all_local(addresses: list[IPAddress]) -> bool:
    """Some addresses, every one this machine's: a client connecting there reaches a server here."""
    return bool(addresses) and all(_is_local(a) for a in addresses)


def _resolve(host: str) -> list[IPAddress]:
    name = host.strip("[]")
    try:
        return [_unmapped(ipaddress.ip_address(name))]
    except ValueError:
        pass
    infos = socket.getaddrinfo(name, None, type=socket.SOCK_STREAM)
    seen: list[IPAddress] = []
    for info in infos:
        address = _unmapped(ipaddress.ip_address(str(info[4][0]).split("%")[0]))
        if address not in seen:
            seen.append(address)
    return seen


def _unmapped(address: IPAddress) -> IPAddress:
    """An IPv4-mapped IPv6 address is the IPv4 address it carries; connecting to 0.0.0.0
    or :: reaches this machine's loopback."""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    if address.is_unspecified:
        return ipaddress.ip_address("127.0.0.1" if address.version == 4 else "::1")
    return address


def _is_local(address: IPAddress) -> bool:
    """Loopback, or an address one of this machine's interfaces has (it can be bound)."""
    if address.is_loopback:
        return True
    family = socket.AF_INET if address.version == 4 else socket.AF_INET6
    try:
        with socket.socket(family, socket.SOCK_DGRAM) as probe:
            probe.bind((str(address), 0))
    except OSError:
        return False
    return True


Table = list[tuple[IPAddress, int, int]]
"""(local address, port, uid) of every listening TCP socket."""


def _listening() -> Table:
    """Every listening TCP socket of this network namespace, IPv4 then IPv6."""
    table: Table = []
    for name in ("tcp", "tcp6"):
        path = PROC_NET / name
        if name == "tcp6" and not path.exists():
            continue  # a kernel without IPv6
        table.extend(parse_proc_net(path.read_text(errors="replace")))
    return table


def parse_proc_net(text: str) -> Table:
    """The listening sockets in the text of /proc/net/tcp or /proc/net/tcp6."""
    rows: Table = []
    for line in text.splitlines()[1:]:
        fields = line.split()
        if len(fields) < 8 or fields[3] != LISTEN:
            continue
        hex_address, _, hex_port = fields[1].partition(":")
        try:
            rows.append((_address(hex_address), int(hex_port, 16), int(fields[7])))
        except ValueError:
            continue
    return rows


def _address(hex_address: str) -> IPAddress:
    """The kernel prints each 32-bit word of the address in the machine's byte order."""
    words = [int(hex_address[i : i + 8], 16) for i in range(0, len(hex_address), 8)]
    raw = b"".join(struct.pack("=I", word) for word in words)
    if len(raw) == 4:
        return ipaddress.IPv4Address(raw)
    if len(raw) == 16:
        return ipaddress.IPv6Address(raw)
    raise ValueError(f"not an address: {hex_address}")


def _owner(table: Table, address: IPAddress, port: int) -> int | None:
    """The uid of the socket a connection to ``address:port`` reaches: one bound to that
    very address before one bound to every address, IPv4 before IPv6 (as Linux picks)."""
    if address.version == 4:
        mapped = ipaddress.IPv6Address(f"::ffff:{address}")
        order: list[IPAddress] = [
            address,
            mapped,
            ipaddress.IPv4Address("0.0.0.0"),
            ipaddress.IPv6Address("::"),
        ]
    else:
        order = [address, ipaddress.IPv6Address("::")]
    for wanted in order:
        for bound, bound_port, uid in table:
            if bound_port == port and bound == wanted:
                return uid
    return None
