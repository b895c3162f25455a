"""``AriaMem``: the one object a program opens. It holds a ``Context`` (settings, adapters,
services) and composes its groups; the everyday verbs are its own methods, each a few lines
that check the input and hand the work to a service."""

from __future__ import annotations

import builtins
import uuid
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, Self

from aria_mem import config
from aria_mem.api.context import Context
from aria_mem.api.groups import Conversations, Knowledge, Relationship, Reviews, Transfer
from aria_mem.api.maintenance import Admin
from aria_mem.config import Settings
from aria_mem.domain import validation
from aria_mem.domain.models import Memory, MemoryOrder, MemoryStatus, MemoryType, NewMemory, Stage
from aria_mem.domain.records import MemoryChanges
from aria_mem.errors import ValidationError
from aria_mem.ports import ChatModel, DocumentReader, Embedder, Store, VectorIndex
from aria_mem.services.writer import WriteResult

if TYPE_CHECKING:  # the retrieval side is loaded by the calls that use it (not by `list`)
    from aria_mem.domain.budget import Turn
    from aria_mem.domain.fate import Fate
    from aria_mem.domain.retrieval import Profile, SearchResult
    from aria_mem.services.erasure import ForgottenUser
    from aria_mem.services.extractor import Extracted
    from aria_mem.services.review import History

MemoryRef = uuid.UUID | str
"""A memory id, or (as text) its first characters as lists show them."""


class AriaMem:
    """aria-mem for one process: open it from the config (``AriaMem.open()``), from settings
    (``AriaMem(settings)``) or with adapters of your own (``AriaMem(settings, store=...)``);
    use it as a context manager, or call ``close()``. Every call is scoped to one user and
    one companion: the config's identity unless ``user=`` / ``companion=`` say otherwise.

    Memories: ``remember``, ``get``, ``list``, ``update``, ``confirm``, ``history``,
    ``restore``, ``forget``, ``forget_everything``. A conversation: ``search``, ``why``,
    ``profile``, ``record_use``, ``extract``. Groups: ``.relationship`` (its
    stage), ``.review`` (what awaits a person's decision), ``.knowledge`` (what the companion has
    read), ``.conversations`` (the stored chat turns), ``.transfer`` (export and import),
    ``.admin`` (keeping it healthy). See docs/python-api.md.

    Opens nothing until a call needs it, and is thread-safe."""

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
        self._served = store is None and index is None and embedder is None
        """Searches may be run by the service: no adapters of its own (as the service has)."""
        self._context = Context(
            settings,
            store=store,
            index=index,
            embedder=embedder,
            chat_model=chat_model,
            reader=reader,
        )
        self._knowledge = Knowledge(self._context)
        self._conversations = Conversations(self._context)
        self._transfer = Transfer(self._context)
        self._relationship = Relationship(self._context)
        self._review = Reviews(self._context)
        self._admin = Admin(self._context)

    @classmethod
    def open(cls, config_path: str | Path | None = None, **sections: dict[str, Any]) -> Self:
        """From the config file (``config_path``, else $ARIA_MEM_CONFIG, else the default)
        and the environment; ``sections`` override keys, e.g. ``identity={"user": "sam"}``."""
        settings = config.load(Path(config_path) if config_path is not None else None)
        if sections:
            settings = config.with_overrides(settings, **sections)
        return cls(settings)

    @property
    def settings(self) -> Settings:
        """The settings this object was opened with (read-only)."""
        return self._context.settings

    def close(self) -> None:
        """Wait for work in the background, then close what this object opened."""
        self._context.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()

    @property
    def knowledge(self) -> Knowledge:
        """What the companion has read: ``learn``, ``list``, ``forget``."""
        return self._knowledge

    @property
    def conversations(self) -> Conversations:
        """The stored chat turns: ``list``, ``get``, ``turns_mentioning``, ``forget_turns``,
        ``forget``, ``export``."""
        return self._conversations

    @property
    def transfer(self) -> Transfer:
        """Moving memories in and out: ``export``, ``export_file``, ``import_file``."""
        return self._transfer

    @property
    def relationship(self) -> Relationship:
        """The relationship stage of a user and companion: ``stage``, ``set_stage``."""
        return self._relationship

    @property
    def review(self) -> Reviews:
        """What awaits a person's decision (likely merges, likely conflicts, stale memories):
        ``list``, ``accept``, ``reject``, ``edit``."""
        return self._review

    @property
    def admin(self) -> Admin:
        """Keeping it healthy: ``status``, ``sync``, ``reindex``, ``migrate``, ``stop``,
        ``daemon_running``, and what the daemon runs (``upkeep``, ``daemon_lock``)."""
        return self._admin

    # -- memories -------------------------------------------------------------------------

    def remember(
        self,
        text: str,
        *,
        memory_type: MemoryType | str = MemoryType.EPISODIC_EVENT,
        importance: float = 0.5,
        emotional_significance: float = 0.0,
        confidence: float = 0.8,
        reason: str = "",
        pinned: bool = False,
        expires: datetime | None = None,
        hold_until: Stage | str | None = None,
        merge: bool = True,
        replaces: MemoryRef | None = None,
        user: str | None = None,
        companion: str | None = None,
    ) -> WriteResult:
        """Save a fact about the user: in PostgreSQL first, then embedded and indexed (if the
        model or the index is down it is indexed later: ``result.problem`` says why). A known
        fact is confirmed; one said again in other words is merged into it (``result.merged``)
        unless ``merge`` is False; likely conflicts go to ``.review``. ``replaces``: the
        memory this one supersedes (``history`` shows both)."""
        user_id, companion_id = self._context.scope(user, companion)
        new = NewMemory(
            user_id=user_id,
            companion_id=companion_id,
            text=text,
            type=validation.memory_type(memory_type),
            importance=importance,
            emotional_significance=emotional_significance,
            confidence=confidence,
            reason=reason,
            pinned=pinned,
            held_until_stage=validation.stage(hold_until) if hold_until else None,
            expires_at=expires,
        )
        old = self._context.resolve(str(replaces), user, companion) if replaces else None
        return self._context.writer.remember(
            validation.new_memory(new), merge=merge, replaces=old.id if old else None
        )

    def get(
        self, memory: MemoryRef, *, user: str | None = None, companion: str | None = None
    ) -> Memory:
        """One memory of the user and companion, by id or by the first characters of its id.
        Another's memory is not found, exactly as one that does not exist."""
        return self._context.resolve(str(memory), user, companion)

    def list(
        self,
        *,
        user: str | None = None,
        companion: str | None = None,
        everyone: bool = False,
        status: MemoryStatus | None = None,
        limit: int | None = None,
        memory_type: MemoryType | str | None = None,
        contains: str | None = None,
        pinned: bool | None = None,
        held: bool | None = None,
        expiring: bool | None = None,
        order: MemoryOrder | str = MemoryOrder.CREATED,
        newest_first: bool = False,
        offset: int = 0,
    ) -> builtins.list[Memory]:
        """Memories of the user and companion (``everyone``: of all), by ``order`` (the
        oldest first, or the newest), skipping ``offset``. ``memory_type``, ``contains`` (a
        case-insensitive piece of the text), ``pinned``, ``held`` (until a later stage) and
        ``expiring`` (has an expiry date) narrow them."""
        user_id, companion_id = self._context.scope(user, companion)
        return self._context.store.memories.list_memories(
            user_id=None if everyone else user_id,
            companion_id=None if everyone else companion_id,
            status=status,
            limit=validation.limit(limit),
            type=None if memory_type is None else validation.memory_type(memory_type),
            contains=contains,
            pinned=pinned,
            held=held,
            expiring=expiring,
            order=validation.memory_order(order),
            newest_first=newest_first,
            offset=validation.offset(offset),
        )

    def update(
        self,
        memory: MemoryRef,
        *,
        text: str | None = None,
        importance: float | None = None,
        emotional_significance: float | None = None,
        confidence: float | None = None,
        reason: str | None = None,
        expires: datetime | None = None,
        clear_expiry: bool = False,
        pinned: bool | None = None,
        archived: bool | None = None,
        user: str | None = None,
        companion: str | None = None,
    ) -> WriteResult:
        """Change a memory of the user and companion in one transaction; it is indexed
        again. ``pinned``: always in the profile. ``archived``: kept, but never brought into
        a prompt (its vector is removed); False brings it back."""
        status = None
        if archived is not None:
            status = MemoryStatus.ARCHIVED if archived else MemoryStatus.ACTIVE
        changes = MemoryChanges(
            text=text,
            importance=importance,
            emotional_significance=emotional_significance,
            confidence=confidence,
            reason=reason,
            expires_at=expires,
            clear_expiry=clear_expiry,
            pinned=pinned,
            status=status,
        )
        found = self._context.resolve(str(memory), user, companion)
        return self._context.writer.update(found.id, changes)

    def confirm(
        self, memory: MemoryRef, *, user: str | None = None, companion: str | None = None
    ) -> WriteResult:
        """The user said it again: its recency is refreshed."""
        found = self._context.resolve(str(memory), user, companion)
        return self._context.writer.confirm(found.id)

    def history(
        self, memory: MemoryRef, *, user: str | None = None, companion: str | None = None
    ) -> History:
        """Every version of the fact (what it replaced, what replaced it, oldest first) and
        what happened to each: merges, edits with the text before, supersessions, restores."""
        from aria_mem.services.review import history

        found = self._context.resolve(str(memory), user, companion)
        return history(self._context.store.memories, self._context.store.hygiene, found)

    def restore(
        self, memory: MemoryRef, *, user: str | None = None, companion: str | None = None
    ) -> WriteResult:
        """Bring back a superseded or retired memory: active again, retrieved again."""
        found = self._context.resolve(str(memory), user, companion)
        return self._context.writer.restore(found.id, "restored as asked")

    def forget(
        self, memory: MemoryRef, *, user: str | None = None, companion: str | None = None
    ) -> WriteResult:
        """Delete it for good, with its history; its vector's removal is queued durably if the
        index is down."""
        found = self._context.resolve(str(memory), user, companion)
        return self._context.writer.forget(found.id)

    def forget_everything(self, user: str) -> ForgottenUser:
        """Forget a person: every memory of ``user`` with every companion, their
        conversations and relationship stages, in one transaction, and the lines the chat
        kept for Up/Down; the vectors are removed now, or by a later pass if the index does
        not answer. ``user`` has no default: this is never done by accident."""
        from aria_mem.services.erasure import forget_user

        context = self._context
        user_id = validation.identifier("user", user)
        return forget_user(context.store, context.indexer, context.settings.data_dir, user_id)

    # -- a conversation -------------------------------------------------------------------

    def search(
        self,
        message: str,
        *,
        previous: str | None = None,
        user: str | None = None,
        companion: str | None = None,
        now: datetime | None = None,
    ) -> SearchResult:
        """The memories a companion should have in front of it for ``message`` (and the
        user's message before it, which short follow-ups need): the profile, the relevant
        memories, what was dropped and why, the prompt sections, the stage timings. Never
        raises for a memory failure (``result.degraded`` says what was skipped); counts no
        use (call ``record_use``). ``now``: when it is said (default: the real time). The
        aria-mem service runs it when it holds the index (``remote.served_search``)."""
        user_id, companion_id = self._context.scope(user, companion)
        if not message.strip():
            raise ValidationError("The message is empty — give the user's message")
        validation.plain_text("The message", message)  # PostgreSQL's text cannot hold it
        if previous is not None:
            validation.plain_text("The previous message", previous)
        if now is not None and now.tzinfo is None:
            raise ValidationError("now has no time zone — give an aware datetime, e.g. UTC")
        if self._served:
            from aria_mem.api.remote import served_search

            args = (user_id, companion_id, message, previous, now)
            found = served_search(self.settings, lambda: self._context.adapters.service, *args)
            if found is not None:
                return found
        return self._context.retrieve(user_id, companion_id, message, previous, now)

    def warm_up(self) -> None:
        """Load the embedding model now rather than on the first search."""
        self._context.retriever.warm_up()

    def why(self, result: SearchResult, memory: MemoryRef) -> Fate:
        """Why one memory was, or was not, in ``result``."""
        from aria_mem.services.explain import fate_of

        memory_id = (
            memory
            if isinstance(memory, uuid.UUID)
            else self._context.resolve(memory, result.user_id, result.companion_id).id
        )
        return fate_of(self._context.store.memories, result, memory_id)

    def profile(self, *, user: str | None = None, companion: str | None = None) -> Profile:
        """What every prompt holds whatever the message: pinned memories and the most
        important profile facts and boundaries, straight from PostgreSQL (no model needed)."""
        from aria_mem.services.explain import profile_of

        user_id, companion_id = self._context.scope(user, companion)
        timeout = self.settings.retrieval.timeout
        return profile_of(self._context.store.reads, user_id, companion_id, timeout)

    def record_use(self, memory_ids: Sequence[uuid.UUID]) -> None:
        """Count a use of each memory a reply used (recency and the usage signal follow)."""
        self._context.store.reads.record_use(builtins.list(memory_ids))

    def extract(
        self,
        conversation: Sequence[Turn],
        *,
        remember: bool = True,
        user: str | None = None,
        companion: str | None = None,
    ) -> builtins.list[Extracted]:
        """Facts worth remembering from the conversation's last user message (and the
        companion message it answers), found by the chat model; remembered unless
        ``remember`` is False. A sensitive fact shared early is held until established."""
        from aria_mem.services import extractor

        user_id, companion_id = self._context.scope(user, companion)
        return extractor.extract(
            conversation,
            model=self._context.chat_model,
            stage=self._context.store.relationships.stage(user_id, companion_id),
            user_id=user_id,
            companion_id=companion_id,
            writer=self._context.writer if remember else None,
        )
