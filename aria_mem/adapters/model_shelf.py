"""The in-process embedding models the aria-mem service runs for its clients (see
``service.server``): which names it accepts, and which models it keeps loaded."""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from aria_mem.errors import EmbedderError

log = logging.getLogger(__name__)

MODELS_KEPT = 2
"""In-process models kept loaded at once (the configured one, and another a client still
uses during a model switch); the least recently used goes first."""


class LocalModel(Protocol):
    """An embedding model loaded in this process."""

    @property
    def model_name(self) -> str: ...

    def encode(self, texts: list[str]) -> list[list[float]]:
        """Vectors for texts exactly as given (any query or document prefix already added)."""
        ...


def load_local_model(name: str) -> LocalModel:
    """The models the service may run: the bundled one, or a model folder by its absolute
    path (clients send a relative one made absolute). Any other name is refused before
    anything is imported or loaded."""
    from aria_mem.adapters.embedders.local_model import BUNDLED, SentenceTransformerEmbedder

    if name != BUNDLED and not (Path(name).is_absolute() and Path(name).is_dir()):
        raise EmbedderError(
            f"The aria-mem service runs the bundled {BUNDLED} or a sentence-transformers model "
            f"folder given by its path, and {name!r} is neither — set [embedder] model to one "
            "of those"
        )
    return SentenceTransformerEmbedder(name)


class ModelShelf:
    """The in-process models the service runs, loaded on first use by name. A model is kept
    (and named by ``hello``, so by `status`) only once it has made vectors: a name that does
    not load is refused every time and never listed."""

    def __init__(self, load: Callable[[str], LocalModel] = load_local_model) -> None:
        self._load = load
        self._models: OrderedDict[str, LocalModel] = OrderedDict()
        self._trying: dict[str, LocalModel] = {}
        """Models asked for but not yet proven (their first vectors are being made): clients
        asking for the same one meanwhile share it instead of loading it again."""
        self._lock = threading.Lock()

    def encode(self, name: str, texts: list[str]) -> list[list[float]]:
        with self._lock:
            model = self._models.get(name)
            if model is not None:
                self._models.move_to_end(name)
            else:
                model = self._trying.get(name)
                if model is None:
                    model = self._trying[name] = self._load(name)
        try:
            vectors = model.encode(texts)
        except BaseException:
            with self._lock:
                if self._trying.get(name) is model:
                    del self._trying[name]
            raise
        with self._lock:
            if self._trying.get(name) is model:
                del self._trying[name]
                self._models[name] = model
                while len(self._models) > MODELS_KEPT:
                    dropped, _ = self._models.popitem(last=False)
                    log.info("unloaded model %s (kept the %d last used)", dropped, MODELS_KEPT)
        return vectors

    def names(self) -> list[str]:
        with self._lock:
            return list(self._models)
