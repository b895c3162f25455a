"""Timing the stages of one retrieval, for its log line, `search --explain` and the benchmarks."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

from aria_mem.domain.retrieval import Timings


class Stopwatch:
    def __init__(self) -> None:
        self.started = time.perf_counter()
        self.ms: dict[str, float] = {}

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        """Time a stage; a stage timed twice (rows read in two steps) counts both."""
        start = time.perf_counter()
        try:
            yield
        finally:
            took = (time.perf_counter() - start) * 1000
            self.ms[name] = round(self.ms.get(name, 0.0) + took, 3)

    def timings(self) -> Timings:
        total = round((time.perf_counter() - self.started) * 1000, 3)
        return Timings(**self.ms, total=total)
