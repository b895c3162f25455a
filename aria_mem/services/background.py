"""Work done after a reply is returned (use counts, memory extraction), in threads that are
waited for before the process exits."""

from __future__ import annotations

import threading
from collections.abc import Callable


class BackgroundTasks:
    def __init__(self, name: str) -> None:
        self._name = name
        self._threads: list[threading.Thread] = []
        self._lock = threading.Lock()

    def run(self, work: Callable[[], None]) -> None:
        thread = threading.Thread(target=work, name=self._name)
        thread.start()
        with self._lock:
            self._threads = [t for t in self._threads if t.is_alive()] + [thread]

    def wait(self) -> None:
        with self._lock:
            threads, self._threads = self._threads, []
        for thread in threads:
            thread.join()
