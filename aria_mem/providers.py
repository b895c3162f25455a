"""The model providers aria-mem knows: one registry for the config, the factory that builds
the adapters, `init`'s detection and the help texts.

A provider names the adapter classes by import path, so this module imports none of them (the
config reads it without loading any client library); ``tests/test_providers.py`` checks that
each class answers to its provider's name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from aria_mem.domain.addresses import split_address


@dataclass(frozen=True)
class Provider:
    name: str
    default_model: str
    embedder: str
    """``module:Class`` of the embedding adapter."""
    chat: str | None = None
    """``module:Class`` of the chat adapter, for providers that serve chat models."""
    server: bool = True
    """A model server (False: an in-process model)."""
    detected: bool = True
    """`init` looks for it at its default address (False: it needs an address given)."""


def embedding_provider(name: str) -> str:
    """``name`` if it is an embedding provider aria-mem knows; else ValueError naming them."""
    if name not in EMBEDDING:
        raise ValueError(f"provider must be one of {', '.join(EMBEDDING)}, not {name!r}")
    return name


OLLAMA = Provider(
    "ollama",
    "mxbai-embed-large",
    "aria_mem.adapters.embedders.ollama:OllamaEmbedder",
    "aria_mem.adapters.chat.ollama:OllamaChat",
)
LMSTUDIO = Provider(
    "lmstudio",
    "text-embedding-nomic-embed-text-v1.5",
    "aria_mem.adapters.embedders.lmstudio:LMStudioEmbedder",
    "aria_mem.adapters.chat.lmstudio:LMStudioChat",
)
OPENAI_COMPATIBLE = Provider(
    "openai-compatible",
    "mxbai-embed-large",
    "aria_mem.adapters.embedders.openai_compatible:OpenAICompatibleEmbedder",
    "aria_mem.adapters.chat.openai_compatible:OpenAICompatibleChat",
    detected=False,
)
"""Any server's OpenAI-compatible /v1 API (Ollama's by default: hence its default model)."""
IN_PROCESS = Provider(
    "sentence-transformers",
    "all-MiniLM-L6-v2",
    "aria_mem.adapters.embedders.local_model:SentenceTransformerEmbedder",
    server=False,
)

EMBEDDING: dict[str, Provider] = {
    p.name: p for p in (OLLAMA, LMSTUDIO, OPENAI_COMPATIBLE, IN_PROCESS)
}
"""In the order `init` tries them: model servers first, the in-process model last."""
CHAT: dict[str, Provider] = {p.name: p for p in EMBEDDING.values() if p.chat}


def is_server_address(value: str) -> bool:
    """A model server's address as Ollama's and LM Studio's clients take it: HOST[:PORT],
    with or without http(s):// (or ws(s)://, which LM Studio's adapter also takes)."""
    text = value.strip()
    if any(ch.isspace() for ch in text):
        return False
    try:
        parts = split_address(text if "://" in text else f"http://{text}")
    except ValueError:
        return False
    return (
        parts.scheme in ("http", "https", "ws", "wss")
        and bool(parts.hostname)
        and (parts.port is None or 0 < parts.port < 65536)
        and not parts.query
        and not parts.fragment
    )


def index_url_problem(url: str) -> str | None:
    """What is wrong with ``[index] url``, or None. A server's URL may hold no backslash and
    no user@ part: the port guard (``urlsplit``) and qdrant-client (urllib3) read those apart,
    so the guard could check one host while the client connects to another."""
    server = url.startswith(("http://", "https://"))
    authority = re.split(r"[/?#]", url.partition("://")[2], maxsplit=1)[0]
    if server and ("\\" in url or "@" in authority):
        return "must be http(s)://HOST:PORT, with no \\ and no user@ part (its API key is api_key)"
    if server and not is_server_address(authority):
        return "must be http(s)://HOST:PORT with a host and a port from 1 to 65535"
    if url.startswith("local:") and not Path(url.removeprefix("local:")).expanduser().is_absolute():
        return "local:PATH must name an absolute PATH (a folder only you can write)"
    if url and not (server or url.startswith("local:") or url == ":memory:"):
        return (
            "must be empty (embedded Qdrant Edge), http(s)://HOST:PORT "
            "(Qdrant server), local:PATH or :memory: (qdrant-client local mode)"
        )
    return None
