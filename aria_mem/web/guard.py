"""What keeps the review page to its owner.

Loopback is shared with every account on the machine, and a browser will send a request to
127.0.0.1 from any web page it shows. So every request must come with proof that it is the
owner's browser, and every change must come from the page itself:

- A secret made when the page's server starts (``secrets.token_urlsafe(32)``) is handed to the
  owner's browser once, through a file only the owner can read (the browser opens the file,
  never a URL with the secret on its command line, which every account can read in ``ps``) or
  printed on the owner's terminal. ``GET /login?token=...`` exchanges it for a session cookie
  (HttpOnly, SameSite=Strict, path /) and sends the browser on without the secret in its
  address bar. No other request is served without the cookie.
- The Host header must name the address the server listens on (a DNS-rebinding page's host is
  refused), and a request that changes anything must come with an Origin (or, failing that, a
  Referer) of that same address and with the session's CSRF token in its form.

It is pure ASGI and does not know the pages it guards.
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import parse_qs, urlsplit

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

COOKIE = "aria_mem_session"
CSRF_FIELD = "csrf"
LOGIN_PATH = "/login"
_SAFE_METHODS = frozenset({"GET", "HEAD"})
_MAX_SESSIONS = 64


@dataclass
class Sessions:
    """The login secret of this server's life and the browser sessions it let in."""

    secret: str = field(default_factory=lambda: secrets.token_urlsafe(32))
    _csrf_by_session: dict[str, str] = field(default_factory=dict)

    def open(self, presented: str) -> str | None:
        """A new session id if ``presented`` is the login secret."""
        if not hmac.compare_digest(presented.encode(), self.secret.encode()):
            return None
        if len(self._csrf_by_session) >= _MAX_SESSIONS:
            self._csrf_by_session.pop(next(iter(self._csrf_by_session)))
        session = secrets.token_urlsafe(32)
        self._csrf_by_session[session] = secrets.token_urlsafe(32)
        return session

    def csrf(self, session: str | None) -> str | None:
        """The CSRF token of a known session."""
        if not session:
            return None
        for known, token in self._csrf_by_session.items():
            if hmac.compare_digest(known.encode(), session.encode()):
                return token
        return None


def host_names(host: str, port: int) -> frozenset[str]:
    """The Host header values a browser sends for the address the server listens on."""
    names = {f"{host}:{port}", f"[{host}]:{port}"} if ":" in host else {f"{host}:{port}"}
    if host in ("127.0.0.1", "::1", "localhost"):
        names.add(f"localhost:{port}")
    return frozenset(names)


def session_of(scope: Scope) -> str | None:
    """The session cookie a request carries, if any."""
    for name, value in scope.get("headers", ()):
        if name.lower() == b"cookie":
            jar: SimpleCookie = SimpleCookie()
            try:
                jar.load(bytes(value).decode("latin-1"))
            except Exception:
                return None
            morsel = jar.get(COOKIE)
            if morsel is not None:
                return morsel.value
    return None


def _header(scope: Scope, wanted: bytes) -> str | None:
    found = [bytes(v) for k, v in scope.get("headers", ()) if k.lower() == wanted]
    return found[0].decode("latin-1") if len(found) == 1 else None


class PageGate:
    """Pure ASGI middleware in front of the page: Host, session and, for a change, Origin.
    The CSRF token in the form is checked by the page's handlers (they read the form);
    ``scope["state"]["csrf"]`` carries the session's token to them and to the templates."""

    def __init__(self, app: ASGIApp, sessions: Sessions, hosts: frozenset[str]) -> None:
        self._app = app
        self._sessions = sessions
        self._hosts = hosts
        self._origins = frozenset(f"http://{h}" for h in hosts)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            if scope["type"] == "lifespan":
                await self._app(scope, receive, send)
            return
        host = _header(scope, b"host")
        if host not in self._hosts:
            await _refuse(send, 421, "This page answers only at its own address.")
            return
        if scope["path"] == LOGIN_PATH:
            await self._login(scope, send)
            return
        csrf = self._sessions.csrf(session_of(scope))
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

    def _same_origin(self, scope: Scope) -> bool:
        origin = _header(scope, b"origin")
        if origin is not None:
            return origin in self._origins
        referer = _header(scope, b"referer")
        if referer is None:
            return False
        parts = urlsplit(referer)
        return f"{parts.scheme}://{parts.netloc}" in self._origins

    async def _login(self, scope: Scope, send: Send) -> None:
        query = parse_qs(bytes(scope.get("query_string", b"")).decode("latin-1"))
        presented = query.get("token", [""])[0]
        session = self._sessions.open(presented) if scope["method"] == "GET" else None
        if session is None:
            await _refuse(send, 401, "That login address is not this page's.")
            return
        cookie = f"{COOKIE}={session}; HttpOnly; SameSite=Strict; Path=/"
        await send(
            {
                "type": "http.response.start",
                "status": 303,
                "headers": [
                    (b"location", b"/"),
                    (b"set-cookie", cookie.encode("latin-1")),
                    (b"cache-control", b"no-store"),
                    (b"referrer-policy", b"no-referrer"),
                    (b"content-length", b"0"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": b""})


def form_csrf_ok(scope: Scope, presented: str | None) -> bool:
    """Whether a form's CSRF field is its session's token."""
    expected = scope.get("state", {}).get("csrf")
    if not expected or not presented:
        return False
    return hmac.compare_digest(str(expected).encode(), presented.encode())


async def _refuse(send: Send, status: int, message: str) -> None:
    body = (f"<!doctype html><meta charset=utf-8><title>aria-mem</title><p>{message}</p>").encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"text/html; charset=utf-8"),
                (b"content-length", str(len(body)).encode()),
                (b"cache-control", b"no-store"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
