"""Settings: one validated object.

Precedence, lowest first: built-in defaults < the TOML file < environment variables < command
flags. The file is ``--config PATH``, else ``$ARIA_MEM_CONFIG``, else ``config.toml`` in the
platform's user config directory (or in ``$ARIA_MEM_HOME`` when that is set: it moves config
and data together, which is what tests and demos use). Every key may be overridden by
``ARIA_MEM_<SECTION>_<KEY>`` (e.g. ``ARIA_MEM_POSTGRES_DSN``); the similarity bar is also read
from ``MEMORY_MIN_SIMILARITY``. Unknown keys are rejected, and every error names the key and
where its value came from.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

import platformdirs
import tomli_w

from aria_mem.errors import ConfigError

APP_NAME = "aria-mem"
PROVIDERS = ("ollama", "lmstudio", "sentence-transformers")
DEFAULT_MODELS = {
    "ollama": "mxbai-embed-large",
    "lmstudio": "text-embedding-nomic-embed-text-v1.5",
    "sentence-transformers": "all-MiniLM-L6-v2",
}


SUGGESTED_MIN_SIMILARITY = {"all-MiniLM-L6-v2": 0.25}
"""Similarity bars for models whose cosine scale sits well below the 0.45 default, measured on
related and unrelated pairs (README, "Choosing the similarity bar"). `init` writes them."""


@dataclass(frozen=True)
class IdentitySettings:
    user: str = "me"
    companion: str = "aria"


@dataclass(frozen=True)
class PostgresSettings:
    dsn: str = ""
    connect_timeout: float = 5.0


@dataclass(frozen=True)
class IndexSettings:
    url: str = ""
    api_key: str = ""
    timeout: float = 5.0


@dataclass(frozen=True)
class EmbedderSettings:
    provider: str = "ollama"
    model: str = ""
    host: str = ""
    timeout: float = 30.0
    batch_size: int = 64

    @property
    def effective_model(self) -> str:
        return self.model or DEFAULT_MODELS[self.provider]


@dataclass(frozen=True)
class RetrievalSettings:
    min_similarity: float = 0.45
    timeout: float = 2.0


@dataclass(frozen=True)
class ChatSettings:
    provider: str = "ollama"
    model: str = "llama3.2"
    host: str = ""
    timeout: float = 120.0
    context_window: int = 4096
    reply_reserve: int = 512
    history_turns: int = 20
    persona_name: str = "Aria"
    system_prompt: str = (
        "You are Aria, a warm and attentive companion. You remember what the user has shared "
        "with you and use it naturally and kindly, never reciting it."
    )
    extract_memories: str = "on"


@dataclass(frozen=True)
class DaemonSettings:
    reconcile_interval: float = 60.0


@dataclass(frozen=True)
class Settings:
    identity: IdentitySettings
    postgres: PostgresSettings
    index: IndexSettings
    embedder: EmbedderSettings
    retrieval: RetrievalSettings
    daemon: DaemonSettings
    chat: ChatSettings
    config_path: Path
    data_dir: Path

    @property
    def embedded_postgres(self) -> bool:
        return not self.postgres.dsn

    @property
    def embedded_index(self) -> bool:
        return not self.index.url

    @property
    def index_dir(self) -> Path:
        return self.data_dir / "index"

    @property
    def postgres_dir(self) -> Path:
        return self.data_dir / "postgres"


_SECTIONS: dict[str, type[Any]] = {
    "identity": IdentitySettings,
    "postgres": PostgresSettings,
    "index": IndexSettings,
    "embedder": EmbedderSettings,
    "retrieval": RetrievalSettings,
    "daemon": DaemonSettings,
    "chat": ChatSettings,
}

_ALIASES = {"MEMORY_MIN_SIMILARITY": ("retrieval", "min_similarity")}


def home_dir() -> Path | None:
    home = os.environ.get("ARIA_MEM_HOME")
    return Path(home).expanduser() if home else None


def default_config_path() -> Path:
    if env := os.environ.get("ARIA_MEM_CONFIG"):
        return Path(env).expanduser()
    home = home_dir()
    if home is not None:
        return home / "config.toml"
    return Path(platformdirs.user_config_dir(APP_NAME)) / "config.toml"


def default_data_dir() -> Path:
    home = home_dir()
    if home is not None:
        return home / "data"
    return Path(platformdirs.user_data_dir(APP_NAME))


def _coerce(section: str, key: str, raw: Any, kind: Any, source: str) -> Any:
    where = f"[{section}] {key} (from {source})"
    if kind in (float, "float"):
        if isinstance(raw, bool):
            raise ConfigError(f"{where} must be a number, got {raw!r}")
        try:
            return float(raw)
        except (TypeError, ValueError):
            raise ConfigError(f"{where} must be a number, got {raw!r}") from None
    if kind in (int, "int"):
        if isinstance(raw, bool):
            raise ConfigError(f"{where} must be a whole number, got {raw!r}")
        try:
            return int(raw)
        except (TypeError, ValueError):
            raise ConfigError(f"{where} must be a whole number, got {raw!r}") from None
    if not isinstance(raw, str):
        raise ConfigError(f"{where} must be a string, got {raw!r}")
    return raw


def _check(settings: Settings, sources: dict[tuple[str, str], str]) -> None:
    def fail(section: str, key: str, message: str) -> None:
        source = sources.get((section, key), "default")
        raise ConfigError(f"[{section}] {key} (from {source}) {message}")

    if settings.embedder.provider not in PROVIDERS:
        fail(
            "embedder",
            "provider",
            f"must be one of {', '.join(PROVIDERS)}, got {settings.embedder.provider!r}",
        )
    if not 0.0 <= settings.retrieval.min_similarity <= 1.0:
        fail("retrieval", "min_similarity", "must be between 0 and 1")
    if settings.chat.provider not in ("ollama", "lmstudio"):
        fail("chat", "provider", f"must be ollama or lmstudio, got {settings.chat.provider!r}")
    if settings.chat.extract_memories not in ("on", "off"):
        fail("chat", "extract_memories", "must be on or off")
    if settings.chat.context_window < 256:
        fail("chat", "context_window", "must be at least 256 tokens")
    if not 0 < settings.chat.reply_reserve < settings.chat.context_window:
        fail("chat", "reply_reserve", "must be between 0 and context_window")
    if settings.embedder.batch_size < 1:
        fail("embedder", "batch_size", "must be at least 1")
    for section, key, value in (
        ("embedder", "timeout", settings.embedder.timeout),
        ("index", "timeout", settings.index.timeout),
        ("postgres", "connect_timeout", settings.postgres.connect_timeout),
        ("daemon", "reconcile_interval", settings.daemon.reconcile_interval),
        ("retrieval", "timeout", settings.retrieval.timeout),
        ("chat", "timeout", settings.chat.timeout),
    ):
        if value <= 0:
            fail(section, key, "must be greater than 0")
    url = settings.index.url
    if url and not (url.startswith(("http://", "https://", "local:")) or url == ":memory:"):
        fail(
            "index",
            "url",
            "must be empty (embedded Qdrant Edge), http(s)://HOST:PORT "
            "(Qdrant server), local:PATH or :memory: (qdrant-client local mode)",
        )
    for key in ("user", "companion"):
        if not getattr(settings.identity, key).strip():
            fail("identity", key, "must not be empty")


def load(config_path: Path | None = None, *, environ: dict[str, str] | None = None) -> Settings:
    """Read the file (if any) and the environment into one validated Settings."""
    env = dict(os.environ if environ is None else environ)
    path = config_path or default_config_path()
    data: dict[str, Any] = {}
    if path.exists():
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(f"Cannot read the config file {path}: {exc}") from exc
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"The config file {path} is not valid TOML: {exc}") from exc
    elif config_path is not None:
        raise ConfigError(
            f"The config file {path} does not exist — create it from "
            "config.example.toml or drop --config"
        )

    values: dict[str, dict[str, Any]] = {name: {} for name in _SECTIONS}
    sources: dict[tuple[str, str], str] = {}
    for section, body in data.items():
        if section not in _SECTIONS:
            raise ConfigError(
                f"Unknown section [{section}] in {path} — known sections: {', '.join(_SECTIONS)}"
            )
        if not isinstance(body, dict):
            raise ConfigError(f"[{section}] in {path} must be a table")
        allowed = {f.name: f.type for f in fields(_SECTIONS[section])}
        for key, raw in body.items():
            if key not in allowed:
                raise ConfigError(
                    f"Unknown key [{section}] {key} in {path} — known keys: {', '.join(allowed)}"
                )
            values[section][key] = _coerce(section, key, raw, allowed[key], str(path))
            sources[(section, key)] = str(path)

    for section, cls in _SECTIONS.items():
        for f in fields(cls):
            var = f"ARIA_MEM_{section.upper()}_{f.name.upper()}"
            if var in env:
                values[section][f.name] = _coerce(section, f.name, env[var], f.type, f"${var}")
                sources[(section, f.name)] = f"${var}"
    for var, (section, key) in _ALIASES.items():
        if var in env:
            kind = {f.name: f.type for f in fields(_SECTIONS[section])}[key]
            values[section][key] = _coerce(section, key, env[var], kind, f"${var}")
            sources[(section, key)] = f"${var}"

    settings = Settings(
        **{name: cls(**values[name]) for name, cls in _SECTIONS.items()},
        config_path=path,
        data_dir=default_data_dir(),
    )
    _check(settings, sources)
    return settings


def with_overrides(settings: Settings, **sections: dict[str, Any]) -> Settings:
    """Apply command-line flags (the highest layer) to loaded settings."""
    changed: dict[str, Any] = {}
    for section, updates in sections.items():
        clean = {k: v for k, v in updates.items() if v is not None}
        if clean:
            changed[section] = replace(getattr(settings, section), **clean)
    result = replace(settings, **changed)
    _check(result, {})
    return result


def save_keys(path: Path, updates: dict[str, dict[str, Any]]) -> None:
    """Write ``updates`` into the TOML file, keeping every other key it holds."""
    data: dict[str, Any] = {}
    if path.exists():
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise ConfigError(f"Cannot update the config file {path}: {exc}") from exc
    for section, body in updates.items():
        data.setdefault(section, {}).update(body)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".toml.tmp")
    tmp.write_text(tomli_w.dumps(data), encoding="utf-8")
    tmp.replace(path)
