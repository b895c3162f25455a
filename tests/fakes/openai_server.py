"""A small OpenAI-compatible server for tests: real HTTP on a real socket, so the official
``openai`` client is exercised as against Ollama's or LM Studio's ``/v1``. Speaks GET
/v1/models, POST /v1/embeddings and POST /v1/chat/completions (one JSON object, or SSE
``data:`` chunks ending with ``data: [DONE]``), with OpenAI's error shape; records each
request and can be told to fail."""

from __future__ import annotations

import json
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.fakes import vectors


@dataclass
class FakeOpenAIState:
    dim: int = 64
    models: set[str] = field(default_factory=lambda: {"mxbai-embed-large", "llama3.2"})
    embed: Callable[[str, int], list[float]] = vectors.embed
    requests: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    """(path, body) of every request, in order (a GET's body is empty)."""
    headers: list[dict[str, str]] = field(default_factory=list)
    """The headers of every request, names in lower case."""
    chat_reply: str = "Hello from the fake model."
    structured: Callable[[list[dict[str, Any]]], str] | None = None
    """The answer to a request with a response_format, from its messages; unset: chat_reply."""
    fail_with: int | None = None
    """Every POST answers this status with an OpenAI error body."""
    model_extra: dict[str, Any] = field(default_factory=dict)
    """Fields added to each model /v1/models lists (a server's own, e.g. context_length)."""
    reverse_embeddings: bool = False
    """Send the embeddings last first (the ``index`` field says the order)."""

    def bodies(self, path: str) -> list[dict[str, Any]]:
        return [body for p, body in self.requests if p == path]


def _error(message: str, code: str | None = None) -> dict[str, Any]:
    return {"error": {"message": message, "type": "invalid_request_error", "code": code}}


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        return

    def _send(self, status: int, body: Any) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _record(self, body: dict[str, Any]) -> None:
        self.server.state.requests.append((self.path, body))
        self.server.state.headers.append({k.lower(): v for k, v in self.headers.items()})

    def do_GET(self) -> None:
        self._record({})
        state = self.server.state
        if self.path == "/v1/models":
            listed = [
                {"id": m, "object": "model", "created": 0, "owned_by": "fake", **state.model_extra}
                for m in sorted(state.models)
            ]
            self._send(200, {"object": "list", "data": listed})
        else:
            self._send(404, _error(f"no route {self.path}"))

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body: dict[str, Any] = json.loads(self.rfile.read(length) or b"{}")
        self._record(body)
        state = self.server.state
        if state.fail_with is not None:
            self._send(state.fail_with, _error("fake failure"))
            return
        if self.path not in ("/v1/embeddings", "/v1/chat/completions"):
            self._send(404, _error(f"no route {self.path}"))
            return
        model = body.get("model", "")
        if model not in state.models:
            self._send(404, _error(f"model '{model}' not found", "model_not_found"))
            return
        if self.path == "/v1/embeddings":
            texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
            data = [
                {"object": "embedding", "index": i, "embedding": state.embed(t, state.dim)}
                for i, t in enumerate(texts)
            ]
            if state.reverse_embeddings:
                data.reverse()
            self._send(
                200,
                {
                    "object": "list",
                    "model": model,
                    "data": data,
                    "usage": {"prompt_tokens": len(texts), "total_tokens": len(texts)},
                },
            )
        else:
            self._chat(body)

    def _chat(self, body: dict[str, Any]) -> None:
        state = self.server.state
        if body.get("response_format") and state.structured is not None:
            reply = state.structured(body.get("messages", []))
        else:
            reply = state.chat_reply
        base = {"id": "chatcmpl-fake", "created": int(time.time()), "model": body["model"]}
        if not body.get("stream"):
            self._send(
                200,
                {
                    **base,
                    "object": "chat.completion",
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": reply},
                            "finish_reason": "stop",
                        }
                    ],
                    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
                },
            )
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        words = reply.split(" ")
        pieces = [w + (" " if i < len(words) - 1 else "") for i, w in enumerate(words)]
        deltas = [{"role": "assistant", "content": ""}] + [{"content": p} for p in pieces]
        for delta in deltas:
            self._event(
                {
                    **base,
                    "object": "chat.completion.chunk",
                    "choices": [{"index": 0, "delta": delta, "finish_reason": None}],
                }
            )
        self._event(
            {
                **base,
                "object": "chat.completion.chunk",
                "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
            }
        )
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()

    def _event(self, chunk: dict[str, Any]) -> None:
        self.wfile.write(b"data: " + json.dumps(chunk).encode() + b"\n\n")
        self.wfile.flush()


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, state: FakeOpenAIState) -> None:
        self.state = state
        super().__init__(("127.0.0.1", 0), _Handler)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hung up mid-reply is no error of the server's."""
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


class FakeOpenAI:
    """Start with ``with FakeOpenAI() as fake:``; ``fake.url`` is the ``/v1`` root to give
    clients, ``fake.host`` the server's address without it."""

    def __init__(self, state: FakeOpenAIState | None = None) -> None:
        self.state = state or FakeOpenAIState()
        self._server = _Server(self.state)
        self.host = f"http://127.0.0.1:{self._server.server_address[1]}"
        self.url = f"{self.host}/v1"
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    def __enter__(self) -> FakeOpenAI:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
