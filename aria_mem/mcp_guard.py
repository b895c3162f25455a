"""What keeps the MCP server to its owner: the bearer token HTTP clients must show, the ASGI
gate that asks for it, and the rule that the ``learn`` tool reads web pages only.

Loopback is not private: every account on the machine can connect to 127.0.0.1. The SDK's
Host/Origin checks stop a web page (DNS rebinding), not a second local account speaking plain
JSON-RPC, so the streamable-HTTP server wants ``Authorization: Bearer <token>`` on every
request. The token is made on first use (``secrets.token_urlsafe(32)``) and kept in
``mcp-token`` in aria-mem's own config folder (``$ARIA_MEM_HOME``, else the platform's, e.g.
``~/.config/aria-mem``), whatever ``--config`` says, so the daemon and the person's shell find
the same one. The file is the owner's alone (0600 in a 0700 folder); one that is a symbolic
link or belongs to another account is refused, since whoever controls it would know the
token. A running server reads it once, at start: rotating it means restarting the servers.
stdio needs none of this (the client starts the server as the person).

The OpenAI-compatible endpoint (`aria-mem serve`) keeps its key by the same rules, in a file of
its own (``KeyRules``), and guards with the same gate.

It does not import the MCP SDK.
"""

from __future__ import annotations

import contextlib
import hmac
import ipaddress
import json
import os
import secrets
import socket
import stat
import threading
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import platformdirs

from aria_mem import config
from aria_mem.domain.addresses import split_address
from aria_mem.errors import ConfigError, UsageError
from aria_mem.private import (
    FILE_MODE,
    NotARegularFileError,
    open_regular,
    private_dir,
    write_private,
)

TOKEN_FILE = "mcp-token"
_TOKEN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
_MIN_TOKEN, _MAX_TOKEN = 32, 512
_ROTATE = "aria-mem mcp --rotate-token"

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


@dataclass(frozen=True)
class KeyRules:
    """A bearer secret kept as the MCP token is: its file name in aria-mem's config folder,
    what messages call it, and the command that replaces it."""

    file: str
    what: str
    rotate: str

    def path(self) -> Path:
        """Where it lives: aria-mem's own config folder (the one ``save_keys`` treats as
        ours), not the folder of a ``--config`` file that may be shared."""
        home = config.home_dir()
        folder = home if home is not None else Path(platformdirs.user_config_dir(config.APP_NAME))
        return folder / self.file


MCP_KEY = KeyRules(TOKEN_FILE, "MCP token", _ROTATE)


def token_path() -> Path:
    """Where the MCP token lives."""
    return MCP_KEY.path()


def load_token(path: Path | None = None, *, key: KeyRules | None = None) -> str:
    """The token, made and stored on first use (``key``: the rules and words of another
    secret kept the same way, e.g. the OpenAI-compatible endpoint's key)."""
    path = path or token_path()
    key = key or MCP_KEY
    found = _read(path, key)
    if found is not None:
        return found
    _folder(path)
    fresh = path.with_name(f".{path.name}.{os.getpid()}.new")
    try:
        write_private(fresh, secrets.token_urlsafe(32) + "\n")
        # link() never replaces: if another process made one meanwhile, both use theirs.
        with contextlib.suppress(FileExistsError):
            os.link(fresh, path)
    except OSError as exc:
        raise ConfigError(f"Cannot create the {key.what} {path}: {exc.strerror or exc}") from exc
    finally:
        with contextlib.suppress(OSError):
            fresh.unlink()
    made = _read(path, key)
    if made is None:
        raise ConfigError(f"The {key.what} {path} vanished as it was made — run {key.rotate}")
    return made


def rotate_token(path: Path | None = None, *, key: KeyRules | None = None) -> Path:
    """Replace the token with a new one (also replacing a link or a file that is not ours:
    the rename swaps the name in our own folder, never writes through it); returns where."""
    path = path or token_path()
    _folder(path)
    try:
        write_private(path, secrets.token_urlsafe(32) + "\n")
    except OSError as exc:
        what = (key or MCP_KEY).what
        raise ConfigError(f"Cannot write the {what} {path}: {exc.strerror or exc}") from exc
    return path


def _folder(path: Path) -> None:
    private_dir(path.parent, what="config folder")


def _read(path: Path, key: KeyRules) -> str | None:
    """The stored token; None if there is none. Refuses a link, a non-file, a file of another
    account, one others could read (a token that may be known) or one that holds no token."""
    try:
        handle = open_regular(path, follow_links=False)
    except FileNotFoundError:
        return None
    except NotARegularFileError as exc:
        raise ConfigError(f"The {key.what} {path} is not a file — run {key.rotate}") from exc
    except OSError as exc:
        if path.is_symlink():
            raise ConfigError(
                f"The {key.what} {path} is a symbolic link; aria-mem keeps it in a file of its "
                f"own — run {key.rotate} to replace it"
            ) from exc
        raise ConfigError(f"Cannot read the {key.what} {path}: {exc.strerror or exc}") from exc
    with handle:
        fd = handle.fileno()
        info = os.fstat(fd)
        if info.st_uid != os.geteuid():
            raise ConfigError(
                f"The {key.what} {path} belongs to another account, who would know it — "
                f"run {key.rotate} to replace it"
            )
        mode = stat.S_IMODE(info.st_mode)
        if mode & 0o077:
            os.fchmod(fd, FILE_MODE)
            raise ConfigError(
                f"The {key.what} {path} was open to other accounts (mode {mode:o}), so it may "
                f"be known; it is now 0600 — run {key.rotate} to make a new one"
            )
        if mode != FILE_MODE:
            os.fchmod(fd, FILE_MODE)
        raw = handle.read(_MAX_TOKEN + 2)
    token = raw.decode("ascii", "replace").strip()
    if not _MIN_TOKEN <= len(token) <= _MAX_TOKEN or not set(token) <= _TOKEN_CHARS:
        raise ConfigError(f"The {key.what} {path} does not hold a token — run {key.rotate}")
    return token


class BearerGate:
    """Pure ASGI middleware: an HTTP request without ``Authorization: Bearer <token>`` (or
    with a wrong one) gets 401 and never reaches the app; the app's own checks (the SDK's
    Host/Origin protections) still run for the requests that pass. Lifespan events pass
    through, so the SDK's session manager starts and stops as before."""

    def __init__(self, app: ASGIApp, token: str, refusal: bytes | None = None) -> None:
        """``refusal``: the JSON body of a 401, in the shape the app's clients read (MCP's
        by default)."""
        self._app = app
        self._expected = f"Bearer {token}".encode("ascii")
        self._refusal = refusal or _REFUSAL

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket") or self._allowed(scope):
            await self._app(scope, receive, send)
        elif scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})
        else:
            await _refuse(send, self._refusal)

    def _allowed(self, scope: Scope) -> bool:
        given = [v for k, v in scope.get("headers", ()) if k.lower() == b"authorization"]
        if len(given) != 1:
            return False
        scheme, _, token = bytes(given[0]).strip().partition(b" ")
        presented = b"Bearer " + token.strip()
        return scheme.lower() == b"bearer" and hmac.compare_digest(presented, self._expected)


_REFUSAL = json.dumps(
    {
        "error": "unauthorized",
        "message": "aria-mem's MCP server wants Authorization: Bearer <token> — "
        "`aria-mem mcp --print-config` prints a client entry with it",
    }
).encode()


async def _refuse(send: Send, body: bytes) -> None:
    await respond(
        send, 401, "application/json", body, (b"www-authenticate", b'Bearer realm="aria-mem"')
    )


async def respond(
    send: Send, status: int, content_type: str, body: bytes, *headers: tuple[bytes, bytes]
) -> None:
    """A whole response from a guard, before (or instead of) the app it guards."""
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", content_type.encode("latin-1")),
                (b"content-length", str(len(body)).encode()),
                *headers,
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def serve_gated(
    gate: BearerGate,
    address: tuple[str, int],
    *,
    log_level: str,
    listening: threading.Event | None = None,
) -> None:
    """Serve ``gate`` over HTTP until the process is stopped. ``listening`` is set once the
    port is bound: where the port's owner cannot be read (no /proc/net), only the server can
    tell the daemon that it holds the port."""
    import anyio
    import uvicorn

    from aria_mem.http_limits import CONCURRENCY, guarded_protocol

    class Server(uvicorn.Server):
        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            await super().startup(sockets)
            if self.started and listening is not None:
                listening.set()

    host, port = address
    config = uvicorn.Config(
        gate,
        host=host,
        port=port,
        log_level=log_level,
        http=guarded_protocol(),  # a request must arrive whole, soon; few wait per account
        limit_concurrency=CONCURRENCY,
    )
    anyio.run(Server(config).serve)


def web_page(location: str) -> str:
    """``location`` if it is an http(s) URL with a host, else a UsageError naming what it is
    instead. The MCP ``learn`` tool reads nothing else: its caller may be a model steered by
    text it has read, which must not make aria-mem read the person's files (the person
    learns those with ``aria-mem learn PATH``). What passes is fetched by the document
    reader, never opened as a file."""
    text = location.strip()
    shown = repr(text if len(text) <= 200 else text[:200] + "...")
    try:
        parts = split_address(text)
    except ValueError as exc:
        raise UsageError(
            f"{shown} is not a valid web address ({exc}) — learn takes an http:// or https:// URL"
        ) from None
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https"):
        if scheme == "file":
            what = "a file:// URL"
        elif scheme and "://" in text:
            what = f"a {scheme}:// address"
        else:
            what = "a local path"
        raise UsageError(
            f"learn over MCP reads web pages only (http:// or https://), and {shown} is "
            f"{what} — to learn a file, the person runs `aria-mem learn PATH` themselves"
        )
    if not parts.hostname:
        raise UsageError(f"{shown} names no host — learn takes a URL like https://example.com/page")
    return text


def client_entry(host: str, port: int, token: str) -> dict[str, object]:
    """The ``mcp.json`` entry (LM Studio, Cursor and others) for the HTTP server at
    ``host``:``port``, with the bearer header it wants."""
    shown = f"[{host}]" if ":" in host else host
    return {
        "mcpServers": {
            "aria-mem": {
                "url": f"http://{shown}:{port}/mcp",
                "headers": {"Authorization": f"Bearer {token}"},
            }
        }
    }


def parse_address(
    address: str, *, allow_remote: bool, option: str = "address", free_port: bool = False
) -> tuple[str, int]:
    """HOST:PORT for a server on a TCP port (``option``: the argument it came from, which a
    bad address's error names for the front end to spell); anything but loopback needs
    ``allow_remote``. ``free_port``: port 0 (any free one) too. localhost is 127.0.0.1, where
    the servers listen: an app told "localhost" may try ::1 first, where another account could
    listen and receive the token or key it sends."""
    host, sep, port_text = address.rpartition(":")
    host = host.strip("[]")
    lowest = 0 if free_port else 1
    if not sep or not host or not port_text.isdigit() or not lowest <= int(port_text) < 65536:
        raise UsageError(
            f"the address must be HOST:PORT, e.g. 127.0.0.1:8765; got {address!r}", option=option
        )
    if not allow_remote and not _is_loopback(host):
        raise UsageError(
            f"the address {address} would listen beyond this machine; aria-mem listens on "
            "loopback only (127.0.0.1, ::1, localhost) unless remote clients are allowed",
            option="allow_remote",
        )
    return "127.0.0.1" if host.lower() == "localhost" else host, int(port_text)


def listen(host: str, port: int) -> socket.socket:
    """A socket listening on host:port (0: a free port; localhost: 127.0.0.1) for the review
    page or the OpenAI-compatible server, not inherited by children; or a UsageError saying
    what is in the way. The backlog is long: many connections at once wait to be told apart
    (the per-account limits)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(("127.0.0.1" if host == "localhost" else host, port))
        sock.listen(256)
    except OSError as exc:
        sock.close()
        raise UsageError(
            f"Cannot listen on {host}:{port}: {exc.strerror or exc} — 127.0.0.1:0 takes any "
            "free port; give another address",
            option="address",
        ) from exc
    sock.set_inheritable(False)
    return sock


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
