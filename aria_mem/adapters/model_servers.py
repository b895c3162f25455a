"""Who runs the server an adapter is about to send text or vectors to: a model server, a
Qdrant server holding the index, or a PostgreSQL server (``postgres.server_owner``).

Any account can be first to listen on a free port of 127.0.0.1: should the person's Ollama
stop, another person's program on 127.0.0.1:11434 would receive every memory embedded and
every prompt; should their Qdrant stop, one on 127.0.0.1:6333 would receive every memory's
vector, ids and owner, and the index's API key. So each embedding, chat and index adapter asks
here before each request, and sends nothing (not even a probe) to a server on this machine
that another person's account holds (``Listener.another_person``) unless ``trust_account``
names that account. An address of another machine, or an owner that cannot be told (no
/proc/net), is not refused: there is no account to judge.

Reading /proc/net/tcp is slow next to a request (measured on a busy 2-core machine: an embed
from a local fake Ollama took 1.3 ms with the answer kept, 73 ms looking it up each time), so
the holder of an address is kept for ``CACHE_SECONDS``; a request that could not connect
forgets it (the server went away: whoever listens next is looked up).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable

from aria_mem.domain.addresses import split_address
from aria_mem.listeners import Listener, listener, on_this_machine

CACHE_SECONDS = 3.0
QDRANT_PORT = 6333
"""Where qdrant-client connects when the URL names no port, with a scheme or not (so a
Qdrant server's address is read with ``scheme_port=False``)."""

_cache: dict[tuple[str, int], tuple[float, Listener]] = {}
_lock = threading.Lock()


def server_address(text: str, usual_port: int, *, scheme_port: bool = True) -> tuple[str, str, int]:
    """Where a client connects for ``text`` (``host:port`` or a URL): a URL to show, the host
    name and the port (a missing port is ``usual_port``, or 80/443 for an address given with
    a scheme, as the ollama client reads it; with ``scheme_port`` False, ``usual_port``
    always, as qdrant-client reads it). ValueError says what is wrong with ``text``."""
    text = text.strip().rstrip("/")
    parts = split_address(text if "://" in text else f"http://{text}")
    secure = parts.scheme in ("https", "wss")
    by_scheme = "://" in text and scheme_port
    port = parts.port or ((443 if secure else 80) if by_scheme else usual_port)
    hostname = parts.hostname or "127.0.0.1"
    shown = f"[{hostname}]" if ":" in hostname else hostname
    return f"{parts.scheme}://{shown}:{port}", hostname, port


def refuses(holder: Listener, trust_account: str) -> bool:
    """A server run by another person's account is used only when ``trust_account`` names
    that account (by name or uid)."""
    return holder.another_person and trust_account not in (holder.account, str(holder.uid))


def holder_of(hostname: str, port: int) -> Listener:
    """Who listens at ``hostname:port``, as seen at most ``CACHE_SECONDS`` ago (an address
    of this machine where nothing listens is looked up again each time: the next to listen
    may be anyone)."""
    key = (hostname, port)
    now = time.monotonic()
    with _lock:
        seen = _cache.get(key)
    if seen is not None and now - seen[0] < CACHE_SECONDS:
        return seen[1]
    found = listener(hostname, port)
    with _lock:
        if found.listening or not found.known:
            _cache[key] = (now, found)
        else:
            _cache.pop(key, None)
    return found


_AT_STAKE = {
    "embedder": "your memories' text",
    "chat": "your prompts and memories",
    "index": "your memories' vectors and whose they are, and the index's API key",
    "postgres": "the password of [postgres] dsn and every memory",
}
"""What a server in each role would receive, for the refusal to say."""


def refusal(where: str, holder: Listener, role: str) -> str:
    """One line: who holds the server at ``where`` (a URL, a socket's path), what it would
    receive, and the fix."""
    what = _AT_STAKE.get(role, "your prompts and memories")
    return (
        f"{where} is served by {holder.describe()}, not you — nothing sent (it would receive "
        f"{what}); stop it and start your own server, or set [{role}] trust_account = "
        f"'{holder.account}' if you trust that account"
    )


class ServerGuard:
    """The check one adapter makes before each request to its server at ``host``."""

    def __init__(
        self,
        role: str,
        host: str,
        usual_port: int,
        trust_account: str = "",
        *,
        scheme_port: bool = True,
    ) -> None:
        """``role`` is the config section: embedder, chat, index or postgres; ``scheme_port``
        as ``server_address`` has it."""
        self._role = role
        self._trust = trust_account.strip()
        try:
            self.url, self._hostname, self._port = server_address(
                host, usual_port, scheme_port=scheme_port
            )
        except ValueError:
            self.url, self._hostname, self._port = host, "", 0  # the client will say so

    def check(self, error: Callable[[str], Exception]) -> None:
        """Raise ``error`` (the adapter's own error type) with one line naming the address,
        the account and the fix when another person's account holds the server."""
        if not self._hostname:
            return
        holder = holder_of(self._hostname, self._port)
        if refuses(holder, self._trust):
            raise error(refusal(self.url, holder, self._role))

    def forget(self) -> None:
        """The server could not be reached: look its address up afresh next time."""
        with _lock:
            _cache.pop((self._hostname, self._port), None)

    @property
    def direct(self) -> bool:
        """Whether the server is on this machine, so that no proxy the environment names
        (HTTP_PROXY, ALL_PROXY, ...) may stand between: it would receive everything ``check``
        lets through only to the person's own server, and may be another account's program or
        another machine. A client for it is made with ``trust_env=False``."""
        return bool(self._hostname) and on_this_machine(self._hostname)

    def keep_off_proxies(self) -> None:
        """For a library that makes its own HTTP clients (LM Studio's SDK): a server on this
        machine is added to this process's NO_PROXY, which those clients read."""
        if not self.direct:
            return
        entries: list[str] = []
        for name in ("no_proxy", "NO_PROXY"):  # both, as one list: the lower case is read first
            for entry in os.environ.get(name, "").split(","):
                if entry.strip() and entry.strip() not in entries:
                    entries.append(entry.strip())
        shown = f"[{self._hostname}]" if ":" in self._hostname else self._hostname
        if shown not in entries and self._hostname not in entries:
            entries.append(self._hostname)
        for name in ("no_proxy", "NO_PROXY"):
            if os.environ.get(name) != ",".join(entries):
                os.environ[name] = ",".join(entries)
