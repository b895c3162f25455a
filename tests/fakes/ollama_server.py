"""A small Ollama server for tests: real HTTP on a real socket, so the official ``ollama``
client is exercised as it is against Ollama. Speaks /api/embed, /api/tags, /api/show and
/api/chat (streamed NDJSON or one object), with the error shapes Ollama uses."""

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
class FakeOllamaState:
    dim: int = 64
    models: set[str] = field(
        default_factory=lambda: {"mxbai-embed-large", "nomic-embed-text", "llama3.2"}
    )
    embed: Callable[[str, int], list[float]] = vectors.embed
    embed_calls: list[list[str]] = field(default_factory=list)
    chat_requests: list[dict[str, Any]] = field(default_factory=list)
    chat_reply: str = "Hello from the fake model."
    structured_reply: str | None = None
    """The answer to a request for structured output (a JSON schema in ``format``), when set;
    otherwise such requests get ``chat_reply`` too."""
    structured: Callable[[list[dict[str, Any]]], str] | None = None
    """A scripted answer to each structured request, from its messages (a scripted judge);
    before ``structured_reply`` when set."""
    structured_delay: float = 0.0
    """Seconds before a structured answer (a judge that takes its time)."""
    context_length: int = 8192
    fail_embed_with: int | None = None
    model_dims: dict[str, int] = field(default_factory=dict)
    """Vector size per model, where it differs from ``dim``."""
    embed_delay: float = 0.0
    chat_delay: float = 0.0
    """Seconds between streamed chat chunks."""


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

    def _body(self) -> dict[str, Any]:
        length = int(self.headers.get("Content-Length") or 0)
        body: dict[str, Any] = json.loads(self.rfile.read(length) or b"{}")
        return body

    def _model_or_404(self, name: str) -> bool:
        state = self.server.state
        if name.split(":")[0] not in state.models:
            self._send(404, {"error": f"model '{name}' not found"})
            return False
        return True

    def do_GET(self) -> None:
        if self.path == "/api/tags":
            self._send(
                200,
                {
                    "models": [
                        {
                            "name": f"{m}:latest",
                            "model": f"{m}:latest",
                            "modified_at": "2026-01-01T00:00:00Z",
                            "size": 1,
                            "digest": "0" * 64,
                            "details": {"format": "gguf", "family": "fake"},
                        }
                        for m in sorted(self.server.state.models)
                    ]
                },
            )
        else:
            self._send(404, {"error": "not found"})

    def do_POST(self) -> None:
        body = self._body()
        state = self.server.state
        if self.path == "/api/embed":
            if state.fail_embed_with is not None:
                self._send(state.fail_embed_with, {"error": "fake failure"})
                return
            if not self._model_or_404(body.get("model", "")):
                return
            texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
            state.embed_calls.append(list(texts))
            if state.embed_delay:
                time.sleep(state.embed_delay)
            dim = state.model_dims.get(body["model"].split(":")[0], state.dim)
            self._send(
                200,
                {
                    "model": body["model"],
                    "embeddings": [state.embed(t, dim) for t in texts],
                    "total_duration": 1,
                    "load_duration": 1,
                    "prompt_eval_count": 1,
                },
            )
        elif self.path == "/api/show":
            if not self._model_or_404(body.get("model", "")):
                return
            self._send(
                200,
                {
                    "modelfile": "",
                    "parameters": "",
                    "template": "",
                    "details": {"family": "fake"},
                    "model_info": {
                        "general.architecture": "fake",
                        "fake.embedding_length": state.dim,
                        "fake.context_length": state.context_length,
                    },
                },
            )
        elif self.path == "/api/chat":
            if not self._model_or_404(body.get("model", "")):
                return
            state.chat_requests.append(body)
            self._chat(body)
        else:
            self._send(404, {"error": "not found"})

    def _chat(self, body: dict[str, Any]) -> None:
        state = self.server.state
        if body.get("format") and state.structured is not None:
            if state.structured_delay:
                time.sleep(state.structured_delay)
            reply: str | None = state.structured(body.get("messages", []))
        elif body.get("format") and state.structured_reply is not None:
            reply = state.structured_reply
        else:
            reply = state.chat_reply
        assert reply is not None
        if not body.get("stream", True):
            self._send(
                200,
                {
                    "model": body["model"],
                    "created_at": "2026-01-01T00:00:00Z",
                    "message": {"role": "assistant", "content": reply},
                    "done": True,
                    "done_reason": "stop",
                },
            )
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/x-ndjson")
        self.end_headers()
        for word in reply.split(" "):
            chunk = {
                "model": body["model"],
                "created_at": "2026-01-01T00:00:00Z",
                "message": {"role": "assistant", "content": word + " "},
                "done": False,
            }
            self.wfile.write(json.dumps(chunk).encode() + b"\n")
            self.wfile.flush()
            if state.chat_delay:
                time.sleep(state.chat_delay)
        final = {
            "model": body["model"],
            "created_at": "2026-01-01T00:00:00Z",
            "message": {"role": "assistant", "content": ""},
            "done": True,
            "done_reason": "stop",
            "eval_count": 1,
        }
        self.wfile.write(json.dumps(final).encode() + b"\n")


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, state: FakeOllamaState) -> None:
        self.state = state
        super().__init__(("127.0.0.1", 0), _Handler)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hung up mid-reply (a chat stopped with Ctrl-C) is no error of the
        server's; anything else is printed as socketserver does."""
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


class FakeOllama:
    """Start with ``with FakeOllama() as fake:``; ``fake.url`` is the host to give clients."""

    def __init__(self, state: FakeOllamaState | None = None) -> None:
        self.state = state or FakeOllamaState()
        self._server = _Server(self.state)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    def __enter__(self) -> FakeOllama:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


if __name__ == "__main__":
    import sys

    with FakeOllama(FakeOllamaState(dim=int(sys.argv[1]) if len(sys.argv) > 1 else 64)) as f:
        print(f.url, flush=True)
        while True:
            time.sleep(3600)
