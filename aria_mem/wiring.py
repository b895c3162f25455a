"""The one place that builds real adapters from settings. Everything is built on first use,
so a command that needs only PostgreSQL never opens the index or calls the embedder."""

from __future__ import annotations

import re
from functools import cached_property

from aria_mem.config import Settings
from aria_mem.ports import ChatModel, Embedder, MemoryStore, VectorIndex
from aria_mem.private import private_dir
from aria_mem.services.indexer import Indexer
from aria_mem.services.retriever import Retriever
from aria_mem.services.writer import MemoryWriter


def redact(dsn: str) -> str:
    """A DSN fit to print: the password replaced."""
    dsn = re.sub(r"(://[^:/@]+:)[^@]*@", r"\1***@", dsn)
    return re.sub(r"(password=)\S+", r"\1***", dsn)


def build_embedder(settings: Settings) -> Embedder:
    cfg = settings.embedder
    if cfg.provider == "ollama":
        from aria_mem.adapters.embedders.ollama import OllamaEmbedder

        return OllamaEmbedder(
            cfg.effective_model, host=cfg.host, timeout=cfg.timeout, batch_size=cfg.batch_size
        )
    if cfg.provider == "lmstudio":
        from aria_mem.adapters.embedders.lmstudio import LMStudioEmbedder

        return LMStudioEmbedder(
            cfg.effective_model, host=cfg.host, timeout=cfg.timeout, batch_size=cfg.batch_size
        )
    from aria_mem.adapters.embedders.local_model import SentenceTransformerEmbedder

    return SentenceTransformerEmbedder(cfg.effective_model, batch_size=cfg.batch_size)


def build_chat_model(settings: Settings) -> ChatModel:
    cfg = settings.chat
    if cfg.provider == "lmstudio":
        from aria_mem.adapters.chat.lmstudio import LMStudioChat

        return LMStudioChat(cfg.model, host=cfg.host, timeout=cfg.timeout)
    from aria_mem.adapters.chat.ollama import OllamaChat

    return OllamaChat(cfg.model, host=cfg.host, timeout=cfg.timeout, num_ctx=cfg.context_window)


class Services:
    """Lazily built adapters and services for one process."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    @cached_property
    def dsn(self) -> str:
        if self.settings.postgres.dsn:
            return self.settings.postgres.dsn
        from aria_mem.adapters.postgres import embedded

        return embedded.ensure_running(self.settings.postgres_dir)

    @cached_property
    def store(self) -> MemoryStore:
        from aria_mem.adapters.postgres.store import PostgresStore

        store = PostgresStore(self.dsn, connect_timeout=self.settings.postgres.connect_timeout)
        store.migrate()
        return store

    def use_store_without_migrating(self) -> MemoryStore:
        """For a chat that must go on while a PostgreSQL server is unreachable: a store that
        connects when it can (its calls fail, and are handled, until then)."""
        from aria_mem.adapters.postgres.store import PostgresStore

        store = PostgresStore(
            self.settings.postgres.dsn, connect_timeout=self.settings.postgres.connect_timeout
        )
        self.__dict__["store"] = store
        return store

    @cached_property
    def index(self) -> VectorIndex:
        url = self.settings.index.url
        if not url:
            from aria_mem.adapters.index_sharing import SharedEdgeIndex

            private_dir(self.settings.data_dir, what="data folder")
            return SharedEdgeIndex(self.settings.index_dir)
        from aria_mem.adapters.qdrant_server import QdrantServerIndex

        return QdrantServerIndex(
            url, api_key=self.settings.index.api_key, timeout=self.settings.index.timeout
        )

    @cached_property
    def embedder(self) -> Embedder:
        return build_embedder(self.settings)

    @cached_property
    def indexer(self) -> Indexer:
        return Indexer(self.store, self.index, self.embedder)

    @cached_property
    def retriever(self) -> Retriever:
        r = self.settings.retrieval
        return Retriever(
            self.store,
            self.index,
            self.embedder,
            min_similarity=r.min_similarity,
            timeout=r.timeout,
        )

    @cached_property
    def writer(self) -> MemoryWriter:
        return MemoryWriter(self.store, self.indexer)

    def targets(self) -> dict[str, str]:
        s = self.settings
        embedder = f"{s.embedder.provider} {s.embedder.effective_model}"
        if s.embedder.host:
            embedder += f" at {s.embedder.host}"
        return {
            "postgres": f"embedded ({s.postgres_dir})"
            if s.embedded_postgres
            else redact(s.postgres.dsn),
            "index": f"Qdrant Edge ({s.index_dir})" if s.embedded_index else s.index.url,
            "embedder": embedder,
        }

    def close(self) -> None:
        for name in ("retriever", "index", "store"):
            if name in self.__dict__:
                getattr(self, name).close()
