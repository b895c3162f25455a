"""One chat session: each turn retrieves memories (beside the reply-target analysis), fits the
prompt into the model's window, streams the reply, and stores the turns.

Memory failures never break the conversation: an embedder or index failure leaves the profile
and a notice; with PostgreSQL down the reply goes on without memories and the turns wait in
an outbox until PostgreSQL is back. A chat-model failure raises ``ChatModelError`` to the
caller, the user's message is kept, and the session stays usable.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Callable, Generator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime

from aria_mem.config import ChatSettings
from aria_mem.domain import extraction
from aria_mem.domain.budget import FittedPrompt, PromptParts, Turn, fit
from aria_mem.domain.models import NewMemory, Stage
from aria_mem.domain.prompt import PromptRecord
from aria_mem.domain.reply_target import reply_hint, reply_target
from aria_mem.errors import AriaMemError, ServiceError
from aria_mem.ports import ChatModel, MemoryStore
from aria_mem.services.background import BackgroundTasks
from aria_mem.services.retriever import RetrievalResult, Retriever
from aria_mem.services.writer import MemoryWriter

log = logging.getLogger(__name__)


@dataclass
class PreparedTurn:
    message: str
    retrieval: RetrievalResult | None
    prompt: FittedPrompt
    target: str | None
    notices: list[str] = field(default_factory=list)
    timings_ms: dict[str, float] = field(default_factory=dict)


class ChatSession:
    def __init__(
        self,
        *,
        store: MemoryStore,
        retriever: Retriever,
        chat_model: ChatModel,
        writer: MemoryWriter | None,
        settings: ChatSettings,
        user_id: str,
        companion_id: str,
        new_conversation: bool = False,
        analyze: Callable[[Sequence[Turn], str], str | None] = reply_target,
    ) -> None:
        """``analyze`` finds the companion message the user is replying to; the default is a
        cheap heuristic, and a short model call can be given instead."""
        self._store = store
        self._retriever = retriever
        self._model = chat_model
        self._writer = writer
        self._settings = settings
        self._analyze = analyze
        self.user_id = user_id
        self.companion_id = companion_id
        self.history: list[Turn] = []
        self.conversation_id: uuid.UUID | None = None
        self._outbox: list[tuple[str, str, datetime]] = []
        self._pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="aria-mem-turn")
        self._background = BackgroundTasks("aria-mem-extract")
        self.last: PreparedTurn | None = None
        self.start_notices: list[str] = []
        try:
            self.conversation_id = store.open_conversation(
                user_id, companion_id, new=new_conversation
            )
            self.history = [
                Turn(r, c)
                for r, c in store.recent_turns(self.conversation_id, settings.history_turns)
            ]
        except ServiceError as exc:
            self.start_notices.append(f"starting without earlier turns: {exc}")
        window = settings.context_window
        model_window = chat_model.context_length()
        if model_window:
            window = min(window, model_window)
        self.budget = window - settings.reply_reserve

    # -- a turn -------------------------------------------------------------------------

    def prepare(self, message: str) -> PreparedTurn:
        """Retrieval and the reply-target analysis, at the same time; then the prompt."""
        started = time.perf_counter()
        previous = next((t.content for t in reversed(self.history) if t.role == "user"), None)
        retrieval_future = self._pool.submit(
            self._retriever.retrieve, self.user_id, self.companion_id, message, previous
        )
        analysis_started = time.perf_counter()
        target = self._analyze(self.history, message)
        analysis_ms = (time.perf_counter() - analysis_started) * 1000
        notices: list[str] = []
        retrieval: RetrievalResult | None
        try:
            retrieval = retrieval_future.result()
        except AriaMemError as exc:  # the retriever degrades itself; this is a last guard
            retrieval = None
            notices.append(f"memories skipped: {exc}")
        if retrieval is not None and retrieval.degraded:
            notices.extend(retrieval.degraded)
        parts = PromptParts(
            system=self._settings.system_prompt,
            profile=[_record(r) for r in retrieval.selection.profile] if retrieval else [],
            relevant=[_record(r) for r in retrieval.selection.relevant] if retrieval else [],
            knowledge=[(item.title or item.source, item.text) for item, _ in retrieval.knowledge]
            if retrieval
            else [],
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
        turn = PreparedTurn(
            message,
            retrieval,
            prompt,
            target,
            notices,
            {
                "analysis": round(analysis_ms, 3),
                "retrieval": retrieval.timings_ms.get("total", 0.0) if retrieval else 0.0,
                "prepare": round((time.perf_counter() - started) * 1000, 3),
            },
        )
        self.last = turn
        if self._writer is not None and self._settings.extract_memories == "on":
            stage = retrieval.stage if retrieval else Stage.EARLY
            self._extract(message, target, stage)
        return turn

    def reply(self, turn: PreparedTurn) -> Generator[str, None, None]:
        """Stream the reply; the whole reply is stored when it ends (also if it is stopped
        early). A chat-model failure raises ChatModelError."""
        pieces: list[str] = []
        try:
            for piece in self._model.stream(turn.prompt.messages):
                pieces.append(piece)
                yield piece
        finally:
            text = "".join(pieces).strip()
            if text:
                self._keep("assistant", text)

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
                self.conversation_id = self._store.open_conversation(
                    self.user_id, self.companion_id
                )
            self._store.add_turns(self.conversation_id, list(self._outbox))
        except ServiceError as exc:
            log.warning("could not store %d turn(s) yet: %s", len(self._outbox), exc)
            return False
        self._outbox.clear()
        return True

    @property
    def unsaved_turns(self) -> int:
        return len(self._outbox)

    # -- memories from conversation ------------------------------------------------------

    def _extract(self, message: str, target: str | None, stage: Stage) -> None:
        writer = self._writer
        assert writer is not None

        def work() -> None:
            try:
                raw = self._model.complete(
                    extraction.request(message, target), json_schema=extraction.SCHEMA
                )
                for fact in extraction.parse(raw):
                    held = Stage.ESTABLISHED if fact.sensitive and stage is Stage.EARLY else None
                    writer.remember(
                        NewMemory(
                            user_id=self.user_id,
                            companion_id=self.companion_id,
                            text=fact.text,
                            type=fact.type,
                            importance=fact.importance,
                            emotional_significance=fact.emotional_significance,
                            confidence=fact.confidence,
                            reason=fact.reason,
                            held_until_stage=held,
                        )
                    )
            except AriaMemError as exc:
                log.warning("memory extraction skipped: %s", exc)

        self._background.run(work)

    def wait_for_background(self) -> None:
        self._background.wait()
        self._retriever.flush()

    def close(self) -> None:
        self.wait_for_background()
        self.flush_outbox()
        self._pool.shutdown(wait=False, cancel_futures=True)


def _record(ranked: object) -> PromptRecord:
    memory = ranked.memory  # type: ignore[attr-defined]
    return PromptRecord(memory.type.value, memory.text, memory.confidence)
