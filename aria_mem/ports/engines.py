"""The ports of the vector index, the embedding and chat models and the document reader."""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Sequence
from typing import Any, Protocol, runtime_checkable

from aria_mem.domain.models import (
    Hit,
    IndexPoint,
    SearchScope,
)
from aria_mem.domain.records import (
    IndexOwner,
)

# -- the index and the models ----------------------------------------------------------------


class VectorIndex(Protocol):
    """A disposable copy of the vectors, in named collections."""

    def collection_size(self, collection: str) -> int | None:
        """The vector size of a collection, or None when it does not exist."""
        ...

    def ensure_collection(self, collection: str, size: int) -> None: ...
    def drop_collection(self, collection: str) -> None: ...
    def upsert(self, collection: str, points: Sequence[IndexPoint]) -> None: ...
    def delete(self, collection: str, ids: Sequence[uuid.UUID]) -> None: ...
    def search(
        self,
        collection: str,
        vector: Sequence[float],
        scope: SearchScope,
        limit: int,
        only: Sequence[uuid.UUID] | None = None,
        *,
        with_payload: bool = True,
    ) -> list[Hit]:
        """The nearest points within ``scope`` (and among ``only``, when given: how the
        cosine of a lexical-only candidate is looked up). Retrieval asks without the payload
        (PostgreSQL has the rows): handing 30 payloads to Python cost Edge 0.3-0.4 ms a search."""
        ...

    def count(self, collection: str, model: str | None = None) -> int:
        """Points in a collection (``model``: only the vectors that model made)."""
        ...

    def ids(self, collection: str, model: str | None = None) -> list[uuid.UUID]:
        """Every point id in a collection (``model``: of the vectors that model made), for
        comparing the index with PostgreSQL memory by memory."""
        ...

    def close(self) -> None: ...


@runtime_checkable
class SharedIndex(Protocol):
    """An index one process owns and serves to the others (the embedded Qdrant Edge)."""

    def owner(self) -> IndexOwner: ...


class Embedder(Protocol):
    """A model that turns texts into vectors."""

    @property
    def model_name(self) -> str:
        """The name stored with every vector, e.g. ``ollama/mxbai-embed-large``."""
        ...

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """Texts to store: memories and knowledge passages."""
        ...

    def embed_query(self, text: str) -> list[float]:
        """A search query (models trained for retrieval embed queries differently)."""
        ...

    def dimension(self) -> int:
        """The vector size, learned from a test vector."""
        ...

    def probe(self) -> int:
        """The vector size, asked of the model now (`status`: what it learned before may be
        of a model since replaced)."""
        ...

    def warm_up(self) -> None:
        """Get ready to embed without delay (an in-process model loads; a server: nothing)."""
        ...


class ChatModel(Protocol):
    """A chat model that streams its reply."""

    @property
    def model_name(self) -> str: ...

    def stream(self, messages: Sequence[dict[str, str]]) -> Iterator[str]:
        """The reply, piece by piece. Closing the iterator stops the generation."""
        ...

    def complete(
        self, messages: Sequence[dict[str, str]], *, json_schema: dict[str, Any] | None = None
    ) -> str:
        """The whole reply at once; with ``json_schema``, JSON that follows it."""
        ...

    def context_length(self) -> int | None:
        """The context window in tokens, when the server says it."""
        ...

    def check(self) -> None:
        """Raise ChatModelError now when the model cannot answer (ChatModelMissingError when
        the server has no such model), so a chat says so before the first message."""
        ...


class DocumentReader(Protocol):
    """Reads what the companion is asked to learn: a file or a web page."""

    def read(self, location: str, *, public_only: bool = False) -> tuple[str, str, str]:
        """(source, title, text). ``public_only``: an http(s) page on public addresses only,
        every redirect hop too, fetched from the very address that was judged public (what
        a caller steered by a model asks for)."""
        ...
