"""The one place that builds real adapters from settings. Everything is built on first use,
so a command that needs only PostgreSQL never opens the index or loads a model."""

from __future__ import annotations

import importlib
import re
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from aria_mem import providers
from aria_mem.config import Settings
from aria_mem.ports import ChatModel, DaemonLock, DocumentReader, Embedder, Store, VectorIndex
from aria_mem.private import private_dir

if TYPE_CHECKING:
    from aria_mem.adapters.service.client import ServiceClient
    from aria_mem.adapters.service.server import IndexService
    from aria_mem.services.health import Targets

T = TypeVar("T")


def redact(dsn: str) -> str:
    """A DSN fit to print: the password replaced, in a URL (its userinfo, or its query up to
    the next ``&``) or among libpq's key=value pairs (quoted, ``password='a b'``, or up to the
    next space)."""
    dsn = re.sub(r"(://[^:/@]+:)[^@]*@", r"\1***@", dsn)
    dsn = re.sub(r"([?&]password=)[^&#\s]*", r"\1***", dsn)
    return re.sub(r"((?:^|\s)password\s*=\s*)('(?:[^'\\]|\\.)*'?|\S+)", r"\1***", dsn)


def _load(path: str) -> Any:
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)


def build_embedder(settings: Settings) -> Embedder:
    """A model server's embedder; it sends nothing to a server another person's account
    runs unless [embedder] trust_account names it (``adapters.model_servers``)."""
    cfg = settings.embedder
    factory = _load(providers.EMBEDDING[cfg.provider].embedder)
    embedder: Embedder = factory(
        cfg.effective_model,
        host=cfg.host,
        timeout=cfg.timeout,
        batch_size=cfg.batch_size,
        trust_account=cfg.trust_account,
    )
    return embedder


def build_chat_model(settings: Settings) -> ChatModel:
    """The chat model; like the embedder, it refuses another person's server unless
    [chat] trust_account names that account."""
    cfg = settings.chat
    path = providers.CHAT[cfg.provider].chat
    assert path is not None
    model: ChatModel = _load(path)(
        cfg.model,
        host=cfg.host,
        timeout=cfg.timeout,
        num_ctx=cfg.context_window,
        trust_account=cfg.trust_account,
    )
    return model


def probe_embedder(
    provider: str, *, host: str = "", timeout: float = 2.0, trust_account: str = ""
) -> Embedder:
    """An embedder of ``provider``'s server with its default model, to see if it answers."""
    factory = _load(providers.EMBEDDING[provider].embedder)
    embedder: Embedder = factory(
        providers.EMBEDDING[provider].default_model,
        host=host,
        timeout=timeout,
        trust_account=trust_account,
    )
    return embedder


class Adapters:
    """Lazily built adapters for one set of settings; safe to share between threads (each
    adapter is built once, under a lock)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._lock = threading.RLock()
        self._built: dict[str, Any] = {}

    def _get(self, name: str, build: Callable[[], T]) -> T:
        with self._lock:
            if name not in self._built:
                self._built[name] = build()
            found: T = self._built[name]
            return found

    @property
    def dsn(self) -> str:
        return self._get("dsn", self._dsn)

    def _dsn(self) -> str:
        if self.settings.postgres.dsn:
            return self.settings.postgres.dsn
        from aria_mem.adapters.postgres import embedded

        return embedded.ensure_running(self.settings.postgres_dir)

    @property
    def store(self) -> Store:
        return self._get("store", self._store)

    def _store(self) -> Store:
        from aria_mem.adapters.postgres.store import PostgresStore

        store = PostgresStore(
            self.dsn,
            connect_timeout=self.settings.postgres.connect_timeout,
            language=self.settings.retrieval.language,
            trust_account=self.settings.postgres.trust_account,
        )
        store.migrate()
        return store

    def unmigrated_store(self) -> Store:
        """A store of its own that has not migrated (to report what a migration applies)."""
        from aria_mem.adapters.postgres.store import PostgresStore

        return PostgresStore(
            self.dsn,
            connect_timeout=self.settings.postgres.connect_timeout,
            language=self.settings.retrieval.language,
            trust_account=self.settings.postgres.trust_account,
        )

    def store_without_migrating(self) -> Store:
        """For a chat that must go on while a PostgreSQL server is unreachable: a store that
        connects when it can (its calls fail, and are handled, until then)."""
        from aria_mem.adapters.postgres.store import PostgresStore

        with self._lock:
            store = PostgresStore(
                self.settings.postgres.dsn,
                connect_timeout=self.settings.postgres.connect_timeout,
                language=self.settings.retrieval.language,
                trust_account=self.settings.postgres.trust_account,
            )
            self._built["store"] = store
            return store

    @property
    def index(self) -> VectorIndex:
        return self._get("index", self._index)

    def _index(self) -> VectorIndex:
        url = self.settings.index.url
        if not url:
            from aria_mem.adapters.service.shared_index import SharedEdgeIndex

            return SharedEdgeIndex(self.settings.index_dir, service=self.service)
        from aria_mem.adapters.qdrant_server import QdrantServerIndex

        index = self.settings.index
        return QdrantServerIndex(
            url, api_key=index.api_key, timeout=index.timeout, trust_account=index.trust_account
        )

    @property
    def service(self) -> ServiceClient:
        """The connection to the aria-mem service, which holds the embedded index and the
        in-process model for every aria-mem process (started when first needed)."""
        return self._get("service", self._service)

    def _service(self) -> ServiceClient:
        return service_client(self.settings)

    @property
    def embedder(self) -> Embedder:
        return self._get("embedder", self._embedder)

    def _embedder(self) -> Embedder:
        if providers.EMBEDDING[self.settings.embedder.provider].server:
            return build_embedder(self.settings)
        from aria_mem.adapters.embedders.shared import SharedModelEmbedder

        cfg = self.settings.embedder
        return SharedModelEmbedder(
            cfg.effective_model, lambda: self.service, batch_size=cfg.batch_size
        )

    def follow_embedder(self, settings: Settings) -> None:
        """Take ``settings`` whose embedding model changed (`reindex --model` in another
        process): the embedder is built again from them; the store, index and service stay."""
        with self._lock:
            self.settings = settings
            self._built.pop("embedder", None)

    @property
    def chat_model(self) -> ChatModel:
        return self._get("chat_model", lambda: build_chat_model(self.settings))

    @property
    def reader(self) -> DocumentReader:
        from aria_mem.adapters.documents import DocumentFetcher

        return self._get("reader", DocumentFetcher)

    def daemon_lock(self) -> DaemonLock:
        from aria_mem.adapters.postgres.daemon_lock import PgDaemonLock

        postgres = self.settings.postgres
        return PgDaemonLock(self.dsn, postgres.connect_timeout, postgres.trust_account)

    def targets(self) -> Targets:
        from aria_mem.services.health import Targets

        s = self.settings
        embedder = f"{s.embedder.provider} {s.embedder.effective_model}"
        if s.embedder.host:
            embedder += f" at {s.embedder.host}"
        return Targets(
            postgres=f"embedded ({s.postgres_dir})"
            if s.embedded_postgres
            else redact(s.postgres.dsn),
            index=f"Qdrant Edge ({s.index_dir})" if s.embedded_index else s.index.url,
            embedder=embedder,
        )

    def stop_local_services(self) -> tuple[int | None, bool]:
        """Stop the aria-mem service and the embedded PostgreSQL of these settings (a server
        named by [postgres] dsn or [index] url is not aria-mem's to stop): (service pid,
        whether PostgreSQL was running)."""
        self.close()
        from aria_mem.adapters.service.folder import stop_service

        owner = stop_service(self.settings.index_dir)
        postgres = False
        if self.settings.embedded_postgres:
            from aria_mem.adapters.postgres import embedded

            postgres = embedded.stop(self.settings.postgres_dir)
        return owner, postgres

    def close(self) -> None:
        with self._lock:
            for name in ("index", "service", "store"):
                if name in self._built:
                    self._built.pop(name).close()


def service_client(settings: Settings) -> ServiceClient:
    """A connection to the aria-mem service of ``settings``, which starts one (answering whole
    operations) when none answers."""
    from aria_mem.adapters.service.client import WITH_OPERATIONS, ServiceClient

    private_dir(settings.data_dir, what="data folder")
    return ServiceClient(
        settings.index_dir,
        idle_exit=settings.daemon.service_idle_exit,
        client_timeout=settings.daemon.service_client_timeout,
        entry=WITH_OPERATIONS,
    )


def host_service(
    settings: Settings, *, started: str, stopped: Callable[[], bool]
) -> IndexService | None:
    """Run the aria-mem service of ``settings`` in this process (the daemon): one started on
    demand is stopped and replaced; while another daemon runs it, wait (None if ``stopped``)."""
    from aria_mem.adapters.service.takeover import take_over

    private_dir(settings.data_dir, what="data folder")
    return take_over(
        settings.index_dir,
        started=started,
        stopped=stopped,
        client_timeout=settings.daemon.service_client_timeout,
    )
