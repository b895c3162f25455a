"""What crosses the socket: a chat-completions request read into a checked ``Ask``, and the
replies, chunks and errors in the shapes OpenAI's clients read. No I/O.

Who is talking, per request:
- the user: the request's ``user`` field, else the ``X-Aria-Mem-User`` header, else the
  identity the server was started with;
- the companion: the part of ``model`` before an ``@`` (``aria@llama3.2``), else the
  ``X-Aria-Mem-Companion`` header, else the server's;
- the chat model: the part of ``model`` after the ``@`` (or all of it); empty, or the name
  the server lists for its own default (``aria-mem``), means the configured one.
"""

from __future__ import annotations

import json
import time
import uuid
from dataclasses import dataclass
from typing import Any

from aria_mem.api import Turn

DEFAULT_MODEL = "aria-mem"
"""The model name that means "the configured chat model"; listed by /v1/models."""

USER_HEADER = "x-aria-mem-user"
COMPANION_HEADER = "x-aria-mem-companion"


@dataclass(frozen=True)
class Limits:
    """What one request may ask of the server; a request past one gets a 4xx naming it."""

    max_body: int = 4 * 1024 * 1024
    max_messages: int = 1000
    max_message_chars: int = 50_000
    concurrent: int = 4
    """Requests being answered at once; one more gets 429 at once."""
    reply_seconds: float = 600.0
    """The longest a reply may take from the request to its last piece."""


class BadRequest(Exception):
    """A request aria-mem cannot answer: its status, OpenAI's error type and code, the
    parameter at fault, and a message naming the problem and the fix."""

    def __init__(
        self,
        status: int,
        message: str,
        *,
        kind: str = "invalid_request_error",
        code: str | None = None,
        param: str | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.kind = kind
        self.code = code
        self.param = param

    def body(self) -> dict[str, Any]:
        return error_body(self.message, self.kind, self.code, self.param)


def error_body(
    message: str, kind: str, code: str | None = None, param: str | None = None
) -> dict[str, Any]:
    """OpenAI's error shape: ``{"error": {"message", "type", "param", "code"}}``."""
    return {"error": {"message": message, "type": kind, "param": param, "code": code}}


@dataclass(frozen=True)
class Ask:
    """A checked chat-completions request."""

    conversation: tuple[Turn, ...]
    stream: bool
    model: str
    """As the app named it: the name every reply repeats."""
    chat_model: str | None
    """The chat model to use; None for the configured one."""
    user: str | None
    companion: str | None
    usage: bool = False
    """A streamed reply ends with a chunk of token counts (``stream_options.include_usage``)."""


def read_ask(raw: bytes, headers: dict[str, str], limits: Limits) -> Ask:
    """The request in ``raw`` (JSON), or BadRequest naming what is wrong with it."""
    try:
        body = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BadRequest(400, f"The body is not JSON ({exc}) — send a JSON object") from None
    except RecursionError:  # was a 500, with a traceback in the log
        raise BadRequest(400, "The body nests too deep — send a chat request") from None
    if not isinstance(body, dict):
        raise BadRequest(400, 'The body is not a JSON object — send {"model", "messages"}')
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise BadRequest(400, "messages must be a non-empty list", param="messages")
    if len(messages) > limits.max_messages:
        raise BadRequest(
            400,
            f"{len(messages)} messages; at most {limits.max_messages} are taken — send the "
            "recent part of the conversation",
            param="messages",
        )
    conversation = tuple(_turn(n, m, limits) for n, m in enumerate(messages))
    for unsupported in ("tools", "functions"):
        if body.get(unsupported):
            raise BadRequest(
                400,
                f"{unsupported} are not supported by aria-mem's endpoint — turn them off in "
                "the app, or talk to the model server directly for tool calls",
                param=unsupported,
            )
    if body.get("n", 1) not in (1, None):
        raise BadRequest(400, "n must be 1: aria-mem gives one reply per request", param="n")
    stream = body.get("stream", False)
    if not isinstance(stream, bool | None):
        raise BadRequest(400, "stream must be true or false", param="stream")
    model = body.get("model", DEFAULT_MODEL)
    if not isinstance(model, str) or len(model) > 300:
        raise BadRequest(400, "model must be a string, e.g. aria@llama3.2", param="model")
    companion, sep, chat_model = model.rpartition("@")
    options = body.get("stream_options")
    usage = isinstance(options, dict) and options.get("include_usage") is True
    user = body.get("user")
    if user is not None and not isinstance(user, str):
        raise BadRequest(400, "user must be a string", param="user")
    return Ask(
        conversation=conversation,
        stream=bool(stream),
        model=model,
        chat_model=chat_model if chat_model and chat_model != DEFAULT_MODEL else None,
        user=user or headers.get(USER_HEADER) or None,
        companion=(companion if sep else None) or headers.get(COMPANION_HEADER) or None,
        usage=usage,
    )


def _turn(n: int, message: Any, limits: Limits) -> Turn:
    where = f"messages[{n}]"
    if not isinstance(message, dict):
        raise BadRequest(400, f"{where} is not an object with role and content", param=where)
    role = message.get("role")
    if role == "developer":  # OpenAI's newer name for the system message
        role = "system"
    if role not in ("system", "user", "assistant"):
        raise BadRequest(
            400,
            f"{where} has the role {role!r}; aria-mem passes on system, user and assistant "
            "messages only",
            param=f"{where}.role",
        )
    content = _text(message.get("content"), where)
    if len(content) > limits.max_message_chars:
        raise BadRequest(
            400,
            f"{where} is {len(content):,} characters; at most {limits.max_message_chars:,} "
            "are taken in one message — shorten it",
            param=f"{where}.content",
        )
    return Turn(role, content)


def _text(content: Any, where: str) -> str:
    """A message's text: a string, or the text parts of a list of parts."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        pieces = []
        for part in content:
            if not isinstance(part, dict) or part.get("type") != "text":
                kind = part.get("type") if isinstance(part, dict) else type(part).__name__
                raise BadRequest(
                    400,
                    f"{where} holds a {kind!r} part; aria-mem passes on text only",
                    param=f"{where}.content",
                )
            text = part.get("text")
            if not isinstance(text, str):
                raise BadRequest(400, f"{where} has a text part without text", param=where)
            pieces.append(text)
        return "\n".join(pieces)
    raise BadRequest(400, f"{where}.content must be a string or a list of text parts", param=where)


class Reply:
    """The pieces of one completion, in OpenAI's shapes: one id and creation time for all."""

    def __init__(self, model: str) -> None:
        self.model = model
        self.id = f"chatcmpl-{uuid.uuid4().hex}"
        self.created = int(time.time())

    def whole(self, text: str, prompt_chars: int) -> dict[str, Any]:
        return {
            "id": self.id,
            "object": "chat.completion",
            "created": self.created,
            "model": self.model,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": text},
                    "finish_reason": "stop",
                }
            ],
            "usage": _usage(prompt_chars, len(text)),
        }

    def usage(self, prompt_chars: int, reply_chars: int) -> bytes:
        """The last chunk of a stream that asked for usage: no choices, the counts."""
        data = {
            "id": self.id,
            "object": "chat.completion.chunk",
            "created": self.created,
            "model": self.model,
            "choices": [],
            "usage": _usage(prompt_chars, reply_chars),
        }
        return event(data)

    def chunk(self, delta: dict[str, str], finish: str | None = None) -> bytes:
        data = {
            "id": self.id,
            "object": "chat.completion.chunk",
            "created": self.created,
            "model": self.model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }
        return event(data)


def event(data: dict[str, Any]) -> bytes:
    """One server-sent event."""
    return b"data: " + json.dumps(data, ensure_ascii=False).encode() + b"\n\n"


DONE = b"data: [DONE]\n\n"


def _usage(prompt_chars: int, reply_chars: int) -> dict[str, int]:
    """Estimated as the budget estimates (a token per 3 characters): the model server's own
    counts do not come through the adapters."""
    prompt, completion = -(-prompt_chars // 3), -(-reply_chars // 3)
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }


def models(chat_model: str, companion: str) -> dict[str, Any]:
    """/v1/models: the configured model under the default name, and with the companion."""
    names = [DEFAULT_MODEL, f"{companion}@{chat_model}", chat_model]
    return {
        "object": "list",
        "data": [{"id": n, "object": "model", "created": 0, "owned_by": "aria-mem"} for n in names],
    }
