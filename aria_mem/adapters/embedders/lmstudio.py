"""Embeddings from LM Studio through the official ``lmstudio`` SDK (websockets)."""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import Any

import lmstudio

from aria_mem.adapters.embedders.base import BaseEmbedder
from aria_mem.adapters.model_servers import ServerGuard
from aria_mem.errors import EmbedderError

DEFAULT_HOST = "127.0.0.1:1234"
DEFAULT_PORT = 1234


def host_port(host: str) -> str:
    """The SDK wants ``host:port`` without a scheme."""
    clean = (host or DEFAULT_HOST).strip()
    for scheme in ("http://", "https://", "ws://", "wss://"):
        clean = clean.removeprefix(scheme)
    return clean.rstrip("/")


class LMStudioEmbedder(BaseEmbedder):
    provider = "lmstudio"

    def __init__(
        self,
        model: str,
        *,
        host: str = "",
        timeout: float = 30.0,
        batch_size: int = 64,
        trust_account: str = "",
    ) -> None:
        super().__init__(model, batch_size=batch_size)
        self._host = host_port(host)
        self._timeout = timeout
        self._client: Any = None
        self._handle: Any = None
        self._guard = ServerGuard("embedder", self._host, DEFAULT_PORT, trust_account)

    def _embed_batch(self, texts: list[str]) -> list[list[float]]:
        self._guard.check(EmbedderError)
        lmstudio.set_sync_api_timeout(self._timeout)
        try:
            if self._client is None:
                self._guard.keep_off_proxies()
                self._client = lmstudio.Client(self._host)
            if self._handle is None:
                self._handle = self._client.embedding.model(self._model)
            result: Sequence[Sequence[float]] = self._handle.embed(texts)
        except lmstudio.LMStudioModelNotFoundError as exc:
            raise EmbedderError(
                f"LM Studio at {self._host} has no embedding model '{self._model}' — load it in "
                "LM Studio or set [embedder] model in config.toml"
            ) from exc
        except (lmstudio.LMStudioError, OSError, TimeoutError) as exc:
            self.close()
            self._guard.forget()
            raise EmbedderError(
                f"No embedding model answered at {self._host} — start LM Studio's server or set "
                f"[embedder] in config.toml ({exc})"
            ) from exc
        return [list(v) for v in result]

    def close(self) -> None:
        if self._client is not None:
            with contextlib.suppress(lmstudio.LMStudioError, OSError):
                self._client.close()
        self._client = self._handle = None
