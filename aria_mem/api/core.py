"""The base of the public API: settings, the adapters it opened (or was given), the services
built on them, and the user and companion every call is scoped to."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, Self, TypeVar

from aria_mem import config
from aria_mem.config import Settings
from aria_mem.domain import validation
from aria_mem.domain.fusion import CandidateSource
from aria_mem.ports import ChatModel, DocumentReader, Embedder, Store, VectorIndex
from aria_mem.services.indexer import Indexer
from aria_mem.services.writer import MemoryWriter
from aria_mem.wiring import Adapters

if TYPE_CHECKING:
    from aria_mem.services.retriever import Retriever

T = TypeVar("T")


class Core:
    """Opens nothing until a call needs it: a call that needs only PostgreSQL never opens the
    index or loads a model. Thread-safe: adapters and services are built once, under a lock;
    the adapters themselves (a connection pool, the index, the model clients) are shared."""

    def __init__(
        self,
        settings: Settings,
        *,
        store: Store | None = None,
        index: VectorIndex | None = None,
        embedder: Embedder | None = None,
        chat_model: ChatModel | None = None,
        reader: DocumentReader | None = None,
    ) -> None:
        """Adapters given here are used as they are (tests hand in real local ones, e.g. an
        in-memory store); the rest are built from ``settings`` when first needed. Closing
        closes what was opened here, not what was given."""
        self.settings = settings
        self._adapters = Adapters(settings)
        self._given: dict[str, Any] = {
            name: adapter
            for name, adapter in (
                ("store", store),
                ("index", index),
                ("embedder", embedder),
                ("chat_model", chat_model),
                ("reader", reader),
            )
            if adapter is not None
        }
        self._services: dict[str, Any] = {}
        self._lock = threading.RLock()

    @classmethod
    def open(cls, config_path: str | Path | None = None, **sections: dict[str, Any]) -> Self:
        """From the config file (``config_path``, else $ARIA_MEM_CONFIG, else the default)
        and the environment; ``sections`` override keys, e.g. ``identity={"user": "sam"}``."""
        settings = config.load(Path(config_path) if config_path is not None else None)
        if sections:
            settings = config.with_overrides(settings, **sections)
        return cls(settings)

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Wait for work in the background, then close what this object opened."""
        with self._lock:
            retriever = self._services.pop("retriever", None)
            if retriever is not None:
                retriever.close()
            self._services.clear()
            self._adapters.close()

    # -- adapters -------------------------------------------------------------------------

    def _adapter(self, name: str) -> Any:
        given = self._given.get(name)
        return given if given is not None else getattr(self._adapters, name)

    @property
    def _store(self) -> Store:
        store: Store = self._adapter("store")
        return store

    @property
    def _index(self) -> VectorIndex:
        index: VectorIndex = self._adapter("index")
        return index

    @property
    def _embedder(self) -> Embedder:
        embedder: Embedder = self._adapter("embedder")
        return embedder

    @property
    def _chat_model(self) -> ChatModel:
        model: ChatModel = self._adapter("chat_model")
        return model

    @property
    def _reader(self) -> DocumentReader:
        reader: DocumentReader = self._adapter("reader")
        return reader

    # -- services -------------------------------------------------------------------------

    def _service(self, name: str, build: Callable[[], T]) -> T:
        with self._lock:
            if name not in self._services:
                self._services[name] = build()
            found: T = self._services[name]
            return found

    @property
    def _indexer(self) -> Indexer:
        return self._service(
            "indexer", lambda: Indexer(self._store.queue, self._index, self._embedder)
        )

    @property
    def _writer(self) -> MemoryWriter:
        return self._service(
            "writer",
            lambda: MemoryWriter(self._store.memories, self._store.relationships, self._indexer),
        )

    @property
    def _retriever(self) -> Retriever:
        from aria_mem.services.retriever import Retriever

        r = self.settings.retrieval
        return self._service(
            "retriever",
            lambda: Retriever(
                self._store.reads,
                self._index,
                self._embedder,
                min_similarity=r.min_similarity,
                timeout=r.timeout,
                candidates=CandidateSource(r.candidates),
            ),
        )

    # -- scope ----------------------------------------------------------------------------

    def _scope(self, user: str | None, companion: str | None) -> tuple[str, str]:
        """The user and companion a call works on: the arguments, else the config's identity.
        An empty argument is an error, not a fallback."""
        identity = self.settings.identity
        return (
            validation.identifier("user", identity.user if user is None else user),
            validation.identifier(
                "companion", identity.companion if companion is None else companion
            ),
        )
