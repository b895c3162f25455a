"""A chat model served by Ollama, through the official ``ollama`` client."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import httpx
import ollama

from aria_mem.adapters.model_servers import ServerGuard
from aria_mem.errors import ChatModelError, ChatModelMissingError

DEFAULT_HOST = "http://127.0.0.1:11434"
DEFAULT_PORT = 11434


class OllamaChat:
    provider = "ollama"

    def __init__(
        self,
        model: str,
        *,
        host: str = "",
        timeout: float = 120.0,
        num_ctx: int | None = None,
        trust_account: str = "",
    ) -> None:
        self._model = model
        self._num_ctx = num_ctx
        self._host = host or DEFAULT_HOST
        self._guard = ServerGuard("chat", self._host, DEFAULT_PORT, trust_account)
        direct = self._guard.direct  # no proxy between it and a server here
        self._client = ollama.Client(host=self._host, timeout=timeout, trust_env=not direct)
        self._context: int | None = None
        self._shown = False

    @property
    def model_name(self) -> str:
        return f"ollama/{self._model}"

    def _options(self) -> dict[str, int] | None:
        """``num_ctx`` no larger than the model's own context (asking a 2k model for 4k makes
        Ollama allocate for 4k and the model read past what it was trained on)."""
        if not self._num_ctx:
            return None
        model_window = self.context_length()
        return {"num_ctx": min(self._num_ctx, model_window or self._num_ctx)}

    def _fail(self, exc: Exception) -> ChatModelError:
        if isinstance(exc, ollama.ResponseError):
            if exc.status_code == 404:
                return ChatModelMissingError(
                    f"Ollama at {self._host} has no model '{self._model}' — "
                    f"run `ollama pull {self._model}` or set [chat] model"
                )
            return ChatModelError(f"Ollama at {self._host} failed: {exc.error}")
        self._guard.forget()  # not reached: whoever listens next is looked up afresh
        return ChatModelError(
            f"No chat model answered at {self._host} — start Ollama or set "
            f"[chat] in config.toml ({exc})"
        )

    def stream(self, messages: Sequence[dict[str, str]]) -> Iterator[str]:
        self._guard.check(ChatModelError)
        try:
            for chunk in self._client.chat(
                model=self._model, messages=list(messages), stream=True, options=self._options()
            ):
                content = chunk.message.content if chunk.message else None
                if content:
                    yield content
        except (ollama.ResponseError, ConnectionError, httpx.HTTPError) as exc:
            raise self._fail(exc) from exc

    def complete(
        self, messages: Sequence[dict[str, str]], *, json_schema: dict[str, Any] | None = None
    ) -> str:
        self._guard.check(ChatModelError)
        try:
            response = self._client.chat(
                model=self._model,
                messages=list(messages),
                stream=False,
                format=json_schema,
                options=self._options(),
            )
        except (ollama.ResponseError, ConnectionError, httpx.HTTPError) as exc:
            raise self._fail(exc) from exc
        return str(response.message.content or "")

    def context_length(self) -> int | None:
        if not self._shown:
            try:
                self.check()
            except ChatModelError:
                return None
        return self._context

    def check(self) -> None:
        self._guard.check(ChatModelError)
        try:
            info = self._client.show(self._model).modelinfo or {}
        except (ollama.ResponseError, ConnectionError, httpx.HTTPError) as exc:
            raise self._fail(exc) from exc
        arch = info.get("general.architecture")
        value = info.get(f"{arch}.context_length") if arch else None
        self._context = int(value) if value else None
        self._shown = True
