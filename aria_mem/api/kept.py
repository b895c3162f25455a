"""The ``AriaMem`` objects the aria-mem service keeps open between requests: one per settings
(config file, data folder and every section) that a command or program ran with, so that its
PostgreSQL pool stays open beside the index and the model the service holds
(``aria_mem.operations`` borrows them for each whole operation)."""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager

from aria_mem.api.facade import AriaMem
from aria_mem.api.hooks import store_answers
from aria_mem.api.remote import settings_key
from aria_mem.config import Settings

OPEN_MEMORIES = 4
"""Settings whose ``AriaMem`` the service keeps open at once (the least recently used is
closed past this)."""
SEARCH_CHECK = 1.0
"""Seconds a program's search takes a kept ``AriaMem``'s PostgreSQL as answering since it was
last checked (a round trip each): its searches come many a second, and one that finds it gone
says so in ``degraded``. A command's operation checks it every time."""


class _Kept:
    """An ``AriaMem`` the service keeps, with how many requests are using it: one that is
    replaced (its PostgreSQL went away, or it is the least used of too many) is closed when
    the last of them is done, never under a request."""

    def __init__(self, memory: AriaMem) -> None:
        self.memory = memory
        self.users = 0
        self.retired = False
        self.checked = time.monotonic()

    def answers(self, within: float) -> bool:
        """Whether its PostgreSQL still answers (a server stopped or restarted since leaves
        its pooled connections dead; the embedded one comes back under a new password, which
        only a fresh ``AriaMem`` reads); not asked again ``within`` seconds of the last time."""
        if time.monotonic() - self.checked < within:
            return True
        self.checked = time.monotonic()
        return store_answers(self.memory)

    def retire(self) -> None:
        self.retired = True
        if self.users == 0:
            self.memory.close()


_open: OrderedDict[str, _Kept] = OrderedDict()
_open_lock = threading.Lock()


@contextmanager
def borrowed(settings: Settings, *, search: bool = False) -> Iterator[AriaMem]:
    """The kept ``AriaMem`` of ``settings`` (opened when none is) for one request; ``search``:
    a program's search (``SEARCH_CHECK``)."""
    key = settings_key(settings)
    with _open_lock:
        kept = _open.get(key)
        if kept is not None and not kept.answers(SEARCH_CHECK if search else 0.0):
            _open.pop(key).retire()  # its PostgreSQL stopped or restarted: a fresh one finds it
            kept = None
        if kept is None:
            kept = _open[key] = _Kept(AriaMem(settings))
            while len(_open) > OPEN_MEMORIES:
                _open.popitem(last=False)[1].retire()
        _open.move_to_end(key)
        kept.users += 1
    try:
        yield kept.memory
    finally:
        with _open_lock:
            kept.users -= 1
            if kept.retired and kept.users == 0:
                kept.memory.close()


def close_all() -> None:
    with _open_lock:
        while _open:
            _open.popitem()[1].retire()
