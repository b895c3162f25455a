"""Threads: work done after a reply is returned (use counts, memory extraction), waited for
before the process exits; and calls made against a deadline, which are not."""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, TypeVar

T = TypeVar("T")


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


class DeadlinePool:
    """Runs calls on daemon threads. A caller waits on the future with a deadline; a call that
    hangs past it (an embedder that never answers) is abandoned, and, unlike a
    ThreadPoolExecutor's workers, it does not keep the process from exiting. Idle threads are
    reused, so a retrieval does not pay for starting threads."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._work: queue.SimpleQueue[tuple[Future[Any], Callable[[], Any]] | None] = (
            queue.SimpleQueue()
        )
        self._idle = 0
        self._lock = threading.Lock()
        self._closed = False

    def submit(self, fn: Callable[..., T], *args: Any) -> Future[T]:
        future: Future[T] = Future()
        with self._lock:
            if self._closed:
                raise RuntimeError("the pool is closed")
            if self._idle:
                self._idle -= 1
            else:
                threading.Thread(target=self._worker, name=self._name, daemon=True).start()
        self._work.put((future, lambda: fn(*args)))
        return future

    def _worker(self) -> None:
        while (item := self._work.get()) is not None:
            future, call = item
            if future.set_running_or_notify_cancel():
                try:
                    future.set_result(call())
                except BaseException as exc:  # handed to the waiting caller
                    future.set_exception(exc)
            with self._lock:
                if self._closed:
                    return
                self._idle += 1

    def close(self) -> None:
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, 0
        for _ in range(idle):
            self._work.put(None)


def wait_until(future: Future[T], deadline: float) -> T:
    return future.result(timeout=max(0.0, deadline - time.monotonic()))
