"""What every part of the public API shares: the settings, the adapters opened (or given), the
services built on them, and the rule for which user and companion a call is scoped to.

``AriaMem`` and its groups each hold one ``Context``; none of them inherits from another."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeVar

from aria_mem import config, providers
from aria_mem.api.following import Following, SwitchedAway, cannot_follow
from aria_mem.config import Settings
from aria_mem.domain import validation
from aria_mem.domain.fusion import DEFAULT_FUSION
from aria_mem.domain.hygiene import rule_for
from aria_mem.domain.models import Memory
from aria_mem.domain.repeats import DEFAULT_REPEATS
from aria_mem.errors import ServiceError
from aria_mem.ports import ChatModel, DocumentReader, Embedder, Store, VectorIndex
from aria_mem.services.indexer import Indexer
from aria_mem.services.writer import MemoryWriter
from aria_mem.wiring import Adapters

if TYPE_CHECKING:
    from aria_mem.domain.retrieval import SearchResult
    from aria_mem.services.consolidator import Consolidator
    from aria_mem.services.retriever import Retriever

T = TypeVar("T")

log = logging.getLogger(__name__)

FOLLOWING = ("indexer", "writer", "retriever", "upkeep", "consolidator")
"""The services built on the embedder: built again when it follows a switch of model."""


class Context:
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
        self.adapters = Adapters(settings)
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
        self._following = Following(lambda: self._adapter("store").daemon.latest_reindex())

    def close(self) -> None:
        """Wait for work in the background, then close what this object opened."""
        with self._lock:
            retriever = self._services.pop("retriever", None)
            if retriever is not None:
                retriever.close()
            self._services.clear()
            self.adapters.close()

    def reopen(self, settings: Settings) -> None:
        """Close what was opened and build again from ``settings`` (the embedding model
        changed): an embedder given at the start is dropped, the other given adapters stay."""
        with self._lock:
            self.close()
            self.settings = settings
            self.adapters = Adapters(settings)
            self._given.pop("embedder", None)

    def given_store(self) -> Store | None:
        """The store handed in at the start, if one was."""
        store: Store | None = self._given.get("store")
        return store

    # -- adapters -------------------------------------------------------------------------

    def _adapter(self, name: str) -> Any:
        given = self._given.get(name)
        return given if given is not None else getattr(self.adapters, name)

    @property
    def store(self) -> Store:
        store: Store = self._adapter("store")
        return store

    @property
    def index(self) -> VectorIndex:
        index: VectorIndex = self._adapter("index")
        return index

    @property
    def embedder(self) -> Embedder:
        embedder: Embedder = self._adapter("embedder")
        return embedder

    @property
    def chat_model(self) -> ChatModel:
        model: ChatModel = self._adapter("chat_model")
        return model

    @property
    def reader(self) -> DocumentReader:
        reader: DocumentReader = self._adapter("reader")
        return reader

    # -- services -------------------------------------------------------------------------

    def service(self, name: str, build: Callable[[], T]) -> T:
        with self._lock:
            if name not in self._services:
                self._services[name] = build()
            found: T = self._services[name]
            return found

    @property
    def indexer(self) -> Indexer:
        self.follow()
        return self.service(
            "indexer",
            lambda: Indexer(self.store.queue, self.index, self.embedder, follower=self),
        )

    @property
    def writer(self) -> MemoryWriter:
        self.follow()
        return self.service("writer", self._build_writer)

    def _build_writer(self) -> MemoryWriter:
        from aria_mem.services.curator import Curator

        hygiene = self.settings.hygiene
        curator = None
        if hygiene.merge:
            rule = rule_for(
                self.settings.embedder.effective_model,
                hygiene.merge_similarity,
                hygiene.conflict_similarity,
                hygiene.ask_similarity,
            )
            curator = Curator(
                self.store.memories, self.store.hygiene, self.index, self.embedder, rule
            )
        return MemoryWriter(
            self.store.memories,
            self.store.relationships,
            self.indexer,
            hygiene=self.store.hygiene,
            curator=curator,
        )

    @property
    def consolidator(self) -> Consolidator:
        """The consolidation pass (the daemon's each interval, `aria-mem tidy` now): the chat
        model judges when ``[hygiene] judge = "on"``, else the rule."""
        self.follow()
        return self.service("consolidator", self._build_consolidator)

    def _build_consolidator(self) -> Consolidator:
        from aria_mem.services.consolidator import Consolidator
        from aria_mem.services.curator import Curator

        hygiene = self.settings.hygiene
        rule = rule_for(
            self.settings.embedder.effective_model,
            hygiene.merge_similarity,
            hygiene.conflict_similarity,
            hygiene.ask_similarity,
        )
        curator = Curator(self.store.memories, self.store.hygiene, self.index, self.embedder, rule)
        judge = self.chat_model if hygiene.judge else None
        return Consolidator(
            self.store.memories,
            self.store.hygiene,
            curator,
            self.writer,
            judge,
            rule,
            words=self.store.reads,
        )

    @property
    def retriever(self) -> Retriever:
        from aria_mem.services.retriever import Retriever

        self.follow()
        r = self.settings.retrieval
        return self.service(
            "retriever",
            lambda: Retriever(
                self.store.reads,
                self.index,
                self.embedder,
                min_similarity=r.min_similarity,
                timeout=r.timeout,
                candidates=r.candidates,
                repeats=DEFAULT_REPEATS if r.repeats else None,
                weights=self.settings.ranking.weights(),
                fusion=replace(DEFAULT_FUSION, lexical_weight=r.word_weight),
            ),
        )

    def retrieve(
        self,
        user_id: str,
        companion_id: str,
        message: str,
        previous: str | None,
        now: datetime | None = None,
    ) -> SearchResult:
        """The trip of one message; when PostgreSQL cannot even be reached to set it up, a
        result with no memories that says so (a failed service never breaks a turn)."""
        try:
            retriever = self.retriever
        except ServiceError as exc:
            from aria_mem.domain.query import build_query
            from aria_mem.domain.retrieval import without_postgres

            query = build_query(message, previous)
            return without_postgres(user_id, companion_id, query, self.model_name(), exc)
        return retriever.retrieve(user_id, companion_id, message, previous, now=now)

    # -- the embedding model (see ``following``) -------------------------------------------

    def model_name(self) -> str:
        """The embedding model this object embeds with, as every vector records it."""
        given: Embedder | None = self._given.get("embedder")
        if given is not None:
            return given.model_name
        embedder = self.settings.embedder
        return f"{embedder.provider}/{embedder.effective_model}"

    def follow(self, *, now: bool = False) -> None:
        """Before work that embeds: follow a switch of embedding model recorded since this
        object first reached PostgreSQL (looked at once a second at most; ``now``: look
        now). PostgreSQL not answering is left to the call itself to report."""
        if not (now or self._following.due()):
            return
        try:
            newer = self._following.switched_from(self.model_name())
        except ServiceError:
            self._following.back_off()  # the call reports PostgreSQL down; no second wait
            return
        if newer is not None:
            self._adopt(newer)

    def switched_from(self, model: str) -> str | None:
        """For the indexer, after it wrote vectors of ``model``: the model the database was
        switched to meanwhile, if another."""
        try:
            return self._following.switched_from(model)
        except ServiceError as exc:
            log.warning("could not look for a switch of embedding model: %s", exc)
            return None

    def embedder_for(self, model: str) -> Embedder:
        """The embedder of ``model``, following the switch to it first; one that refuses
        (EmbedderError) when this object was given an embedder of its own."""
        with self._lock:
            if self.model_name() != model:
                self._adopt(model)
            return self.embedder

    def _adopt(self, model: str) -> None:
        provider, _, name = model.partition("/")
        with self._lock:
            if self.model_name() == model:
                return
            if "embedder" in self._given or provider not in providers.EMBEDDING or not name:
                self._given["embedder"] = SwitchedAway(model)
                log.warning("%s", cannot_follow(model))
            else:
                self.settings = config.with_overrides(
                    self.settings, embedder={"provider": provider, "model": name}
                )
                self.adapters.follow_embedder(self.settings)
                log.info("the embedding model was switched to %s: following it", model)
            for service in FOLLOWING:
                self._services.pop(service, None)

    # -- scope ----------------------------------------------------------------------------

    def scope(self, user: str | None, companion: str | None) -> tuple[str, str]:
        """The user and companion a call works on: the arguments, else the config's identity.
        An empty argument is an error, not a fallback."""
        identity = self.settings.identity
        return (
            validation.identifier("user", identity.user if user is None else user),
            validation.identifier(
                "companion", identity.companion if companion is None else companion
            ),
        )

    def resolve(self, memory: str, user: str | None, companion: str | None) -> Memory:
        """A memory of the user and companion by id or the first characters of its id;
        another's is not found, exactly as one that does not exist."""
        return self.store.memories.find_prefix(memory, self.scope(user, companion))
