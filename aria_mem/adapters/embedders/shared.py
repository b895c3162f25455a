"""The in-process model, loaded once per machine rather than once per command.

Loading sentence-transformers and its model takes seconds and hundreds of MB, far more than a
command's own work. The process that owns the embedded index (the daemon, or the first
aria-mem process) already serves index calls to the others over a private socket; it embeds
for them too. This embedder asks the owner first and runs the model itself only when it is the
owner, when the owner has another model, or when the owner cannot be reached.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from aria_mem.adapters.embedders.base import BaseEmbedder
from aria_mem.adapters.index_sharing import MAX_TEXTS_PER_CALL, SharedEdgeIndex
from aria_mem.errors import VectorIndexError

if TYPE_CHECKING:
    from aria_mem.adapters.embedders.local_model import SentenceTransformerEmbedder

log = logging.getLogger(__name__)


class SharedModelEmbedder(BaseEmbedder):
    provider = "sentence-transformers"

    def __init__(
        self, local: SentenceTransformerEmbedder, owner: Callable[[], SharedEdgeIndex]
    ) -> None:
        """``owner`` opens (or joins) the shared index only when the first text is embedded."""
        super().__init__(local.model, batch_size=min(local.batch_size, MAX_TEXTS_PER_CALL))
        self._local = local
        self._owner = owner
        self.served_by_owner = 0
        """Batches another process embedded for this one (for status and tests)."""

    def _embed_batch(self, texts: list[str]) -> list[list[float]]:
        try:
            vectors = self._owner().embed_through_owner(self.model_name, texts)
        except VectorIndexError as exc:
            log.debug("the index owner could not embed (%s); loading the model here", exc)
            vectors = None
        if vectors is None:
            return self._local.encode(texts)
        self.served_by_owner += 1
        return vectors

    def warm_up(self) -> None:
        """Get the model ready where it will run: here when this process owns the index,
        else in the owner (one test vector; instant when the owner already has it)."""
        self.dimension()
