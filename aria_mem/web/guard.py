"""What keeps the review page to its owner.

Loopback is shared with every account on the machine, and a browser will send a request to
127.0.0.1 from any web page it shows. So every request must come with proof that it is the
owner's browser, and every change must come from the page itself:

- A secret made when the page's server starts (``secrets.token_urlsafe(32)``) is handed to the
  owner's browser once, through a file only the owner can read (the browser opens the file,
  never a URL with the secret on its command line, which every account can read in ``ps``) or
  printed on the owner's terminal. ``GET <prefix>/login?token=...`` exchanges it for a session
  cookie (HttpOnly, SameSite=Strict) and sends the browser on without the secret in its
  address bar. No other request is served without the cookie.
- Every address of the page, the login's too, lies under a path prefix made at the same
  start (``/s/`` and 128 random bits), and the cookie's Path is that prefix. A browser keeps
  cookies apart by host and path, never by port: a cookie for path / would be sent to a
  program of another account listening on another port of 127.0.0.1. Under the prefix, it is
  sent only to addresses that begin with the prefix, which such a program does not know; and a
  session cookie it did get would be worth nothing without it. Outside the prefix: 404.
- The Host header must name the address the server listens on (a DNS-rebinding page's host is
  refused), and a request that changes anything must come with an Origin (or, failing that, a
  Referer) of that same address and with the session's CSRF token in its form.

It is pure ASGI and does not know the pages it guards.
"""

from __future__ import annotations

import hmac
import ipaddress
import secrets
import time
from dataclasses import dataclass, field
from urllib.parse import parse_qs, urlsplit

from aria_mem.mcp_guard import ASGIApp, Message, Receive, Scope, Send, respond

COOKIE = "aria_mem_session"
CSRF_FIELD = "csrf"
LOGIN_PATH = "/login"
"""Under the page's prefix, as every other address of the page."""
PREFIX_BITS = 128
_SAFE_METHODS = frozenset({"GET", "HEAD"})
_MAX_SESSIONS = 64
IDLE_SECONDS = 12 * 3600
SECURITY_HEADERS = (
    (b"content-security-policy", b"default-src 'none'; style-src 'self'; img-src 'self'; "
     b"form-action 'self'; frame-ancestors 'none'; base-uri 'none'"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
    (b"x-frame-options", b"DENY"),
    (b"cache-control", b"no-store"),
)  # fmt: skip
"""On every response: no script, no framing, nothing cached, no address sent elsewhere."""


@dataclass
class Sessions:
    """The login secret of this server's life (good for one login) and the browser sessions
    it let in (forgotten after ``IDLE_SECONDS`` unused, and all of them when the page stops)."""

    secret: str = field(default_factory=lambda: secrets.token_urlsafe(32))
    prefix: str = field(default_factory=lambda: "/s/" + secrets.token_urlsafe(PREFIX_BITS // 8))
    """Where every address of the page begins, and the session cookie's Path."""
    _used: bool = False
    _sessions: dict[str, tuple[str, float]] = field(default_factory=dict)
    """session id -> (its CSRF token, when it was last used)."""

    def open(self, presented: str) -> str | None:
        """A new session id if ``presented`` is the login secret and it was not used yet."""
        if self._used or not hmac.compare_digest(presented.encode(), self.secret.encode()):
            return None
        self._used = True
        self._forget_idle()
        if len(self._sessions) >= _MAX_SESSIONS:
            self._sessions.pop(next(iter(self._sessions)))
        session = secrets.token_urlsafe(32)
        self._sessions[session] = (secrets.token_urlsafe(32), time.monotonic())
        return session

    @property
    def used(self) -> bool:
        return self._used

    def csrf(self, presented: list[str]) -> str | None:
        """The CSRF token of a known, recently used session among the ``presented`` ones
        (and that session is used now)."""
        self._forget_idle()
        for session in presented:
            for known, (token, _) in self._sessions.items():
                if session and hmac.compare_digest(known.encode(), session.encode()):
                    self._sessions[known] = (token, time.monotonic())
                    return token
        return None

    def within(self, path: str) -> str | None:
        """The page's own path of an address under the prefix ("/" for the prefix itself);
        None outside it. The prefix is compared in constant time, as a secret."""
        head, sep, rest = path[1:].partition("/")
        second, _, rest = rest.partition("/")
        found = f"/{head}{sep}{second}"
        if not hmac.compare_digest(found.encode(), self.prefix.encode()):
            return None
        return "/" + rest

    def _forget_idle(self) -> None:
        oldest = time.monotonic() - IDLE_SECONDS
        for known in [k for k, (_, seen) in self._sessions.items() if seen < oldest]:
            del self._sessions[known]


def host_names(host: str, port: int) -> frozenset[str] | None:
    """The Host header values a browser sends for the address the server listens on; None
    when it listens on every address (``--allow-remote`` on 0.0.0.0 or ::), where any name
    of this machine is right and only the port is checked."""
    if _is_unspecified(host):
        return None
    names = {f"{host}:{port}", f"[{host}]:{port}"} if ":" in host else {f"{host}:{port}"}
    if host in ("127.0.0.1", "::1", "localhost"):
        names.add(f"localhost:{port}")
    return frozenset(names)


def _is_unspecified(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_unspecified
    except ValueError:
        return False


def sessions_of(scope: Scope) -> list[str]:
    """The session cookies a request carries. Parsed by hand, pair by pair: cookies of other
    programs on 127.0.0.1 come along (browsers share them across ports), and one that a strict
    parser cannot read must not hide ours; nor may one of our name that another program set
    for path / (all of them are tried)."""
    found = []
    for name, value in scope.get("headers", ()):
        if name.lower() != b"cookie":
            continue
        for pair in bytes(value).decode("latin-1").split(";"):
            key, sep, presented = pair.strip().partition("=")
            if sep and key == COOKIE:
                found.append(presented.strip().strip('"'))
    return found[:4]


def _header(scope: Scope, wanted: bytes) -> str | None:
    found = [bytes(v) for k, v in scope.get("headers", ()) if k.lower() == wanted]
    return found[0].decode("latin-1") if len(found) == 1 else None


class PageGate:
    """Pure ASGI middleware in front of the page: Host, session and, for a change, Origin.
    The CSRF token in the form is checked by the page's handlers (they read the form);
    ``scope["state"]["csrf"]`` carries the session's token to them and to the templates."""

    def __init__(
        self, app: ASGIApp, sessions: Sessions, hosts: frozenset[str] | None, port: int
    ) -> None:
        self._app = app
        self._sessions = sessions
        self._hosts = hosts
        self._port = port

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            if scope["type"] == "lifespan":
                await self._app(scope, receive, send)
            return
        send = _with_security_headers(send)
        host = _header(scope, b"host")
        if not self._known_host(host):
            await _refuse(send, 421, "This page answers only at its own address.")
            return
        own = self._sessions.within(scope["path"])
        if own is None:
            await _refuse(send, 404, "There is nothing here.")
            return
        prefix = self._sessions.prefix
        scope = dict(scope, root_path=prefix, path=prefix + own)
        if own == LOGIN_PATH:
            await self._login(scope, send)
            return
        csrf = self._sessions.csrf(sessions_of(scope))
        if csrf is None:
            await _refuse(
                send,
                401,
                "Open the page with the address `aria-mem ui` gave you: it lets this browser in.",
            )
            return
        if scope["method"] not in _SAFE_METHODS and not self._same_origin(scope):
            await _refuse(send, 403, "A change must come from the page itself.")
            return
        scope.setdefault("state", {})["csrf"] = csrf
        await self._app(scope, receive, send)

    def _known_host(self, host: str | None) -> bool:
        if host is None:
            return False
        if self._hosts is None:
            return host.rpartition(":")[2] == str(self._port)
        return host in self._hosts

    def _same_origin(self, scope: Scope) -> bool:
        """The change comes from a page of this address: its Origin (or, from a browser that
        sends none, its Referer) names the Host the request was sent to."""
        origin = _header(scope, b"origin")
        if origin is None:
            referer = _header(scope, b"referer")
            if referer is None:
                return False
            parts = urlsplit(referer)
            origin = f"{parts.scheme}://{parts.netloc}"
        return origin == f"http://{_header(scope, b'host')}"

    async def _login(self, scope: Scope, send: Send) -> None:
        query = parse_qs(bytes(scope.get("query_string", b"")).decode("latin-1"))
        presented = query.get("token", [""])[0]
        session = self._sessions.open(presented) if scope["method"] == "GET" else None
        if session is None:
            await _refuse(
                send,
                401,
                "That login address was used already, or is not this page's: run "
                "`aria-mem ui` again to let this browser in."
                if self._sessions.used
                else "That login address is not this page's.",
            )
            return
        home = self._sessions.prefix + "/"
        cookie = f"{COOKIE}={session}; HttpOnly; SameSite=Strict; Path={self._sessions.prefix}"
        # A page that moves on by itself, not a redirect: the browser came here from a file
        # (or a typed address), and a redirect in that same navigation would not carry a
        # SameSite=Strict cookie; a navigation this page starts does.
        body = (
            f'<!doctype html><meta charset=utf-8><meta http-equiv=refresh content="0;url={home}">'
            f'<title>aria-mem</title><p><a href="{home}">Open aria-mem</a></p>'
        ).encode()
        await respond(
            send,
            200,
            "text/html; charset=utf-8",
            body,
            (b"set-cookie", cookie.encode("latin-1")),
            (b"referrer-policy", b"no-referrer"),
        )


def form_csrf_ok(scope: Scope, presented: str | None) -> bool:
    """Whether a form's CSRF field is its session's token."""
    expected = scope.get("state", {}).get("csrf")
    if not expected or not presented:
        return False
    return hmac.compare_digest(str(expected).encode(), presented.encode())


async def _refuse(send: Send, status: int, message: str) -> None:
    body = f"<!doctype html><meta charset=utf-8><title>aria-mem</title><p>{message}</p>"
    await respond(send, status, "text/html; charset=utf-8", body.encode())


def _with_security_headers(send: Send) -> Send:
    async def sending(message: Message) -> None:
        if message["type"] == "http.response.start":
            headers = list(message.get("headers", []))
            present = {bytes(name).lower() for name, _ in headers}
            headers += [(n, v) for n, v in SECURITY_HEADERS if n not in present]
            message["headers"] = headers
        await send(message)

    return sending
