"""Writing the first config: which embedding provider answers, and what to write."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from aria_mem import config, providers
from aria_mem.errors import EmbedderError, UsageError
from aria_mem.wiring import probe_embedder


@dataclass(frozen=True)
class Initialised:
    config_path: Path
    wrote: bool
    provider: str
    model: str
    why: str
    """Why this provider: asked for, or which server answered first."""
    similarity_bar: float | None
    """The bar written for a model whose similarities run low; None: the default."""
    host: str = ""
    """The model server's address written to [embedder] host; empty: its default."""


def ollama_host_from_env() -> str:
    """``OLLAMA_HOST`` as the ollama tools read it (``host:port``, ``:port`` or a URL), as a
    URL; empty when unset."""
    raw = os.environ.get("OLLAMA_HOST", "").strip()
    if not raw:
        return ""
    if "://" not in raw:
        raw = "http://" + (f"127.0.0.1{raw}" if raw.startswith(":") else raw)
    return raw.rstrip("/")


def detect_provider(host: str = "") -> tuple[str, str, str]:
    """The first embedding provider that answers (model servers first), why, and at which
    address (``host`` if given, Ollama's OLLAMA_HOST, else each server's default)."""
    for provider in providers.EMBEDDING.values():
        if not provider.server:
            continue
        where = host or (ollama_host_from_env() if provider.name == "ollama" else "")
        try:
            probe_embedder(provider.name, host=where).dimension()
        except EmbedderError:
            continue
        if host:
            return provider.name, f"{provider.name} answered at {host} (--host)", host
        if where:
            return provider.name, f"{provider.name} answered at {where} (OLLAMA_HOST)", where
        return provider.name, f"{provider.name} answered at its default address", ""
    fallback = next(p for p in providers.EMBEDDING.values() if not p.server)
    tried = f" at {host}" if host else ""
    return fallback.name, f"no model server answered{tried}, so the in-process model", ""


def init_config(
    config_path: Path | None = None,
    *,
    provider: str | None = None,
    model: str | None = None,
    user: str | None = None,
    companion: str | None = None,
    force: bool = False,
    host: str | None = None,
) -> Initialised:
    """Write the config file (detecting the provider unless given); keeps an existing file
    unless options or ``force`` ask for changes."""
    path = config_path or config.default_config_path()
    if path.exists() and not force and not (provider or model or user or companion or host):
        current = config.load(path)
        return Initialised(
            path,
            False,
            current.embedder.provider,
            current.embedder.effective_model,
            "kept the existing config",
            None,
        )
    if provider:
        chosen = provider
        where = host or (ollama_host_from_env() if provider == "ollama" else "")
        why = "asked for" + (f", at {where}" if where else "")
    else:
        chosen, why, where = detect_provider(host or "")
    try:
        providers.embedding_provider(chosen)
    except ValueError as exc:
        raise UsageError(f"The embedding {exc}") from exc
    chosen_model = model or config.DEFAULT_MODELS[chosen]
    embedder: dict[str, object] = {"provider": chosen, "model": chosen_model}
    if where and providers.EMBEDDING[chosen].server:
        embedder["host"] = where
    updates: dict[str, dict[str, object]] = {"embedder": embedder}
    bar = config.SUGGESTED_MIN_SIMILARITY.get(chosen_model)
    if bar is not None:
        updates["retrieval"] = {"min_similarity": bar}
    identity = {k: v for k, v in (("user", user), ("companion", companion)) if v}
    if identity:
        updates["identity"] = dict(identity)
    config.save_keys(path, updates)
    return Initialised(path, True, chosen, chosen_model, why, bar, str(embedder.get("host", "")))
