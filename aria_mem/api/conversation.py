"""Bringing memories into a conversation, through the public API: search, why, record_use,
extract, the relationship stage, and a chat session."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from aria_mem import config
from aria_mem.api.memories import Memories, MemoryRef
from aria_mem.config import ChatSettings
from aria_mem.domain import validation
from aria_mem.domain.models import Stage
from aria_mem.domain.records import SyncReport
from aria_mem.errors import NotFoundError, ServiceError, StoreError, ValidationError
from aria_mem.ports import ChatModel

if TYPE_CHECKING:  # the retrieval side is loaded by the calls that use it (not by `list`)
    from aria_mem.domain.budget import Turn
    from aria_mem.domain.fate import Fate
    from aria_mem.domain.retrieval import Profile, SearchResult
    from aria_mem.services.chat import ChatSession
    from aria_mem.services.extractor import Extracted


class Conversation(Memories):
    def search(
        self,
        message: str,
        *,
        previous: str | None = None,
        user: str | None = None,
        companion: str | None = None,
    ) -> SearchResult:
        """The memories a companion should have in front of it for ``message`` (and the
        user's message before it, which short follow-ups need): the profile, the relevant
        memories, what was dropped and why, the prompt sections, the stage timings. Never
        raises for a memory failure: ``result.degraded`` says what was skipped. Counts no
        use: call ``record_use`` with what the reply used."""
        from aria_mem.domain.query import build_query
        from aria_mem.domain.retrieval import SearchResult

        user_id, companion_id = self._scope(user, companion)
        if not message.strip():
            raise ValidationError("The message is empty — give the user's message")
        try:
            retriever = self._retriever
        except ServiceError as exc:  # PostgreSQL could not even be reached to set up
            embedder = self.settings.embedder
            return SearchResult(
                user_id,
                companion_id,
                build_query(message, previous),
                f"{embedder.provider}/{embedder.effective_model}",
                degraded=(f"PostgreSQL unavailable, no memories this turn: {exc}",),
            )
        return retriever.retrieve(user_id, companion_id, message, previous)

    def warm_up(self) -> None:
        """Load an in-process embedding model now rather than on the first search."""
        self._retriever.warm_up()

    def why(self, result: SearchResult, memory: MemoryRef) -> Fate:
        """Why one memory was, or was not, in ``result``."""
        from aria_mem.domain import fate

        memory_id = (
            memory
            if isinstance(memory, uuid.UUID)
            else self._resolve(memory, result.user_id, result.companion_id).id
        )
        seen = fate.in_result(result, memory_id)
        if seen is not None:
            return seen
        try:
            stored = self._store.memories.get(memory_id)
        except NotFoundError:
            stored = None
        return fate.unseen(result, memory_id, stored, datetime.now(UTC))

    def profile(self, *, user: str | None = None, companion: str | None = None) -> Profile:
        """What every prompt holds whatever the message: pinned memories and the most
        important profile facts and boundaries, straight from PostgreSQL (no model needed)."""
        from aria_mem.domain.profile import select_profile
        from aria_mem.domain.ranking import DEFAULT_WEIGHTS
        from aria_mem.domain.retrieval import Profile

        user_id, companion_id = self._scope(user, companion)
        stage, pool = self._store.reads.retrieval_context(
            user_id, companion_id, timeout=self.settings.retrieval.timeout
        )
        return Profile(tuple(select_profile(pool)[: DEFAULT_WEIGHTS.cap(stage)]), stage)

    def record_use(self, memory_ids: Sequence[uuid.UUID]) -> None:
        """Count a use of each memory a reply used (recency and the usage signal follow)."""
        self._store.reads.record_use(list(memory_ids))

    def extract(
        self,
        conversation: Sequence[Turn],
        *,
        remember: bool = True,
        user: str | None = None,
        companion: str | None = None,
    ) -> list[Extracted]:
        """Facts worth remembering from the conversation's last user message (and the
        companion message it answers), found by the chat model; remembered unless
        ``remember`` is False. A sensitive fact shared early is held until established."""
        user_id, companion_id = self._scope(user, companion)
        from aria_mem.services import extractor

        return extractor.extract(
            conversation,
            model=self._chat_model,
            stage=self._store.relationships.stage(user_id, companion_id),
            user_id=user_id,
            companion_id=companion_id,
            writer=self._writer if remember else None,
        )

    def stage(self, *, user: str | None = None, companion: str | None = None) -> Stage:
        """The relationship stage of the user and companion."""
        return self._store.relationships.stage(*self._scope(user, companion))

    def set_stage(
        self, stage: Stage | str, *, user: str | None = None, companion: str | None = None
    ) -> SyncReport:
        """Move the relationship on (or back): the similarity bar and the memory cap follow,
        and memories held until this stage are released (indexed now, if the index answers)."""
        user_id, companion_id = self._scope(user, companion)
        self._store.relationships.set_stage(user_id, companion_id, validation.stage(stage))
        return self._indexer.run_pending()

    def chat(
        self,
        *,
        user: str | None = None,
        companion: str | None = None,
        new: bool = False,
        model: str | None = None,
    ) -> ChatSession:
        """A conversation with the configured chat model (``model`` for another one): each
        turn brings up memories, fits the prompt into the model's window, streams the reply
        and stores the turns; ``new`` starts a new conversation instead of resuming."""
        user_id, companion_id = self._scope(user, companion)
        offline = None
        try:
            self._store.ping()
        except StoreError as exc:
            if self.settings.embedded_postgres:
                raise  # the embedded server could not even start: nothing to go on with
            self._adapters.store_without_migrating()
            offline = (
                f"PostgreSQL is unreachable ({exc}): replies go on without memories, and "
                "turns are saved when it is back"
            )
        chat_model = self._chat_model
        chat_settings = self.settings.chat
        if model is not None:
            chat_model, chat_settings = self._chat_model_named(model)
        from aria_mem.services.chat import ChatSession

        session = ChatSession(
            conversations=self._store.conversations,
            reads=self._store.reads,
            retriever=self._retriever,
            chat_model=chat_model,
            writer=self._writer,
            settings=chat_settings,
            user_id=user_id,
            companion_id=companion_id,
            new_conversation=new,
            build_model=self._chat_model_named,
        )
        if offline is not None:
            session.start_notices.insert(0, offline)
        return session

    def _chat_model_named(self, name: str) -> tuple[ChatModel, ChatSettings]:
        from aria_mem.wiring import build_chat_model

        overridden = config.with_overrides(self.settings, chat={"model": name})
        return build_chat_model(overridden), overridden.chat
