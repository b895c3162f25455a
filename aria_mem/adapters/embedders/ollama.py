"""Embeddings from an Ollama server through the official ``ollama`` client."""

from __future__ import annotations

import httpx
import ollama

from aria_mem.adapters.embedders.base import BaseEmbedder
from aria_mem.adapters.model_servers import ServerGuard
from aria_mem.errors import EmbedderError

DEFAULT_HOST = "http://127.0.0.1:11434"
DEFAULT_PORT = 11434


class OllamaEmbedder(BaseEmbedder):
    provider = "ollama"

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
        self._host = host or DEFAULT_HOST
        self._timeout = timeout
        self._client: ollama.Client | None = None
        self._guard = ServerGuard("embedder", self._host, DEFAULT_PORT, trust_account)

    def _embed_batch(self, texts: list[str]) -> list[list[float]]:
        self._guard.check(EmbedderError)
        if self._client is None:
            direct = self._guard.direct  # no proxy between it and a server here
            self._client = ollama.Client(
                host=self._host, timeout=self._timeout, trust_env=not direct
            )
        try:
            response = self._client.embed(model=self._model, input=texts)
        except ollama.ResponseError as exc:
            if exc.status_code == 404:
                raise EmbedderError(
                    f"Ollama at {self._host} has no model '{self._model}' — run "
                    f"`ollama pull {self._model}` or set [embedder] model in config.toml"
                ) from exc
            raise EmbedderError(f"Ollama at {self._host} failed to embed: {exc.error}") from exc
        except (ConnectionError, httpx.HTTPError) as exc:
            self._guard.forget()
            raise EmbedderError(
                f"No embedding model answered at {self._host} — start Ollama or set "
                f"[embedder] in config.toml ({exc})"
            ) from exc
        return [list(v) for v in response.embeddings]
