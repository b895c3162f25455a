"""Serving the endpoint: its key (kept as the HTTP MCP keeps its token), the listening socket,
and uvicorn with the review page's limits on waiting connections (a request must arrive whole
within ``limits.HEAD_SECONDS``; a few waiting connections per local account)."""

from __future__ import annotations

import socket
import threading
from dataclasses import dataclass, field
from pathlib import Path

import uvicorn

from aria_mem import http_limits as waiting
from aria_mem import mcp_guard
from aria_mem.api import AriaMem
from aria_mem.mcp_guard import KeyRules, load_token, rotate_token
from aria_mem.openai_server.app import Endpoint
from aria_mem.openai_server.protocol import Limits
from aria_mem.web.guard import host_names

KEY = KeyRules("openai-key", "OpenAI endpoint key", "aria-mem serve --rotate-key")
DEFAULT_ADDRESS = "127.0.0.1:8766"


def key_path() -> Path:
    return KEY.path()


def load_key() -> str:
    """The endpoint's key, made on first use (0600, in aria-mem's config folder)."""
    return load_token(KEY.path(), key=KEY)


def rotate_key() -> Path:
    return rotate_token(KEY.path(), key=KEY)


def base_url(host: str, port: int) -> str:
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/v1"


def bind(host: str, port: int) -> socket.socket:
    """Listen on host:port (0: a free port), or a UsageError saying what is in the way."""
    return mcp_guard.listen(host, port)


@dataclass
class Server:
    """The endpoint on a bound socket: ``run()`` until stopped (Ctrl-C, SIGTERM, ``stop()``),
    then wait for the work that follows the last replies."""

    memory: AriaMem
    sock: socket.socket
    key: str
    user: str
    companion: str
    limits: Limits = field(default_factory=Limits)
    head_seconds: float = waiting.HEAD_SECONDS

    def __post_init__(self) -> None:
        self._thread: threading.Thread | None = None
        host, port = self.sock.getsockname()[:2]
        self.host, self.port = str(host), int(port)
        self.endpoint = Endpoint(
            self.memory, user=self.user, companion=self.companion, limits=self.limits
        )
        app = self.endpoint.app(self.key, host_names(self.host, self.port))
        self._uvicorn = uvicorn.Server(
            uvicorn.Config(
                app,
                log_level="warning",
                lifespan="off",
                ws="none",
                server_header=False,
                proxy_headers=False,
                http=waiting.guarded_protocol(self.head_seconds),
                limit_concurrency=waiting.CONCURRENCY,
                timeout_keep_alive=5,
                h11_max_incomplete_event_size=16 * 1024,
            )
        )

    @property
    def url(self) -> str:
        return base_url(self.host, self.port)

    def run(self) -> None:
        try:
            self._uvicorn.run(sockets=[self.sock])
        finally:
            self.endpoint.wait()
            self.sock.close()

    def start(self) -> threading.Thread:
        """Serve from a thread (a test, a daemon); returns when it listens."""
        thread = threading.Thread(target=self.run, name="aria-mem-openai", daemon=True)
        self._thread = thread
        thread.start()
        while not self._uvicorn.started and thread.is_alive():
            thread.join(0.02)
        return thread

    def stop(self) -> None:
        """Stop serving; when it serves from ``start()``'s thread, wait until it has stopped
        and the work that follows the last replies is done."""
        self._uvicorn.should_exit = True
        if self._thread is not None:
            self._thread.join()
