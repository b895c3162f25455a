"""One chat session: each turn retrieves memories (beside the reply-target analysis), fits the
prompt into the model's window, streams the reply, and stores the turns.

Memory failures never break the conversation: an embedder or index failure leaves the profile
and a notice; with PostgreSQL down the reply goes on without memories and the turns wait in
an outbox until PostgreSQL is back. A chat-model failure raises ``ChatModelError`` to the
caller, the user's message is kept, and the session stays usable. The memories that reached
the model (after the budget's trimming) are counted as used once the reply has been given.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from aria_mem.config import ChatSettings
from aria_mem.domain import archive
from aria_mem.domain.budget import FittedPrompt, PromptParts, Turn, fit, reached_model
from aria_mem.domain.models import Stage
from aria_mem.domain.prompt import PromptSections
from aria_mem.domain.records import ConversationSummary
from aria_mem.domain.reply_target import reply_hint, reply_target
from aria_mem.domain.retrieval import SearchResult
from aria_mem.errors import (
    AriaMemError,
    ChatModelError,
    ChatModelMissingError,
    ServiceError,
    UsageError,
)
from aria_mem.ports import ChatModel, ConversationLog, RetrievalReads
from aria_mem.services import extractor
from aria_mem.services.background import BackgroundTasks, DeadlinePool
from aria_mem.services.retriever import Retriever
from aria_mem.services.writer import MemoryWriter

log = logging.getLogger(__name__)

MAX_SYSTEM_PROMPT_CHARS = archive.MAX_PERSONA_CHARS
"""A persona is a few paragraphs; this keeps a mistaken paste from taking the whole window."""

MAX_MESSAGE_CHARS = 50_000
"""A message is what a person writes in one go; a paste beyond this is refused before it is
stored (it would not fit a local model's window anyway)."""

ModelBuilder = Callable[[str], tuple[ChatModel, ChatSettings]]


@dataclass(frozen=True)
class TurnTimings:
    analysis_ms: float
    retrieval_ms: float
    prepare_ms: float


@dataclass
class PreparedTurn:
    message: str
    retrieval: SearchResult | None
    prompt: FittedPrompt
    target: str | None
    notices: list[str] = field(default_factory=list)
    timings: TurnTimings = field(default_factory=lambda: TurnTimings(0.0, 0.0, 0.0))

    def used_memory_ids(self) -> list[uuid.UUID]:
        """The memories that reached the model: those the budget did not trim."""
        return reached_model(self.retrieval, self.prompt.trimmed)


class ChatSession:
    def __init__(
        self,
        *,
        conversations: ConversationLog,
        reads: RetrievalReads,
        retriever: Retriever,
        chat_model: ChatModel,
        writer: MemoryWriter | None,
        settings: ChatSettings,
        user_id: str,
        companion_id: str,
        new_conversation: bool = False,
        analyze: Callable[[Sequence[Turn], str], str | None] = reply_target,
        build_model: ModelBuilder | None = None,
    ) -> None:
        """``analyze`` finds the companion message the user is replying to; the default is a
        cheap heuristic, and a short model call can be given instead. ``build_model`` makes
        the chat model of another name (for `switch_model`).

        A model the server does not have raises ChatModelMissingError here, before the first
        message; a server that does not answer yet is only a start notice."""
        self.start_notices: list[str] = []
        try:
            chat_model.check()
        except ChatModelMissingError:
            raise
        except ChatModelError as exc:
            self.start_notices.append(str(exc))
        self._conversations = conversations
        self._reads = reads
        self._retriever = retriever
        self._model = chat_model
        self._writer = writer
        self._settings = settings
        self._analyze = analyze
        self._build_model = build_model
        self.system_prompt = settings.system_prompt
        self.user_id = user_id
        self.companion_id = companion_id
        self.history: list[Turn] = []
        self.conversation_id: uuid.UUID | None = None
        self._outbox: list[tuple[str, str, datetime]] = []
        self._pool = DeadlinePool("aria-mem-turn")
        self._background = BackgroundTasks("aria-mem-after-reply")
        self.last: PreparedTurn | None = None
        self.resumed: ConversationSummary | None = None
        """The stored conversation this session goes on with, when it had turns."""
        try:
            self.conversation_id = conversations.open_conversation(
                user_id, companion_id, new=new_conversation
            )
            self.history = [
                Turn(r, c)
                for r, c in conversations.recent_turns(self.conversation_id, settings.history_turns)
            ]
            if self.history:
                self.resumed = conversations.find_conversation(str(self.conversation_id))
            persona = conversations.system_prompt(self.conversation_id)
            if persona:
                self.system_prompt = persona
        except ServiceError as exc:
            self.start_notices.append(f"starting without earlier turns: {exc}")
        self.budget = self._budget_for(chat_model, settings)

    @staticmethod
    def _budget_for(chat_model: ChatModel, settings: ChatSettings) -> int:
        window = settings.context_window
        model_window = chat_model.context_length()
        if model_window:
            window = min(window, model_window)
        return window - settings.reply_reserve

    # -- changing the session --------------------------------------------------------------

    @property
    def model_name(self) -> str:
        return self._model.model_name

    def switch_model(self, name: str) -> str:
        """Reply with the model called ``name`` from the next message on; the current model
        stays when the new one cannot answer (ChatModelError says why)."""
        if self._build_model is None:
            raise UsageError("This session was opened with one model and cannot change it")
        if not name.strip():
            raise UsageError("Give the model's name, e.g. /model llama3.2")
        chat_model, settings = self._build_model(name.strip())
        chat_model.check()
        self._model, self._settings = chat_model, settings
        self.budget = self._budget_for(chat_model, settings)
        return chat_model.model_name

    def set_system_prompt(self, text: str | None) -> None:
        """The persona for this conversation, stored with it so a resumed chat keeps it (for
        this session only while PostgreSQL is away); None restores the configured one."""
        if text is not None:
            text = text.strip()
            if not text:
                raise UsageError("The persona is empty — give its text, or `reset` for the default")
            if len(text) > MAX_SYSTEM_PROMPT_CHARS:
                raise UsageError(
                    f"The persona is {len(text):,} characters; at most "
                    f"{MAX_SYSTEM_PROMPT_CHARS:,} fit — shorten it"
                )
        self.system_prompt = text if text is not None else self._settings.system_prompt
        if self.conversation_id is not None:
            try:
                self._conversations.set_system_prompt(self.conversation_id, text)
            except ServiceError as exc:
                log.warning("the persona holds for this session only: %s", exc)

    def new_conversation(self) -> None:
        """Start over: a new stored conversation, no history, the configured persona."""
        self.wait_for_background()
        if not self.flush_outbox():
            raise ServiceError(
                "PostgreSQL cannot take this conversation's last turns yet — try /new again "
                "when it is back"
            )
        self.conversation_id = self._conversations.open_conversation(
            self.user_id, self.companion_id, new=True
        )
        self.history.clear()
        self.last = None
        self.resumed = None
        self.system_prompt = self._settings.system_prompt

    def drop_from_history(self, contents: set[str]) -> None:
        """Turns forgotten from the store are not replayed for the rest of this session
        either."""
        self.history = [turn for turn in self.history if turn.content not in contents]

    def transcript(self) -> list[Turn]:
        """This conversation so far, oldest first: what PostgreSQL holds and what waits to
        be saved (or, with PostgreSQL away, what this session has seen)."""
        waiting = [Turn(role, content) for role, content, _ in self._outbox]
        if self.conversation_id is None:
            return list(self.history)
        try:
            stored = self._conversations.turns(self.conversation_id)
        except ServiceError:
            return list(self.history)
        return [Turn(role, content) for role, content in stored] + waiting

    # -- a turn -------------------------------------------------------------------------

    def prepare(self, message: str) -> PreparedTurn:
        """Retrieval and the reply-target analysis, at the same time; then the prompt."""
        if len(message) > MAX_MESSAGE_CHARS:
            raise UsageError(
                f"That message is {len(message):,} characters; at most {MAX_MESSAGE_CHARS:,} "
                "go in one message — send it in parts, or `aria-mem learn` a long document"
            )
        started = time.perf_counter()
        previous = next((t.content for t in reversed(self.history) if t.role == "user"), None)
        retrieval_future = self._pool.submit(
            self._retriever.retrieve, self.user_id, self.companion_id, message, previous
        )
        analysis_started = time.perf_counter()
        target = self._analyze(self.history, message)
        analysis_ms = (time.perf_counter() - analysis_started) * 1000
        notices: list[str] = []
        retrieval: SearchResult | None
        try:
            retrieval = retrieval_future.result()
        except AriaMemError as exc:  # the retriever degrades itself; this is a last guard
            retrieval = None
            notices.append(f"memories skipped: {exc}")
        if retrieval is not None:
            notices.extend(retrieval.degraded)
        parts = PromptParts(
            system=self.system_prompt,
            sections=retrieval.sections if retrieval else PromptSections(),
            history=self.history[-self._settings.history_turns :],
            reply_hint=reply_hint(target),
            message=message,
        )
        prompt = fit(parts, self.budget)
        self._keep("user", message)
        if self._outbox:
            notices.append(
                f"{len(self._outbox)} turn(s) not saved yet (PostgreSQL "
                "unreachable); they will be saved when it is back"
            )
        retrieval_ms = (retrieval.timings.total or 0.0) if retrieval else 0.0
        turn = PreparedTurn(
            message,
            retrieval,
            prompt,
            target,
            notices,
            TurnTimings(
                round(analysis_ms, 3),
                retrieval_ms,
                round((time.perf_counter() - started) * 1000, 3),
            ),
        )
        self.last = turn
        if self._writer is not None and self._settings.extract_memories:
            self._extract(retrieval.stage if retrieval else Stage.EARLY)
        return turn

    def reply(self, turn: PreparedTurn) -> Generator[str, None, None]:
        """Stream the reply; the whole reply is stored when it ends (also if it is stopped
        early), and the memories it was given are counted as used. A chat-model failure
        raises ChatModelError."""
        pieces: list[str] = []
        try:
            for piece in self._model.stream(turn.prompt.messages):
                pieces.append(piece)
                yield piece
        finally:
            text = "".join(pieces).strip()
            if text:
                self._keep("assistant", text)
                self._record_use(turn.used_memory_ids())

    # -- storage ------------------------------------------------------------------------

    def _keep(self, role: str, content: str) -> None:
        self.history.append(Turn(role, content))
        self._outbox.append((role, content, datetime.now(UTC)))
        self.flush_outbox()

    def flush_outbox(self) -> bool:
        """Store waiting turns; False while PostgreSQL cannot take them."""
        if not self._outbox:
            return True
        try:
            if self.conversation_id is None:
                self.conversation_id = self._conversations.open_conversation(
                    self.user_id, self.companion_id
                )
            self._conversations.add_turns(self.conversation_id, list(self._outbox))
        except ServiceError as exc:
            log.warning("could not store %d turn(s) yet: %s", len(self._outbox), exc)
            return False
        self._outbox.clear()
        return True

    @property
    def unsaved_turns(self) -> int:
        return len(self._outbox)

    def _record_use(self, ids: list[uuid.UUID]) -> None:
        """Counted in the background so the next message does not wait for the write."""
        if not ids:
            return

        def write() -> None:
            try:
                self._reads.record_use(ids)
            except ServiceError as exc:
                log.warning("could not count the use of %d memories: %s", len(ids), exc)

        self._background.run(write)

    # -- memories from conversation ------------------------------------------------------

    def _extract(self, stage: Stage) -> None:
        writer = self._writer
        turns = list(self.history)

        def work() -> None:
            try:
                extractor.extract(
                    turns,
                    model=self._model,
                    stage=stage,
                    user_id=self.user_id,
                    companion_id=self.companion_id,
                    writer=writer,
                )
            except AriaMemError as exc:
                log.warning("memory extraction skipped: %s", exc)

        self._background.run(work)

    def wait_for_background(self) -> None:
        self._background.wait()

    def close(self) -> None:
        self.wait_for_background()
        self.flush_outbox()
        self._pool.close()
