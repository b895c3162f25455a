"""The endpoint's ASGI app: ``GET /v1/models`` and ``POST /v1/chat/completions``, behind the
Host check and the bearer gate.

A request is bounded before it costs anything: at most ``Limits.concurrent`` are answered at
once (one more gets 429 at once), its body is read up to ``Limits.max_body``, its messages are
counted and measured, and its reply may take ``Limits.reply_seconds``. The work that blocks
(retrieval, the model's pieces, what follows a reply) runs in worker threads, so one slow
model never stops the others being answered. The model's first piece is awaited before the
answer starts, so a model server that is down is an OpenAI-shaped error with its status (502;
404 for a model it does not have); one that fails later, once a stream has begun, ends the
stream with an error event before ``[DONE]``.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import AsyncIterator, Generator
from typing import Any

import anyio.to_thread
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from aria_mem.api import AriaMem, Relay, relay
from aria_mem.errors import AriaMemError, ChatModelError, ChatModelMissingError, UsageError
from aria_mem.mcp_guard import ASGIApp, BearerGate, Receive, Scope, Send, respond
from aria_mem.openai_server import protocol
from aria_mem.openai_server.protocol import Ask, BadRequest, Limits, Reply

log = logging.getLogger(__name__)

Pieces = Generator[str, None, None]
"""The model's reply, piece by piece; closing it stops the generation."""

REFUSAL = json.dumps(
    protocol.error_body(
        "aria-mem's endpoint wants Authorization: Bearer <key> (the app's API key field) — "
        "`aria-mem serve --print-config` prints the base URL and key",
        "invalid_request_error",
        "invalid_api_key",
    )
).encode()


class Endpoint:
    """The endpoint for one AriaMem; ``user`` and ``companion`` are who a request is for
    when it does not say. ``wait()`` waits for the work that follows replies."""

    def __init__(self, memory: AriaMem, *, user: str, companion: str, limits: Limits) -> None:
        self._memory = memory
        self._user = user
        self._companion = companion
        self.limits = limits
        self._busy = 0
        self._after: list[threading.Thread] = []
        self._lock = threading.Lock()

    def app(self, token: str, hosts: frozenset[str] | None) -> ASGIApp:
        """The app behind its guards; ``hosts``: the Host values it answers (None: any)."""
        routes = [
            Route("/v1/models", self.models, methods=["GET"]),
            Route("/v1/chat/completions", self.completions, methods=["POST"]),
        ]
        handlers = {HTTPException: _http_error, Exception: _unexpected}
        app = Starlette(routes=routes, exception_handlers=handlers)
        return HostCheck(BearerGate(app, token, REFUSAL), hosts)

    async def models(self, request: Request) -> Response:
        settings = self._memory.settings
        return JSONResponse(protocol.models(settings.chat.model, self._companion))

    async def completions(self, request: Request) -> Response:
        if self._busy >= self.limits.concurrent:
            return _error(
                BadRequest(
                    429,
                    f"aria-mem is answering {self._busy} requests already, its limit — "
                    "try again when one is done",
                    kind="rate_limit_error",
                    code="too_many_requests",
                )
            )
        self._busy += 1
        handed_on = False
        try:
            raw = await _body(request, self.limits.max_body)
            headers = {k.lower(): v for k, v in request.headers.items()}
            ask = protocol.read_ask(raw, headers, self.limits)
            relayed = await anyio.to_thread.run_sync(self._prepare, ask)
            pieces = relayed.stream()
            deadline = time.monotonic() + self.limits.reply_seconds
            try:
                first = await anyio.to_thread.run_sync(_next, pieces)
            except ChatModelError as exc:
                pieces.close()
                raise _model_failed(exc) from None
            if ask.stream:
                handed_on = True
                streamed = _Streamed(self, ask, relayed, pieces, deadline)
                return _Stream(streamed, first)
            return await self._whole(ask, relayed, pieces, first, deadline)
        except BadRequest as exc:
            return _error(exc)
        finally:
            if not handed_on:
                self.release()

    def _prepare(self, ask: Ask) -> Relay:
        try:
            return relay(
                self._memory,
                ask.conversation,
                user=ask.user or self._user,
                companion=ask.companion or self._companion,
                model=ask.chat_model,
            )
        except UsageError as exc:
            raise BadRequest(400, str(exc)) from None
        except AriaMemError as exc:  # a memory failure degrades; this is what is left
            log.warning("the request could not be prepared: %s", exc)
            raise BadRequest(503, str(exc), kind="server_error", code="unavailable") from None

    async def _whole(
        self, ask: Ask, relayed: Relay, pieces: Pieces, first: str | None, deadline: float
    ) -> Response:
        text: list[str] = [first] if first else []
        try:
            while first is not None:
                if time.monotonic() > deadline:
                    raise _too_long(self.limits)
                try:
                    first = await anyio.to_thread.run_sync(_next, pieces)
                except ChatModelError as exc:
                    raise _model_failed(exc) from None
                if first is not None:
                    text.append(first)
        finally:
            pieces.close()
            self.after_reply(relayed, "".join(text))
        prompt_chars = sum(len(m["content"]) for m in relayed.messages)
        return JSONResponse(Reply(ask.model).whole("".join(text), prompt_chars))

    def after_reply(self, relayed: Relay, text: str) -> None:
        """What follows a reply, in a thread of its own: the reply is never delayed for it."""
        thread = threading.Thread(target=relayed.finish, args=(text,), name="aria-mem-relayed")
        with self._lock:
            self._after = [t for t in self._after if t.is_alive()] + [thread]
        thread.start()

    def release(self) -> None:
        """A request is answered: its place is free."""
        self._busy -= 1

    def wait(self) -> None:
        """Wait for the work that follows replies (uses, turns, extraction)."""
        with self._lock:
            threads, self._after = self._after, []
        for thread in threads:
            thread.join()


class _Streamed:
    """One streamed reply and what must happen once it ends, however it ends (done, failed,
    or the app hung up, even before the first event)."""

    def __init__(
        self, endpoint: Endpoint, ask: Ask, relayed: Relay, pieces: Pieces, deadline: float
    ) -> None:
        self._endpoint = endpoint
        self._reply = Reply(ask.model)
        self._usage = ask.usage
        self._relayed = relayed
        self._pieces = pieces
        self._deadline = deadline
        self._text: list[str] = []
        self._ended = False

    async def events(self, first: str | None) -> AsyncIterator[bytes]:
        """The role, each piece as the model gave it, the stop, ``[DONE]``; a failure once
        begun is an error event before ``[DONE]``."""
        reply = self._reply
        try:
            yield reply.chunk({"role": "assistant", "content": ""})
            piece = first
            while piece is not None:
                self._text.append(piece)
                yield reply.chunk({"content": piece})
                if time.monotonic() > self._deadline:
                    raise _too_long(self._endpoint.limits)
                piece = await anyio.to_thread.run_sync(_next, self._pieces)
            yield reply.chunk({}, finish="stop")
            if self._usage:
                prompt_chars = sum(len(m["content"]) for m in self._relayed.messages)
                yield reply.usage(prompt_chars, len("".join(self._text)))
        except ChatModelError as exc:
            yield protocol.event(_model_failed(exc).body())
        except BadRequest as exc:
            yield protocol.event(exc.body())
        yield protocol.DONE

    def end(self) -> None:
        """No await here: this also runs as the answer is cancelled."""
        if self._ended:
            return
        self._ended = True
        self._pieces.close()
        self._endpoint.after_reply(self._relayed, "".join(self._text))
        self._endpoint.release()


class _Stream(StreamingResponse):
    def __init__(self, streamed: _Streamed, first: str | None) -> None:
        super().__init__(streamed.events(first), media_type="text/event-stream")
        self._streamed = streamed

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self._streamed.end()


def _next(pieces: Pieces) -> str | None:
    return next(pieces, None)


def _model_failed(exc: ChatModelError) -> BadRequest:
    log.warning("the chat model failed: %s", exc)
    if isinstance(exc, ChatModelMissingError):
        return BadRequest(404, str(exc), code="model_not_found", param="model")
    return BadRequest(502, str(exc), kind="server_error", code="model_server_unavailable")


def _too_long(limits: Limits) -> BadRequest:
    return BadRequest(
        504,
        f"The reply took longer than {limits.reply_seconds:g} s, aria-mem's limit — ask for a "
        "shorter reply, or use a faster model",
        kind="server_error",
        code="timeout",
    )


async def _body(request: Request, limit: int) -> bytes:
    too_big = BadRequest(
        413,
        f"The request is larger than {limit:,} bytes, aria-mem's limit — send the recent "
        "part of the conversation",
        code="request_too_large",
    )
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise too_big
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise too_big
        chunks.append(chunk)
    return b"".join(chunks)


def _error(exc: BadRequest) -> Response:
    return JSONResponse(exc.body(), status_code=exc.status)


async def _http_error(request: Request, exc: Exception) -> Response:
    """Starlette's own refusals (no such path, wrong method) in OpenAI's shape."""
    status = exc.status_code if isinstance(exc, HTTPException) else 500
    return _error(
        BadRequest(
            status,
            f"{request.method} {request.url.path} is not served here — aria-mem serves "
            "POST /v1/chat/completions and GET /v1/models",
            code="not_found" if status == 404 else "method_not_allowed",
        )
    )


async def _unexpected(request: Request, exc: Exception) -> Response:
    """A fault of aria-mem's own: the app gets OpenAI's shape and no traceback; the log gets
    the traceback (Starlette raises it on to the server, which logs it)."""
    return _error(
        BadRequest(
            500,
            f"aria-mem failed ({type(exc).__name__}) — its log has the details",
            kind="server_error",
            code="internal_error",
        )
    )


class HostCheck:
    """A request whose Host is not the address the server listens on is refused: a web page
    that renamed itself to 127.0.0.1 (DNS rebinding) has no business here."""

    def __init__(self, app: ASGIApp, hosts: frozenset[str] | None) -> None:
        self._app = app
        self._hosts = hosts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and self._hosts is not None:
            given = [bytes(v) for k, v in scope.get("headers", ()) if k.lower() == b"host"]
            host = given[0].decode("latin-1").lower() if len(given) == 1 else ""
            if host not in self._hosts:
                body: dict[str, Any] = protocol.error_body(
                    f"The Host {host!r} is not this server's address — use the base URL "
                    "`aria-mem serve --print-config` prints",
                    "invalid_request_error",
                    "wrong_host",
                )
                await respond(send, 421, "application/json", json.dumps(body).encode())
                return
        await self._app(scope, receive, send)
