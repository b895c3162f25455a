"""Opening a chat session: the store (or, when an own PostgreSQL server is down, a store that
waits for it), the retriever, the writer and the chat model, put together for one user and
companion."""

from __future__ import annotations

from typing import TYPE_CHECKING

from aria_mem import config
from aria_mem.api.context import Context
from aria_mem.config import ChatSettings
from aria_mem.errors import StoreError
from aria_mem.ports import ChatModel

if TYPE_CHECKING:
    from aria_mem.services.chat import ChatSession


def open_chat(
    context: Context, user_id: str, companion_id: str, *, new: bool, model: str | None
) -> ChatSession:
    """A session with the configured chat model (``model`` for another). Without PostgreSQL
    an own server's chat goes on without memories (said in its first notice); the embedded
    server that cannot start is an error."""
    from aria_mem.services.chat import ChatSession

    offline = None
    try:
        context.store.ping()
    except StoreError as exc:
        if context.settings.embedded_postgres:
            raise  # the embedded server could not even start: nothing to go on with
        context.adapters.store_without_migrating()
        offline = (
            f"PostgreSQL is unreachable ({exc}): replies go on without memories, and "
            "turns are saved when it is back"
        )

    def model_named(name: str) -> tuple[ChatModel, ChatSettings]:
        from aria_mem.wiring import build_chat_model

        overridden = config.with_overrides(context.settings, chat={"model": name})
        return build_chat_model(overridden), overridden.chat

    chat_model, chat_settings = context.chat_model, context.settings.chat
    if model is not None:
        chat_model, chat_settings = model_named(model)
    session = ChatSession(
        conversations=context.store.conversations,
        reads=context.store.reads,
        retriever=context.retriever,
        chat_model=chat_model,
        writer=context.writer,
        settings=chat_settings,
        user_id=user_id,
        companion_id=companion_id,
        new_conversation=new,
        build_model=model_named,
    )
    if offline is not None:
        session.start_notices.insert(0, offline)
    return session
