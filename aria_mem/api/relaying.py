"""A conversation that another chat app keeps: the app sends its whole conversation with every
request (the OpenAI chat-completions way), and aria-mem puts the memories in front of the chat
model on its way through.

The trip is the seed's, with the app's messages as the conversation: the last two user
messages make the query; the profile, relevant-memory and knowledge sections (labelled as
data) join the app's system message, or make one; the budget trims as `chat`'s does
(knowledge first, then the app's oldest turns, then the lowest-ranked memories, then the
profile; the app's system message and last message stay) until the prompt fits the model's
window. A memory failure never fails the request: the reply goes on
without memories, and the log says why. After the reply (``Relay.finish``, called off the
reply's path): the memories that reached the model are counted as used, the user's message
and the reply are kept in the pair's conversation log as `chat` keeps them, and facts are
extracted with the chat model.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from aria_mem import config
from aria_mem.api.context import Context
from aria_mem.domain.budget import FittedPrompt, PromptParts, Turn, fit, reached_model
from aria_mem.domain.prompt import PromptSections
from aria_mem.domain.retrieval import SearchResult
from aria_mem.domain.validation import plain_text
from aria_mem.errors import AriaMemError, ServiceError, ValidationError
from aria_mem.ports import ChatModel

if TYPE_CHECKING:
    from aria_mem.api.facade import AriaMem

log = logging.getLogger(__name__)

ROLES = frozenset({"system", "user", "assistant"})

Extract = Callable[[Sequence[Turn], str, str], object]
"""Facts from a conversation, for a user and companion, remembered (``AriaMem.extract``)."""


@dataclass(frozen=True)
class Relay:
    """One request of a chat app, prepared: what the chat model will receive and the memories
    in it. ``stream()`` asks the model; ``finish(reply)`` does what follows a reply."""

    user_id: str
    companion_id: str
    conversation: tuple[Turn, ...]
    """The app's messages, as it sent them."""
    messages: tuple[dict[str, str], ...]
    """What the chat model receives: the app's messages with the memory sections in the
    system message, fitted into the model's window."""
    retrieval: SearchResult | None
    """None when the memories could not be asked for at all."""
    prompt: FittedPrompt
    model_name: str
    """The chat model, as ``provider/name``."""
    _model: ChatModel
    _context: Context
    _extract: Extract

    @property
    def degraded(self) -> tuple[str, ...]:
        """What part of the memories was skipped, and why; empty when nothing was."""
        if self.retrieval is None:
            return ("memories skipped",)
        return self.retrieval.degraded

    def used_memory_ids(self) -> list[uuid.UUID]:
        """The memories that reached the model: those the budget did not trim."""
        return reached_model(self.retrieval, self.prompt.trimmed)

    def stream(self) -> Generator[str, None, None]:
        """The model's reply, piece by piece, as the model gives it. ChatModelError when the
        model server fails (ChatModelMissingError: it has no such model). Closing the
        iterator stops the generation."""
        yield from self._model.stream(list(self.messages))

    def _new_user_message(self) -> list[str]:
        """The user's message this request answers: the last one, unless the companion has
        already spoken after it (an app continuing a reply, whose message was kept before).
        System messages after it (an app's closing instructions) do not count."""
        for turn in reversed(self.conversation):
            if turn.role != "system":
                return [turn.content] if turn.role == "user" else []
        return []

    def finish(self, reply: str) -> None:
        """After a reply: count the memories it was given, keep the user's message and the
        reply in the conversation log, extract facts from the conversation. Slow (a model
        call) and never raises: call it off the reply's path. Nothing is kept for an empty
        reply (a request that failed or was stopped before a word)."""
        reply = reply.strip()
        if not reply:
            return
        context = self._context
        used = self.used_memory_ids()
        try:
            if used:
                context.store.reads.record_use(used)
            log_ = context.store.conversations
            conversation = log_.open_conversation(self.user_id, self.companion_id)
            now = datetime.now(UTC)
            said = [("user", text, now) for text in self._new_user_message()]
            log_.add_turns(conversation, [*said, ("assistant", reply, now)])
        except ServiceError as exc:
            log.warning("the reply's turns and uses were not kept: %s", exc)
        if not context.settings.chat.extract_memories:
            return
        try:
            self._extract(
                [*self.conversation, Turn("assistant", reply)], self.user_id, self.companion_id
            )
        except AriaMemError as exc:
            log.warning("memory extraction skipped: %s", exc)


def relay(
    memory: AriaMem,
    conversation: Sequence[Turn],
    *,
    user: str | None = None,
    companion: str | None = None,
    model: str | None = None,
) -> Relay:
    """A chat app's whole conversation (its system message, earlier turns and the user's
    message, as OpenAI's chat completions send it), prepared for the chat model (``model``:
    another than the configured one on the same server) with the memories of the user and
    companion (the config's identity unless given) in its system message, within the model's
    window. ``stream()`` the reply from the result, then ``finish(reply)`` off the reply's
    path. A memory failure never raises (``Relay.degraded`` says what was skipped); a
    conversation aria-mem cannot pass on (no user message, an unknown role, a message too
    long) is a ValidationError.

        relayed = relay(memory, [Turn("user", "Any ideas for dinner?")], user="sam")
        reply = "".join(relayed.stream())
        relayed.finish(reply)
    """
    context = memory._context  # the API's own modules share it
    user_id, companion_id = context.scope(user, companion)

    def extract(turns: Sequence[Turn], user_id: str, companion_id: str) -> object:
        return memory.extract(turns, user=user_id, companion=companion_id)

    turns = _checked(conversation)
    chat_model, chat_settings = _chat_model(context, model)
    users = [t.content for t in turns if t.role == "user" and t.content.strip()]
    retrieval: SearchResult | None
    try:
        retrieval = context.retrieve(
            user_id, companion_id, users[-1], users[-2] if len(users) > 1 else None
        )
    except AriaMemError as exc:  # the retriever degrades itself; this is a last guard
        log.warning("replying without memories: %s", exc)
        retrieval = None
    if retrieval is not None and retrieval.degraded:
        log.warning("memories degraded: %s", "; ".join(retrieval.degraded))
    leading = 0
    while leading < len(turns) and turns[leading].role == "system":
        leading += 1
    last = turns[-1]
    window = chat_settings.context_window
    model_window = chat_model.context_length()
    if model_window:
        window = min(window, model_window)
    parts = PromptParts(
        system="\n\n".join(t.content for t in turns[:leading]),
        sections=retrieval.sections if retrieval else PromptSections(),
        history=turns[leading:-1] if leading < len(turns) else (),
        message=last.content,
    )
    prompt = fit(parts, window - chat_settings.reply_reserve)
    messages = [dict(m) for m in prompt.messages]
    if not messages[0]["content"]:
        messages.pop(0)  # neither the app nor the memories had anything to say there
    messages[-1]["role"] = last.role
    return Relay(
        user_id=user_id,
        companion_id=companion_id,
        conversation=turns,
        messages=tuple(messages),
        retrieval=retrieval,
        prompt=prompt,
        model_name=chat_model.model_name,
        _model=chat_model,
        _context=context,
        _extract=extract,
    )


MAX_MESSAGE_CHARS = 50_000
"""As in `chat`: what a person writes in one go; a local model's window holds no more."""


def _checked(conversation: Sequence[Turn]) -> tuple[Turn, ...]:
    turns = tuple(conversation)
    if not turns:
        raise ValidationError("The conversation is empty — send at least one user message")
    for n, turn in enumerate(turns):
        if turn.role not in ROLES:
            raise ValidationError(
                f"Message {n} has the role {turn.role!r}; aria-mem passes on "
                f"{', '.join(sorted(ROLES))} messages only"
            )
        if len(turn.content) > MAX_MESSAGE_CHARS:
            raise ValidationError(
                f"Message {n} is {len(turn.content):,} characters; at most "
                f"{MAX_MESSAGE_CHARS:,} go in one message — shorten it"
            )
        if turn.role == "user":  # searched and kept: no NUL, no lone surrogate
            plain_text(f"Message {n}", turn.content)
    if not any(t.role == "user" and t.content.strip() for t in turns):
        raise ValidationError("The conversation has no user message — send at least one")
    return turns


def _chat_model(context: Context, name: str | None) -> tuple[ChatModel, config.ChatSettings]:
    """The configured chat model, or the one called ``name`` on the same server (built once
    per name and kept)."""
    settings = context.settings
    if name is None or name == settings.chat.model:
        return context.chat_model, settings.chat
    if not name.strip() or len(name) > 200 or any(ch.isspace() or ord(ch) < 32 for ch in name):
        raise ValidationError(f"{name[:200]!r} is not a model name — e.g. llama3.2")
    overridden = config.with_overrides(settings, chat={"model": name})

    def build() -> ChatModel:
        from aria_mem.wiring import build_chat_model

        return build_chat_model(overridden)

    return context.service(f"chat-model:{name}", build), overridden.chat
