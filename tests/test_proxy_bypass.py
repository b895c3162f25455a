"""A proxy the environment names (HTTP_PROXY, HTTPS_PROXY, ALL_PROXY) never stands between
aria-mem and a model server or Qdrant on this machine: every HTTP library the adapters use
took it from the environment, so a memory's text, a prompt or the index's vectors and API key
went to whatever listened there (another account's program, or another machine), while the
port guard had checked the server's own address. Each adapter is run here, through its real
client library, against its fake server on loopback with a recording "proxy" named in every
proxy variable; the proxy must see no connection, and a plain client must (so the proxy is
live)."""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Callable, Iterator

import httpx
import pytest

from aria_mem.adapters.chat.lmstudio import LMStudioChat
from aria_mem.adapters.chat.ollama import OllamaChat
from aria_mem.adapters.chat.openai_compatible import OpenAICompatibleChat
from aria_mem.adapters.embedders.lmstudio import LMStudioEmbedder
from aria_mem.adapters.embedders.ollama import OllamaEmbedder
from aria_mem.adapters.embedders.openai_compatible import OpenAICompatibleEmbedder
from aria_mem.adapters.qdrant_server import QdrantServerIndex
from tests.fakes.lmstudio_server import FakeLMStudio
from tests.fakes.ollama_server import FakeOllama
from tests.fakes.openai_server import FakeOpenAI
from tests.fakes.qdrant_rest import FakeQdrant

MESSAGES = [{"role": "user", "content": "The user's secret: her PIN is 4921."}]


class Proxy:
    """A listener that records every connection and what came first on it, and answers
    nothing (a real proxy would forward: what matters is that it got the request)."""

    def __init__(self) -> None:
        self._socket = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self._socket.getsockname()[1]}"
        self.seen: list[bytes] = []
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                connection, _ = self._socket.accept()
            except OSError:
                return
            with connection:
                connection.settimeout(2)
                try:
                    self.seen.append(connection.recv(200))
                except OSError:
                    self.seen.append(b"")

    def close(self) -> None:
        self._socket.close()


@pytest.fixture
def proxy(monkeypatch: pytest.MonkeyPatch) -> Iterator[Proxy]:
    """Named in every proxy variable, upper and lower case; NO_PROXY names another host (the
    test restores whatever an adapter adds to it and to no_proxy)."""
    recording = Proxy()
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
        monkeypatch.setenv(name, recording.url)
        monkeypatch.setenv(name.lower(), recording.url)
    monkeypatch.setenv("NO_PROXY", "example.invalid")  # upper case only, as many set it
    monkeypatch.setenv("no_proxy", "")
    monkeypatch.delenv("no_proxy")
    yield recording
    recording.close()


def _the_proxy_is_live(proxy: Proxy, url: str) -> None:
    """A client that takes proxies from the environment reaches the proxy, not ``url``."""
    before = len(proxy.seen)
    with pytest.raises(httpx.HTTPError):
        httpx.get(url, timeout=2)
    assert len(proxy.seen) == before + 1


def test_ollama_and_openai_compatible_servers_here_are_reached_without_the_proxy(
    proxy: Proxy,
) -> None:
    with FakeOllama() as ollama, FakeOpenAI() as openai_server:
        _the_proxy_is_live(proxy, ollama.url)
        calls: list[Callable[[], object]] = [
            lambda: OllamaEmbedder("nomic-embed-text", host=ollama.url).embed_query("secret"),
            lambda: OllamaChat("llama3.2", host=ollama.url).complete(MESSAGES),
            lambda: OpenAICompatibleEmbedder(
                "mxbai-embed-large", host=openai_server.url
            ).embed_query("secret"),
            lambda: OpenAICompatibleChat("llama3.2", host=openai_server.url).complete(MESSAGES),
        ]
        seen = len(proxy.seen)
        for call in calls:
            assert call()
        assert len(proxy.seen) == seen, proxy.seen
        assert ollama.state.embed_calls and ollama.state.chat_requests
        assert {path for path, _ in openai_server.state.requests} >= {
            "/v1/embeddings",
            "/v1/chat/completions",
        }


def test_lm_studio_here_is_reached_without_the_proxy(proxy: Proxy) -> None:
    """LM Studio's SDK makes its own clients: the server's host joins this process's
    NO_PROXY, and nothing else changes there."""
    with FakeLMStudio() as lms:
        _the_proxy_is_live(proxy, f"http://{lms.host}/lmstudio-greeting")
        seen = len(proxy.seen)
        embedder = LMStudioEmbedder("text-embedding-nomic-embed-text-v1.5", host=lms.host)
        assert embedder.embed_query("secret")
        assert LMStudioChat("qwen2.5-7b-instruct", host=lms.host, timeout=5).complete(MESSAGES)
        assert len(proxy.seen) == seen, proxy.seen
        assert lms.state.embedded
    # one list in both: the lower case, read first, had lost the upper case's host (review)
    assert os.environ["NO_PROXY"] == os.environ["no_proxy"] == "example.invalid,127.0.0.1"


def test_a_qdrant_server_here_is_reached_without_the_proxy(proxy: Proxy) -> None:
    with FakeQdrant() as server:
        _the_proxy_is_live(proxy, f"{server.url}/collections")
        seen = len(proxy.seen)
        index = QdrantServerIndex(server.url)
        index.ensure_collection("memories", 8)
        assert index.collection_size("memories") == 8
        index.close()
        assert len(proxy.seen) == seen, proxy.seen
        assert server.state.index_requests
