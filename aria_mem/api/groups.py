"""The namespaced parts of the public API: what the companion has read
(``memory.knowledge``), the stored chat conversations (``memory.conversations``) and moving
memories in and out (``memory.transfer``)."""

from __future__ import annotations

import builtins
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING

from aria_mem.domain import validation
from aria_mem.domain.hygiene import Consolidation, ReviewItem
from aria_mem.domain.models import Memory, Stage
from aria_mem.domain.records import ConversationSummary, KnowledgeSource, StoredTurn, SyncReport
from aria_mem.errors import ValidationError
from aria_mem.private import open_private_output
from aria_mem.services import archive as archive_service

if TYPE_CHECKING:
    from aria_mem.api.context import Context
    from aria_mem.services.consolidator import TidyReport
    from aria_mem.services.knowledge import Learned
    from aria_mem.services.review import Decided, Review
    from aria_mem.services.transfer import Exported, Imported


@dataclass(frozen=True)
class ForgottenSource:
    source: KnowledgeSource
    vectors_removed: int


class Knowledge:
    """Documents and pages the companion has read: passages of its own, labelled as outside
    data in a prompt, never facts about the user."""

    def __init__(self, context: Context) -> None:
        self._context = context

    def learn(
        self,
        location: str,
        *,
        title: str | None = None,
        companion: str | None = None,
        public_only: bool = False,
    ) -> Learned:
        """Read a text, Markdown or HTML file or an http(s) page into knowledge passages (the
        companion's, not facts about the user), stored and indexed in their own collection.
        Learning the same source again replaces it. ``public_only``: an http(s) page on a
        public address only (no loopback, private or link-local address, however spelled,
        on any redirect hop), for a caller that may be a model steered by what it read."""
        _, companion_id = self._context.scope(None, companion)
        from aria_mem.services import knowledge as knowledge_service

        return knowledge_service.learn(
            location,
            companion_id=companion_id,
            title=title,
            reader=self._context.reader,
            knowledge=self._context.store.knowledge,
            indexer=self._context.indexer,
            public_only=public_only,
        )

    def list(
        self, *, companion: str | None = None, everyone: bool = False
    ) -> builtins.list[KnowledgeSource]:
        """What the companion (``everyone``: every companion) has learned."""
        _, companion_id = self._context.scope(None, companion)
        return self._context.store.knowledge.sources(None if everyone else companion_id)

    def forget(self, source_id: str, *, companion: str | None = None) -> ForgottenSource:
        """Forget a learned source of the companion (id or its first characters): passages and
        vectors. Another companion's source is not found."""
        _, companion_id = self._context.scope(None, companion)
        source = self._context.store.knowledge.forget(companion_id, source_id)
        return ForgottenSource(source, self._context.indexer.run_deletions().deletions_done)


class Conversations:
    """The stored chat turns of a user and companion (a resumed chat replays them)."""

    def __init__(self, context: Context) -> None:
        self._context = context

    def list(
        self, *, user: str | None = None, companion: str | None = None
    ) -> builtins.list[ConversationSummary]:
        """The stored conversations of the user and companion, most recent first (chat turns
        are memory too: they are replayed as history when a chat resumes)."""
        user_id, companion_id = self._context.scope(user, companion)
        return self._context.store.conversations.list_conversations(user_id, companion_id)

    def get(
        self, conversation: str, *, user: str | None = None, companion: str | None = None
    ) -> tuple[ConversationSummary, builtins.list[tuple[str, str]]]:
        """One conversation of the user and companion (by id or its first characters) and its
        turns, oldest first; another's is not found."""
        owner = self._context.scope(user, companion)
        found = self._context.store.conversations.find_conversation(conversation, owner)
        return found, self._context.store.conversations.turns(found.id)

    def turns_mentioning(
        self, text: str, *, user: str | None = None, companion: str | None = None
    ) -> builtins.list[StoredTurn]:
        """Stored chat turns of the user and companion that mention ``text`` (most of its
        distinctive words): what to offer for forgetting with a forgotten memory, so the
        fact is not replayed as history."""
        user_id, companion_id = self._context.scope(user, companion)
        if len(text) > validation.MAX_TEXT_CHARS:
            raise ValidationError(
                f"The text to look for is {len(text):,} characters; at most "
                f"{validation.MAX_TEXT_CHARS:,}, as for a memory — give its distinctive words"
            )
        validation.plain_text("the text to look for", text)
        return self._context.store.conversations.turns_mentioning(user_id, companion_id, text)

    def forget_turns(
        self,
        turns: Sequence[StoredTurn],
        *,
        user: str | None = None,
        companion: str | None = None,
    ) -> int:
        """Delete these turns for good (only the user and companion's own); how many went."""
        user_id, companion_id = self._context.scope(user, companion)
        ids = [t.id for t in turns]
        return self._context.store.conversations.forget_turns(user_id, companion_id, ids)

    def forget(
        self, conversation: str, *, user: str | None = None, companion: str | None = None
    ) -> tuple[ConversationSummary, int]:
        """Delete a conversation of the user and companion and its turns for good; how many
        turns went."""
        owner = self._context.scope(user, companion)
        found = self._context.store.conversations.find_conversation(conversation, owner)
        return found, self._context.store.conversations.forget_conversation(found.id)

    def export(
        self, stream: IO[str], *, user: str | None = None, companion: str | None = None
    ) -> int:
        """The conversations of the user and companion with every turn, as JSON Lines that
        `import_file` restores; returns how many conversations."""
        user_id, companion_id = self._context.scope(user, companion)
        written = archive_service.write_conversations(
            stream, self._context.store.conversations, user_id, companion_id
        )
        return written.conversations


class Transfer:
    """Moving memories in and out as JSON Lines: a backup, a move to a new machine, or all
    that is kept about a person, for them to read."""

    def __init__(self, context: Context) -> None:
        self._context = context

    def export(
        self, stream: IO[str], *, user: str | None = None, everything: bool = False
    ) -> Exported:
        """Every memory (of ``user``, or of everyone), every field, as JSON Lines that
        ``import_file`` restores. ``everything`` adds all a new machine needs besides: the
        relationship stages, the conversations with their turns, and the knowledge of the
        companions involved."""
        from aria_mem.services.transfer import export_memories

        user_id = validation.identifier("user", user) if user is not None else None
        return export_memories(stream, self._context.store, user_id=user_id, everything=everything)

    def export_file(
        self, path: str | Path, *, user: str | None = None, everything: bool = False
    ) -> Exported:
        """``export`` into a file readable by its owner only (0600; an existing file of
        another account, a symbolic link or a FIFO is refused; the old file stays whole if
        the export fails)."""
        with open_private_output(path) as stream:
            return self.export(stream, user=user, everything=everything)

    def import_file(
        self,
        path: str | Path | IO[bytes],
        *,
        skip_invalid: bool = False,
        index: bool = True,
        progress: Callable[[int], None] | None = None,
        on_start: Callable[[int], None] | None = None,
    ) -> Imported:
        """Import JSON Lines as ``export`` writes them, idempotently by id (stages,
        conversations and knowledge too, when the file has them). Every line is checked
        first: without ``skip_invalid`` a bad line stops the import and nothing is stored
        (the memories go in one transaction; then each conversation and source in its own,
        so a failed import can be run again). Unchanged rows keep their vectors; the rest
        are indexed unless ``index`` is False (``on_start`` hears how many wait,
        ``progress`` how many are done). ``path`` may also be an open binary stream (e.g.
        ``sys.stdin.buffer``)."""
        from aria_mem.services.transfer import import_memories

        source = Path(path) if isinstance(path, str | Path) else path
        return import_memories(
            source,
            self._context.store,
            self._context.indexer if index else None,
            skip_invalid=skip_invalid,
            progress=progress,
            on_start=on_start,
        )


class Reviews:
    """What awaits a person's decision: likely merges, likely conflicts (a newer memory that
    seems to change an older one), and stale memories the daemon proposes to retire."""

    def __init__(self, context: Context) -> None:
        self._context = context

    def list(
        self,
        *,
        user: str | None = None,
        companion: str | None = None,
        everyone: bool = False,
        limit: int | None = None,
        offset: int = 0,
    ) -> builtins.list[ReviewItem]:
        """The open items of the user and companion (``everyone``: of all), oldest first;
        ``limit`` and ``offset`` give one page of them (``count`` says how many there are)."""
        owner = (None, None) if everyone else self._context.scope(user, companion)
        return self._context.store.hygiene.reviews(
            *owner, limit=validation.limit(limit), offset=validation.offset(offset)
        )

    def count(
        self, *, user: str | None = None, companion: str | None = None, everyone: bool = False
    ) -> int:
        """How many items are open, for the user and companion (``everyone``: of all)."""
        owner = (None, None) if everyone else self._context.scope(user, companion)
        return self._context.store.hygiene.count_reviews(*owner)

    def memories(
        self,
        items: Sequence[ReviewItem],
        *,
        user: str | None = None,
        companion: str | None = None,
        everyone: bool = False,
    ) -> dict[uuid.UUID, Memory]:
        """The memories these items are about, as they are now, by id, read in one query
        however many items there are (a page of the queue shows them all). One forgotten
        since is absent; each is only of its item's own user and companion, and an item of
        another user or companion than these (``everyone``: any) gives nothing, as every
        other call acts on one user and companion."""
        owner = (None, None) if everyone else self._context.scope(user, companion)
        ids = [item.id for item in items]
        found = self._context.store.hygiene.review_memories(ids, *owner)
        return {m.id: m for m in found}

    def accept(
        self, item: str, *, user: str | None = None, companion: str | None = None
    ) -> Decided:
        """Do what the item proposes: merge the newer memory into the older, let the newer
        supersede the older, or retire the stale one (each reversible with ``restore``)."""
        return self._reviewer().accept(self._find(item, user, companion))

    def reject(
        self, item: str, *, user: str | None = None, companion: str | None = None
    ) -> Decided:
        """Leave both memories as they are and close the item."""
        return self._reviewer().reject(self._find(item, user, companion))

    def edit(
        self, item: str, text: str, *, user: str | None = None, companion: str | None = None
    ) -> Decided:
        """Say it right: the item's (older) memory gets ``text``, the other one is
        superseded by it; the old text stays in its history."""
        return self._reviewer().edit(self._find(item, user, companion), text)

    def tidy(
        self,
        *,
        user: str | None = None,
        companion: str | None = None,
        everyone: bool = False,
        limit: int | None = None,
        progress: Callable[[int, int], None] | None = None,
    ) -> TidyReport:
        """A consolidation pass now (the daemon runs one each interval): every memory written
        since the last pass is judged against its nearest older ones, by the chat model when
        ``[hygiene] judge = "on"`` and it answers, else by the rule. ``everyone``: all users'
        and companions'. With ``[hygiene] merge = "off"`` nothing is done."""
        from aria_mem.services.consolidator import TidyReport

        if not self._context.settings.hygiene.merge:
            return TidyReport(notes=['consolidation is off ([hygiene] merge = "off")'])
        owner = None if everyone else self._context.scope(user, companion)
        return self._context.consolidator.run(owner=owner, limit=limit, progress=progress)

    def passes(
        self,
        *,
        user: str | None = None,
        companion: str | None = None,
        everyone: bool = False,
        limit: int = 50,
    ) -> builtins.list[Consolidation]:
        """What consolidation passes did and why, newest first."""
        hygiene = self._context.store.hygiene
        if everyone:
            return hygiene.consolidations(None, None, limit)
        return hygiene.consolidations(*self._context.scope(user, companion), limit)

    def undo(self, action: str, *, user: str | None = None, companion: str | None = None) -> str:
        """Undo one thing a pass did (by id or the start of one): a merged or superseded
        memory is restored, a question withdrawn; what was done, in words."""
        owner = self._context.scope(user, companion)
        found = self._context.store.hygiene.find_consolidation(action, owner)
        return self._context.consolidator.undo(found)

    def _find(self, item: str, user: str | None, companion: str | None) -> ReviewItem:
        owner = self._context.scope(user, companion)
        return self._context.store.hygiene.find_review(item, owner)

    def _reviewer(self) -> Review:
        from aria_mem.services.review import Review

        store = self._context.store
        return Review(store.memories, store.hygiene, self._context.writer)


class Relationship:
    """How far the relationship of a user and companion has come: the similarity bar, the
    memory cap and the memories held back follow its stage."""

    def __init__(self, context: Context) -> None:
        self._context = context

    def stage(self, *, user: str | None = None, companion: str | None = None) -> Stage:
        """The relationship stage of the user and companion."""
        return self._context.store.relationships.stage(*self._context.scope(user, companion))

    def set_stage(
        self, stage: Stage | str, *, user: str | None = None, companion: str | None = None
    ) -> SyncReport:
        """Move the relationship on (or back): the similarity bar and the memory cap follow,
        and memories held until this stage are released (indexed now, if the index answers)."""
        user_id, companion_id = self._context.scope(user, companion)
        self._context.store.relationships.set_stage(user_id, companion_id, validation.stage(stage))
        return self._context.indexer.run_pending()
