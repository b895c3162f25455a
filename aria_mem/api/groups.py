"""The namespaced parts of the public API: what the companion has read
(``memory.knowledge``) and the stored chat conversations (``memory.conversations``)."""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING

from aria_mem.domain import validation
from aria_mem.domain.records import ConversationSummary, KnowledgeSource, StoredTurn
from aria_mem.errors import ValidationError
from aria_mem.services import archive as archive_service

if TYPE_CHECKING:
    from aria_mem.api.core import Core
    from aria_mem.services.knowledge import Learned


@dataclass(frozen=True)
class ForgottenSource:
    source: KnowledgeSource
    vectors_removed: int


class Knowledge:
    """Documents and pages the companion has read: passages of its own, labelled as outside
    data in a prompt, never facts about the user."""

    def __init__(self, core: Core) -> None:
        self._core = core

    def learn(
        self, location: str, *, title: str | None = None, companion: str | None = None
    ) -> Learned:
        """Read a text, Markdown or HTML file or an http(s) page into knowledge passages (the
        companion's, not facts about the user), stored and indexed in their own collection.
        Learning the same source again replaces it."""
        _, companion_id = self._core._scope(None, companion)
        from aria_mem.services import knowledge as knowledge_service

        return knowledge_service.learn(
            location,
            companion_id=companion_id,
            title=title,
            reader=self._core._reader,
            knowledge=self._core._store.knowledge,
            indexer=self._core._indexer,
        )

    def list(
        self, *, companion: str | None = None, everyone: bool = False
    ) -> builtins.list[KnowledgeSource]:
        """What the companion (``everyone``: every companion) has learned."""
        _, companion_id = self._core._scope(None, companion)
        return self._core._store.knowledge.sources(None if everyone else companion_id)

    def forget(self, source_id: str) -> ForgottenSource:
        """Forget a learned source (id or its first characters): passages and vectors."""
        source = self._core._store.knowledge.forget(source_id)
        return ForgottenSource(source, self._core._indexer.run_deletions().deletions_done)


class Conversations:
    """The stored chat turns of a user and companion (a resumed chat replays them)."""

    def __init__(self, core: Core) -> None:
        self._core = core

    def list(
        self, *, user: str | None = None, companion: str | None = None
    ) -> builtins.list[ConversationSummary]:
        """The stored conversations of the user and companion, most recent first (chat turns
        are memory too: they are replayed as history when a chat resumes)."""
        user_id, companion_id = self._core._scope(user, companion)
        return self._core._store.conversations.list_conversations(user_id, companion_id)

    def get(
        self, conversation: str, *, user: str | None = None, companion: str | None = None
    ) -> tuple[ConversationSummary, builtins.list[tuple[str, str]]]:
        """One conversation of the user and companion (by id or its first characters) and its
        turns, oldest first; another's is not found."""
        owner = self._core._scope(user, companion)
        found = self._core._store.conversations.find_conversation(conversation, owner)
        return found, self._core._store.conversations.turns(found.id)

    def turns_mentioning(
        self, text: str, *, user: str | None = None, companion: str | None = None
    ) -> builtins.list[StoredTurn]:
        """Stored chat turns of the user and companion that mention ``text`` (most of its
        distinctive words): what to offer for forgetting with a forgotten memory, so the
        fact is not replayed as history."""
        user_id, companion_id = self._core._scope(user, companion)
        if len(text) > validation.MAX_TEXT_CHARS:
            raise ValidationError(
                f"The text to look for is {len(text):,} characters; at most "
                f"{validation.MAX_TEXT_CHARS:,}, as for a memory — give its distinctive words"
            )
        validation.plain_text("the text to look for", text)
        return self._core._store.conversations.turns_mentioning(user_id, companion_id, text)

    def forget_turns(
        self,
        turns: Sequence[StoredTurn],
        *,
        user: str | None = None,
        companion: str | None = None,
    ) -> int:
        """Delete these turns for good (only the user and companion's own); how many went."""
        user_id, companion_id = self._core._scope(user, companion)
        ids = [t.id for t in turns]
        return self._core._store.conversations.forget_turns(user_id, companion_id, ids)

    def forget(
        self, conversation: str, *, user: str | None = None, companion: str | None = None
    ) -> tuple[ConversationSummary, int]:
        """Delete a conversation of the user and companion and its turns for good; how many
        turns went."""
        owner = self._core._scope(user, companion)
        found = self._core._store.conversations.find_conversation(conversation, owner)
        return found, self._core._store.conversations.forget_conversation(found.id)

    def export(
        self, stream: IO[str], *, user: str | None = None, companion: str | None = None
    ) -> int:
        """The conversations of the user and companion with every turn, as JSON Lines that
        `import_file` restores; returns how many conversations."""
        user_id, companion_id = self._core._scope(user, companion)
        written = archive_service.write_conversations(
            stream, self._core._store.conversations, user_id, companion_id
        )
        return written.conversations
