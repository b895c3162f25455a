"""The in-process model, run by the aria-mem service for every aria-mem process.

Loading sentence-transformers and its model takes seconds and hundreds of MB, far more than a
command's own work; so only the service loads it (once, kept loaded) and every other process
asks it for vectors over the service's private socket. See ``adapters.service``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

from aria_mem.adapters.embedders.base import BaseEmbedder
from aria_mem.adapters.embedders.local_model import BUNDLED
from aria_mem.adapters.service.client import ServiceClient
from aria_mem.adapters.service.protocol import (
    MAX_EMBED_CHARS,
    MAX_TEXT_CHARS,
    MAX_TEXTS_PER_CALL,
    unpack_vector,
)
from aria_mem.errors import EmbedderError, VectorIndexError


def _as_the_service_finds_it(model: str) -> str:
    """A model path relative to this command's folder, made absolute: the service runs in
    another folder. The bundled name and absolute paths are sent as they are."""
    if model == BUNDLED or Path(model).is_absolute():
        return model
    path = Path(model).expanduser()
    return str(path.resolve()) if path.exists() else model


def _within_bounds(texts: list[str]) -> Iterator[list[str]]:
    """The texts in runs the service takes, each cut to its bound per text (no model reads
    that far: MiniLM reads about 1,000 characters)."""
    run: list[str] = []
    size = 0
    for text in (t[:MAX_TEXT_CHARS] for t in texts):
        if run and size + len(text) > MAX_EMBED_CHARS:
            yield run
            run, size = [], 0
        run.append(text)
        size += len(text)
    if run:
        yield run


class SharedModelEmbedder(BaseEmbedder):
    provider = "sentence-transformers"

    def __init__(
        self, model: str, service: Callable[[], ServiceClient], *, batch_size: int = 64
    ) -> None:
        """``service`` reaches (or starts) the service only when the first text is embedded."""
        super().__init__(model, batch_size=min(batch_size, MAX_TEXTS_PER_CALL))
        self._service = service
        self._wire_name = _as_the_service_finds_it(model)

    def _embed_batch(self, texts: list[str]) -> list[list[float]]:
        return [vector for run in _within_bounds(texts) for vector in self._embed_run(run)]

    def _embed_run(self, texts: list[str]) -> list[list[float]]:
        try:
            result = self._service().call({"op": "embed", "model": self._wire_name, "texts": texts})
        except EmbedderError:
            raise
        except VectorIndexError as exc:
            raise EmbedderError(f"The aria-mem service could not embed: {exc}") from exc
        return [unpack_vector(v) for v in result]

    def warm_up(self) -> None:
        """Have the service load the model now (one test vector; instant once loaded)."""
        self.dimension()
