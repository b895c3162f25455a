"""Following a switch of embedding model that another process made.

`aria-mem reindex --model` writes the new model to the config file and records it in
PostgreSQL (a re-index run). A process that opened before it (a chat or companion app holding
``AriaMem.open()`` for hours) would otherwise go on embedding with the old model: its new
memories indexed under a model nobody searches any more, its searches finding only them. So
it looks at the latest run recorded before work that embeds (at most once a second) and after
every write of vectors (``services.indexer``). A run started after the process opened, of
another model than its own, is a switch: the process takes that model (its other embedder
settings kept) and builds its embedder and services again. A process handed an embedder of
its own cannot follow: its searches are degraded and its writes left pending (for the daemon
or `aria-mem sync`) with the reason, "the embedding model changed to X; reopen", until it is
reopened with one of the new model.

A run started after the process was created (by PostgreSQL's clock against this machine's:
on one machine, or clocks in step) or after its first look at PostgreSQL is a switch, even if
the process first reached PostgreSQL long after it was opened with the old settings. A run
recorded before both is not: the process was configured after it (a config edited by hand is
for `status` to report).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime

from aria_mem.errors import EmbedderError
from aria_mem.ports import ModelSwitch

CHECK_EVERY_S = 1.0
"""Before work that embeds, the latest run is read at most this often (one small query). The
look after a write is not throttled: it is what keeps a write from being lost to a switch."""


BACK_OFF_S = 30.0
"""After PostgreSQL failed to answer the look, the next one waits this long."""


class Following:
    """What a process knows of the switches: the latest run when it opened, and when it last
    looked."""

    def __init__(self, latest: Callable[[], ModelSwitch | None]) -> None:
        self._latest = latest
        self._lock = threading.Lock()
        self._created = datetime.now(UTC)
        self._opened: int | None = None
        self._looked = float("-inf")

    def due(self) -> bool:
        """Time for the throttled look before work that embeds?"""
        now = time.monotonic()
        with self._lock:
            if now - self._looked < CHECK_EVERY_S:
                return False
            self._looked = now
            return True

    def back_off(self) -> None:
        """PostgreSQL did not answer the look: the next look before work waits longer, so a
        turn with PostgreSQL down does not wait for it twice."""
        with self._lock:
            self._looked = time.monotonic() + BACK_OFF_S - CHECK_EVERY_S

    def switched_from(self, model: str) -> str | None:
        """The model of a switch recorded since this process opened, when it is not
        ``model``; else None. The first look also notes where the process starts from."""
        latest = self._latest()
        number = latest.number if latest is not None else 0
        with self._lock:
            if self._opened is None:
                self._opened = number
            opened = self._opened
        if latest is None or latest.model == model:
            return None
        if number > opened or latest.started_at > self._created:
            return latest.model
        return None


def cannot_follow(model: str) -> str:
    return (
        f"the embedding model changed to {model} (aria-mem reindex --model); this AriaMem was "
        "given its embedder, so it cannot follow — reopen it with an embedder of the new model"
    )


class SwitchedAway:
    """Stands in for an embedder given to a process that cannot follow a switch: every call
    fails with the reason, so searches degrade and writes stay pending, never indexed or
    compared under the old model."""

    def __init__(self, model: str) -> None:
        self._model = model

    @property
    def model_name(self) -> str:
        return self._model

    def _refuse(self) -> EmbedderError:
        return EmbedderError(cannot_follow(self._model))

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        raise self._refuse()

    def embed_query(self, text: str) -> list[float]:
        raise self._refuse()

    def dimension(self) -> int:
        raise self._refuse()

    def probe(self) -> int:
        raise self._refuse()

    def warm_up(self) -> None:
        raise self._refuse()
