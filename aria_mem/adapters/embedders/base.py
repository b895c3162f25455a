"""What every embedder shares: batching, checking what came back, learning the dimension.

An adapter implements only ``_embed_batch`` (one call to its model for a few texts).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from aria_mem.domain.instructions import prefixes
from aria_mem.errors import EmbedderError

PROBE_TEXT = "aria-mem dimension probe"


class BaseEmbedder:
    provider = "base"

    def __init__(self, model: str, *, batch_size: int = 64) -> None:
        self._model = model
        self._batch_size = batch_size
        self._dimension: int | None = None
        self._query_prefix, self._document_prefix = prefixes(model)

    @property
    def model_name(self) -> str:
        return f"{self.provider}/{self._model}"

    @property
    def model(self) -> str:
        """The model's own name, without the provider."""
        return self._model

    @property
    def batch_size(self) -> int:
        return self._batch_size

    def _embed_batch(self, texts: list[str]) -> list[list[float]]:
        raise NotImplementedError

    def embed_query(self, text: str) -> list[float]:
        """A search query, with the model's query prefix if it wants one."""
        return self._embed_all([self._query_prefix + text])[0]

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """Texts to store (memories, passages), with the model's document prefix if any."""
        if self._document_prefix:
            texts = [self._document_prefix + t for t in texts]
        return self._embed_all(texts)

    def _embed_all(self, texts: Sequence[str], *, learn: bool = True) -> list[list[float]]:
        vectors: list[list[float]] = []
        for start in range(0, len(texts), self._batch_size):
            batch = list(texts[start : start + self._batch_size])
            got = self._embed_batch(batch)
            if len(got) != len(batch):
                raise EmbedderError(
                    f"The embedding model {self.model_name} returned {len(got)} vectors for "
                    f"{len(batch)} texts"
                )
            vectors.extend(self._checked(v, learn=learn) for v in got)
        return vectors

    def _checked(self, vector: Sequence[float], *, learn: bool = True) -> list[float]:
        """``learn``: hold the vector to the size learned before, and learn its size (False:
        a probe's, which reports the size and leaves the learned one as the guard)."""
        values = list(map(float, vector))
        if not values:
            raise EmbedderError(f"The embedding model {self.model_name} returned an empty vector")
        if learn and self._dimension is not None and len(values) != self._dimension:
            raise EmbedderError(
                f"The embedding model {self.model_name} returned a {len(values)}-dimensional "
                f"vector after a {self._dimension}-dimensional one"
            )
        if not all(map(math.isfinite, values)):
            raise EmbedderError(
                f"The embedding model {self.model_name} returned a vector with "
                "NaN or infinite values"
            )
        if learn:
            self._dimension = len(values)
        return values

    def warm_up(self) -> None:
        """Nothing to do for a model server: its first answer says whether it is there."""

    def dimension(self) -> int:
        """The vector size, learned once from a test vector."""
        if self._dimension is None:
            self.embed([PROBE_TEXT])
        assert self._dimension is not None
        return self._dimension

    def probe(self) -> int:
        """The vector size, asked of the model now, as a new process would learn it: a
        long-running one (the aria-mem service answering `status`) may have learned it from a
        model its server has since replaced. The learned size is left as it is: it is the
        guard that refuses a replaced model's vectors, for the requests served meanwhile and
        after (clearing it while asking turned the guard off for them, and two probes at once
        could find it cleared by the other)."""
        return len(self._embed_all([self._document_prefix + PROBE_TEXT], learn=False)[0])
