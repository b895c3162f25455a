"""A chat model served by LM Studio, through the official ``lmstudio`` SDK."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator, Sequence
from typing import Any

import lmstudio

from aria_mem.adapters.embedders.lmstudio import DEFAULT_PORT, host_port
from aria_mem.adapters.model_servers import ServerGuard
from aria_mem.errors import ChatModelError, ChatModelMissingError


class LMStudioChat:
    provider = "lmstudio"

    def __init__(
        self,
        model: str,
        *,
        host: str = "",
        timeout: float = 120.0,
        num_ctx: int | None = None,
        trust_account: str = "",
    ) -> None:
        """``num_ctx`` is Ollama's; LM Studio sets a model's context when it loads it."""
        self._model = model
        self._host = host_port(host)
        self._timeout = timeout
        self._client: Any = None
        self._handle: Any = None
        self._guard = ServerGuard("chat", self._host, DEFAULT_PORT, trust_account)

    @property
    def model_name(self) -> str:
        return f"lmstudio/{self._model}"

    def _llm(self) -> Any:
        self._guard.check(ChatModelError)
        lmstudio.set_sync_api_timeout(self._timeout)
        if self._client is None:
            self._guard.keep_off_proxies()
            self._client = lmstudio.Client(self._host)
        if self._handle is None:
            self._handle = self._client.llm.model(self._model)
        return self._handle

    def _fail(self, exc: Exception) -> ChatModelError:
        self.close()
        self._guard.forget()
        if isinstance(exc, lmstudio.LMStudioModelNotFoundError):
            return ChatModelMissingError(
                f"LM Studio at {self._host} has no model '{self._model}' — "
                "load it in LM Studio or set [chat] model"
            )
        return ChatModelError(
            f"No chat model answered at {self._host} — start LM Studio's "
            f"server or set [chat] in config.toml ({exc})"
        )

    @staticmethod
    def _chat(messages: Sequence[dict[str, str]]) -> Any:
        chat = lmstudio.Chat()
        for m in messages:
            if m["role"] == "system":
                chat.add_system_prompt(m["content"])
            elif m["role"] == "assistant":
                chat.add_assistant_response(m["content"])
            else:
                chat.add_user_message(m["content"])
        return chat

    def stream(self, messages: Sequence[dict[str, str]]) -> Iterator[str]:
        try:
            stream = self._llm().respond_stream(self._chat(messages))
            for fragment in stream:
                if fragment.content:
                    yield fragment.content
        except (lmstudio.LMStudioError, OSError, TimeoutError) as exc:
            raise self._fail(exc) from exc

    def complete(
        self, messages: Sequence[dict[str, str]], *, json_schema: dict[str, Any] | None = None
    ) -> str:
        try:
            config = (
                {"structured": {"type": "json", "jsonSchema": json_schema}} if json_schema else None
            )
            result = self._llm().respond(self._chat(messages), config=config)
        except (lmstudio.LMStudioError, OSError, TimeoutError) as exc:
            raise self._fail(exc) from exc
        parsed = getattr(result, "parsed", None)
        if json_schema and isinstance(parsed, dict):
            return json.dumps(parsed)
        return str(result.content)

    def context_length(self) -> int | None:
        try:
            return int(self._llm().get_context_length())
        except (
            ChatModelError,
            lmstudio.LMStudioError,
            OSError,
            TimeoutError,
            TypeError,
            ValueError,
        ):
            return None

    def check(self) -> None:
        try:
            self._llm()
        except (lmstudio.LMStudioError, OSError, TimeoutError) as exc:
            raise self._fail(exc) from exc

    def close(self) -> None:
        if self._client is not None:
            with contextlib.suppress(lmstudio.LMStudioError, OSError):
                self._client.close()
        self._client = self._handle = None
