"""A chat model behind any server's OpenAI-compatible ``/v1`` API (Ollama, LM Studio, llama.cpp's
server, vLLM...), through the official ``openai`` client."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import Any, cast

import httpx
import openai
from openai.types.chat import ChatCompletionMessageParam
from openai.types.chat.completion_create_params import ResponseFormat

from aria_mem.adapters.model_servers import ServerGuard
from aria_mem.adapters.openai_client import DEFAULT_HOST, base_url, make_client, reason
from aria_mem.errors import ChatModelError, ChatModelMissingError

DEFAULT_PORT = 80
"""Only for the owner check of an address given without a port: ``base_url`` always gives a
scheme, so the port the client uses is the URL's own (80 or 443 when missing)."""
CONTEXT_FIELDS = ("context_length", "max_context_length", "max_model_len")
"""Where servers that say a model's context window put it in /v1/models (not OpenAI's own
fields: LM Studio's, vLLM's); none of them: unknown."""


class OpenAICompatibleChat:
    provider = "openai-compatible"

    def __init__(
        self,
        model: str,
        *,
        host: str = "",
        timeout: float = 120.0,
        num_ctx: int | None = None,
        trust_account: str = "",
    ) -> None:
        """``num_ctx`` is not sent: the OpenAI API has no such option (the server's own
        setting decides)."""
        self._model = model
        self._url = base_url(host or DEFAULT_HOST)
        self._timeout = timeout
        self._client: openai.OpenAI | None = None
        self._guard = ServerGuard("chat", self._url, DEFAULT_PORT, trust_account)
        self._context: int | None = None
        self._checked = False

    @property
    def model_name(self) -> str:
        return f"{self.provider}/{self._model}"

    def _ready(self) -> openai.OpenAI:
        self._guard.check(ChatModelError)
        if self._client is None:
            self._client = make_client(self._url, self._timeout, direct=self._guard.direct)
        return self._client

    def _fail(self, exc: Exception) -> ChatModelError:
        if isinstance(exc, openai.NotFoundError):
            return ChatModelMissingError(
                f"The server at {self._url} has no chat model '{self._model}' ({reason(exc)}) — "
                "load or pull it there, or set [chat] model in config.toml"
            )
        if isinstance(exc, openai.AuthenticationError | openai.PermissionDeniedError):
            return ChatModelError(
                f"The server at {self._url} refused aria-mem ({reason(exc)}): it asks for an "
                "API key, which aria-mem does not send — use a local server without one, or "
                "set [chat] provider to ollama or lmstudio"
            )
        if isinstance(exc, openai.APIStatusError | openai.APIResponseValidationError):
            return ChatModelError(f"The chat model at {self._url} failed: {reason(exc)}")
        self._guard.forget()  # not reached: whoever listens next is looked up afresh
        return ChatModelError(
            f"No chat model answered at {self._url} — start the server or set [chat] host "
            f"in config.toml to its OpenAI-compatible address, e.g. http://127.0.0.1:1234/v1 "
            f"({exc})"
        )

    def stream(self, messages: Sequence[dict[str, str]]) -> Iterator[str]:
        client = self._ready()
        try:
            with client.chat.completions.create(
                model=self._model,
                messages=_messages(messages),
                stream=True,
            ) as chunks:
                for chunk in chunks:
                    choice = chunk.choices[0] if chunk.choices else None
                    delta = getattr(choice, "delta", None)
                    content = getattr(delta, "content", None)
                    if isinstance(content, str) and content:
                        yield content
        except (openai.OpenAIError, httpx.HTTPError) as exc:
            raise self._fail(exc) from exc

    def complete(
        self, messages: Sequence[dict[str, str]], *, json_schema: dict[str, Any] | None = None
    ) -> str:
        client = self._ready()
        response_format: ResponseFormat | openai.Omit = openai.omit
        if json_schema is not None:
            response_format = {
                "type": "json_schema",
                "json_schema": {"name": _schema_name(json_schema), "schema": json_schema},
            }
        try:
            response = client.chat.completions.create(
                model=self._model,
                messages=_messages(messages),
                stream=False,
                response_format=response_format,
            )
        except (openai.OpenAIError, httpx.HTTPError) as exc:
            raise self._fail(exc) from exc
        message = getattr(response.choices[0], "message", None) if response.choices else None
        if message is None:
            raise ChatModelError(
                f"The server at {self._url} answered without OpenAI's chat completion — set "
                "[chat] host to its OpenAI-compatible address, e.g. http://127.0.0.1:1234/v1"
            )
        return str(message.content or "")

    def context_length(self) -> int | None:
        if not self._checked:
            try:
                self.check()
            except ChatModelError:
                return None
        return self._context

    def check(self) -> None:
        """The model is among those the server lists (a server that cannot list its models
        is taken at its word until the first reply says otherwise)."""
        client = self._ready()
        try:
            page = client.models.list()
        except openai.NotFoundError as exc:
            raise ChatModelError(
                f"{self._url} has no OpenAI-compatible /models ({reason(exc)}) — set [chat] "
                "host to the API's root, e.g. http://127.0.0.1:11434/v1"
            ) from exc
        except (openai.OpenAIError, httpx.HTTPError) as exc:
            raise self._fail(exc) from exc
        if not isinstance(page.data, list):
            raise ChatModelError(
                f"The server at {self._url} answered without OpenAI's model list — set [chat] "
                "host to its OpenAI-compatible address, e.g. http://127.0.0.1:1234/v1"
            )
        listed = {m.id: m for m in page.data if isinstance(getattr(m, "id", None), str)}
        found = listed.get(self._model)
        if found is None:
            known = ", ".join(sorted(listed)[:10]) or "none"
            raise ChatModelMissingError(
                f"The server at {self._url} has no chat model '{self._model}' (it lists: "
                f"{known}) — load or pull it there, or set [chat] model in config.toml"
            )
        extra = found.model_extra or {}
        value = next((extra[k] for k in CONTEXT_FIELDS if k in extra), None)
        self._context = value if isinstance(value, int) and value > 0 else None
        self._checked = True


def _messages(messages: Sequence[dict[str, str]]) -> list[ChatCompletionMessageParam]:
    """Our messages are already OpenAI's shape: role and content."""
    return cast(list[ChatCompletionMessageParam], list(messages))


def _schema_name(schema: dict[str, Any]) -> str:
    """The name OpenAI's response_format asks for (letters, digits, _ and -, at most 64)."""
    name = re.sub(r"[^A-Za-z0-9_-]", "_", str(schema.get("title") or "reply"))
    return name[:64] or "reply"
