"""Writing the first config: which embedding provider answers, and what to write."""

from __future__ import annotations

import importlib
import os
from dataclasses import dataclass
from pathlib import Path

from aria_mem import config, providers
from aria_mem.adapters.model_servers import QDRANT_PORT, refuses
from aria_mem.adapters.model_servers import server_address as _where
from aria_mem.domain.addresses import split_address
from aria_mem.errors import EmbedderError, UsageError
from aria_mem.listeners import Listener, listener
from aria_mem.wiring import probe_embedder


@dataclass(frozen=True)
class ModelServer:
    """A server the config names (a model server, or a Qdrant server holding the index), and
    who listens at its address on this machine."""

    role: str
    """embedder, chat or index"""
    provider: str
    url: str
    listener: Listener
    trusted: bool = False
    """Another person's account runs it and [role] trust_account names that account."""


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
    passed_over: tuple[ModelServer, ...] = ()
    """Model servers found but not used: another person's account runs them."""
    trusted: tuple[str, ...] = ()
    """The sections whose trust_account was written: the chosen server is another person's
    and ``trust_account`` named its account."""


def server_address(provider: str, host: str = "") -> tuple[str, str, int]:
    """Where ``provider``'s client connects for ``host`` (its default when empty): a URL to
    show, the host name and the port (a missing port is the provider's own, or 80/443 for
    an address given with a scheme, as the ollama client reads it)."""
    module = providers.EMBEDDING[provider].embedder.partition(":")[0]
    default: str = importlib.import_module(module).DEFAULT_HOST
    usual = split_address(default if "://" in default else f"http://{default}").port
    try:
        return _where(host or default, usual or 0)
    except ValueError as exc:
        raise UsageError(
            f"{host!r} is not a model server's address ({exc}) — give HOST:PORT or http://HOST:PORT"
        ) from exc


def server_listener(provider: str, host: str = "") -> tuple[str, Listener]:
    """The URL of ``provider``'s server at ``host`` and which account listens there."""
    url, hostname, port = server_address(provider, host)
    return url, listener(hostname, port)


def model_servers(settings: config.Settings) -> tuple[ModelServer, ...]:
    """The embedding and chat model servers of ``settings``, and its Qdrant server, and who
    runs each (for `status`); the in-process model and the embedded index have none."""
    found = []
    for role, section in (("embedder", settings.embedder), ("chat", settings.chat)):
        if providers.EMBEDDING[section.provider].server:
            url, holder = server_listener(section.provider, section.host)
            trusted = holder.another_person and not refuses(holder, section.trust_account)
            found.append(ModelServer(role, section.provider, url, holder, trusted))
    index = settings.index
    if index.url.startswith(("http://", "https://")):  # where qdrant-client connects
        url, hostname, port = _where(index.url, QDRANT_PORT, scheme_port=False)
        holder = listener(hostname, port)
        trusted = holder.another_person and not refuses(holder, index.trust_account)
        found.append(ModelServer("index", "qdrant", url, holder, trusted))
    return tuple(found)


def ollama_host_from_env() -> str:
    """``OLLAMA_HOST`` as the ollama tools read it (``host:port``, ``:port`` or a URL), as a
    URL; empty when unset."""
    raw = os.environ.get("OLLAMA_HOST", "").strip()
    if not raw:
        return ""
    if "://" not in raw:
        raw = "http://" + (f"127.0.0.1{raw}" if raw.startswith(":") else raw)
    return raw.rstrip("/")


def detect_provider(host: str = "", *, trust_account: str = "") -> tuple[str, str, str]:
    """The first embedding provider that answers (model servers first, none run by another
    person's account unless ``trust_account`` names it), why, and at which address (``host``
    if given, Ollama's OLLAMA_HOST, else each server's default)."""
    chosen, why, where, _ = _detect(host, trust_account)
    return chosen, why, where


def _detect(host: str, trust_account: str) -> tuple[str, str, str, tuple[ModelServer, ...]]:
    passed_over: list[ModelServer] = []
    for provider in providers.EMBEDDING.values():
        if not (provider.server and provider.detected):
            continue
        where = host or (ollama_host_from_env() if provider.name == "ollama" else "")
        url, holder = server_listener(provider.name, where)
        if refuses(holder, trust_account):
            passed_over.append(ModelServer("embedder", provider.name, url, holder))
            continue  # not even a probe: it would see the probe's text
        try:
            probe_embedder(provider.name, host=where, trust_account=trust_account).dimension()
        except EmbedderError:
            continue
        if host:
            why = f"{provider.name} answered at {host}, the host given"
        elif where:
            why = f"{provider.name} answered at {where} (OLLAMA_HOST)"
        else:
            why = f"{provider.name} answered at its default address"
        return provider.name, why, host or where, tuple(passed_over)
    fallback = next(p for p in providers.EMBEDDING.values() if not p.server)
    tried = f" at {host}" if host else ""
    answered = "no model server of yours" if passed_over else "no model server"
    why = f"{answered} answered{tried}, so the in-process model"
    return fallback.name, why, "", tuple(passed_over)


def init_config(
    config_path: Path | None = None,
    *,
    provider: str | None = None,
    model: str | None = None,
    user: str | None = None,
    companion: str | None = None,
    force: bool = False,
    host: str | None = None,
    trust_account: str = "",
) -> Initialised:
    """Write the config file (detecting the provider unless given); keeps an existing file
    unless options or ``force`` ask for changes. A model server on this machine run by
    another person's account is passed over, or refused when asked for by name, unless
    ``trust_account`` names that account."""
    path = config_path or config.default_config_path()
    config.refuse_untrusted(path)  # before any model server is asked anything
    if (
        path.exists()
        and not force
        and not (provider or model or user or companion or host or trust_account)
    ):
        current = config.load(path)
        return Initialised(
            path,
            False,
            current.embedder.provider,
            current.embedder.effective_model,
            "kept the existing config",
            None,
        )
    passed_over: tuple[ModelServer, ...] = ()
    if provider:
        try:
            chosen = providers.embedding_provider(provider)
        except ValueError as exc:
            raise UsageError(f"The embedding {exc}") from exc
        where = host or (ollama_host_from_env() if provider == "ollama" else "")
        why = "asked for" + (f", at {where}" if where else "")
        if providers.EMBEDDING[chosen].server:
            url, holder = server_listener(chosen, where)
            if refuses(holder, trust_account):
                raise UsageError(
                    f"{url} is served by {holder.describe()}, not you: it would receive your "
                    "memories' text — stop it or choose another address; if you trust that "
                    f"account, run `aria-mem init --trust-account {holder.account}`"
                )
    else:
        chosen, why, where, passed_over = _detect(host or "", trust_account)
    chosen_model = model or config.DEFAULT_MODELS[chosen]
    embedder: dict[str, object] = {"provider": chosen, "model": chosen_model}
    if where and providers.EMBEDDING[chosen].server:
        embedder["host"] = where
    updates: dict[str, dict[str, object]] = {"embedder": embedder}
    trusted = _trust_to_keep(path, chosen, where, trust_account)
    for section in trusted:
        updates.setdefault(section, {})["trust_account"] = trust_account
    bar = config.SUGGESTED_MIN_SIMILARITY.get(chosen_model)
    if bar is not None:
        updates["retrieval"] = {"min_similarity": bar}
    identity = {k: v for k, v in (("user", user), ("companion", companion)) if v}
    if identity:
        updates["identity"] = dict(identity)
    config.save_keys(path, updates)
    return Initialised(
        path,
        True,
        chosen,
        chosen_model,
        why,
        bar,
        str(embedder.get("host", "")),
        passed_over,
        trusted,
    )


def _trust_to_keep(path: Path, provider: str, where: str, trust_account: str) -> tuple[str, ...]:
    """Where ``trust_account`` goes in the config so that every later command may use the
    server chosen: [embedder], when that account runs it, and [chat] too when the chat model
    is asked at the same address (Ollama's default serves both). Trust not used is not kept."""
    if not trust_account or not providers.EMBEDDING[provider].server:
        return ()
    url, holder = server_listener(provider, where)
    if not (holder.another_person and not refuses(holder, trust_account)):
        return ()
    chat = config.load(path).chat if path.exists() else config.ChatSettings()
    if chat.trust_account or chat.provider not in providers.EMBEDDING:
        return ("embedder",)
    same = server_address(chat.provider, chat.host)[0] == url
    return ("embedder", "chat") if same else ("embedder",)
