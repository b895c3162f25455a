"""Serving the review page: bind the port, hand the login secret to the owner's browser, run
until interrupted.

The secret reaches the browser through a file only the owner can read (0600, in aria-mem's
0700 data folder) that sends the browser on to the login address: the browser is started with
the file's path, so the secret is never on a command line that other accounts can read in
``ps``. The file is removed when the page stops.

Importing this module imports every library the page needs, so that ``aria-mem ui`` can say
which one is missing before it starts.
"""

from __future__ import annotations

import contextlib
import html
import os
import socket
import webbrowser
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import python_multipart  # noqa: F401  (starlette reads the page's forms with it)
import uvicorn

from aria_mem import http_limits as limits
from aria_mem import mcp_guard
from aria_mem.api import AriaMem
from aria_mem.private import private_dir, write_private
from aria_mem.web.app import create_app
from aria_mem.web.guard import LOGIN_PATH, Sessions, host_names

OPEN_FILE = "ui-open-{pid}.html"
"""One per running page, so two pages never share or remove each other's."""


@dataclass(frozen=True)
class Bound:
    """A listening socket and what the owner needs to reach the page through it."""

    sock: socket.socket
    host: str
    port: int
    sessions: Sessions

    @property
    def origin(self) -> str:
        shown = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{shown}:{self.port}"

    @property
    def url(self) -> str:
        """The page's address: every address outside the prefix answers 404."""
        return f"{self.origin}{self.sessions.prefix}/"

    @property
    def login_url(self) -> str:
        """The secret, and the path prefix every address of the page begins with."""
        return f"{self.origin}{self.sessions.prefix}{LOGIN_PATH}?token={self.sessions.secret}"


def bind(host: str, port: int) -> Bound:
    """Listen on host:port (0: a free port), or a UsageError saying what is in the way."""
    if host == "localhost":
        host = "127.0.0.1"
    sock = mcp_guard.listen(host, port)
    return Bound(sock, host, sock.getsockname()[1], Sessions())


def write_open_file(folder: Path, bound: Bound) -> Path:
    """A page only the owner can read that sends the browser to the login address."""
    private_dir(folder, what="data folder")
    target = html.escape(bound.login_url, quote=True)
    page = (
        "<!doctype html><meta charset=utf-8><meta name=referrer content=no-referrer>"
        f'<meta http-equiv="refresh" content="0;url={target}">'
        f'<title>aria-mem</title><p><a href="{target}">Open aria-mem</a></p>\n'
    )
    path = folder / OPEN_FILE.format(pid=os.getpid())
    write_private(path, page)
    return path


def open_browser(path: Path) -> bool:
    """Start the person's browser on the open file; False when there is none to start."""
    try:
        return webbrowser.open(path.as_uri())
    except webbrowser.Error:
        return False


def run(
    memory: AriaMem,
    bound: Bound,
    *,
    user: str,
    companion: str,
    on_ready: Callable[[], None] = lambda: None,
    head_seconds: float = limits.HEAD_SECONDS,
) -> None:
    """Serve the page until interrupted (Ctrl-C, SIGTERM); a request must arrive whole
    within ``head_seconds`` (``limits``)."""
    app = create_app(
        memory,
        user=user,
        companion=companion,
        sessions=bound.sessions,
        hosts=host_names(bound.host, bound.port),
        port=bound.port,
    )
    server = uvicorn.Server(
        uvicorn.Config(
            app,
            log_level="warning",
            lifespan="off",
            ws="none",
            server_header=False,
            proxy_headers=False,
            http=limits.guarded_protocol(head_seconds),
            limit_concurrency=limits.CONCURRENCY,
            timeout_keep_alive=5,
            h11_max_incomplete_event_size=16 * 1024,
        )
    )
    on_ready()
    with contextlib.closing(bound.sock):
        server.run(sockets=[bound.sock])
