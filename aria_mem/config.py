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

import math
import os
import re
import tomllib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

import platformdirs
import tomli_w

from aria_mem import providers
from aria_mem.errors import ConfigError
from aria_mem.ownership import check_file, check_folder, check_opened
from aria_mem.private import NotARegularFileError, open_regular, private_dir, write_private
from aria_mem.sections import BOUNDS, SPELLINGS, choice
from aria_mem.sections import DEFAULT_MODELS as DEFAULT_MODELS
from aria_mem.sections import ChatSettings as ChatSettings
from aria_mem.sections import DaemonSettings as DaemonSettings
from aria_mem.sections import EmbedderSettings as EmbedderSettings
from aria_mem.sections import HygieneSettings as HygieneSettings
from aria_mem.sections import IdentitySettings as IdentitySettings
from aria_mem.sections import IndexSettings as IndexSettings
from aria_mem.sections import PostgresSettings as PostgresSettings
from aria_mem.sections import RankingSettings as RankingSettings
from aria_mem.sections import RetrievalSettings as RetrievalSettings

APP_NAME = "aria-mem"
PROVIDERS = tuple(providers.EMBEDDING)

SUGGESTED_MIN_SIMILARITY = {"all-MiniLM-L6-v2": 0.25}
"""Similarity bars for models whose cosine scale sits well below the default bar, measured on
related and unrelated pairs (README, "Choosing the similarity bar"). `init` writes them."""


@dataclass(frozen=True)
class Settings:
    identity: IdentitySettings
    postgres: PostgresSettings
    index: IndexSettings
    embedder: EmbedderSettings
    retrieval: RetrievalSettings
    daemon: DaemonSettings
    chat: ChatSettings
    hygiene: HygieneSettings
    ranking: RankingSettings
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
    "hygiene": HygieneSettings,
    "ranking": RankingSettings,
}

_ALIASES = {"MEMORY_MIN_SIMILARITY": ("retrieval", "min_similarity")}


def is_setting_variable(name: str) -> bool:
    """Whether ``load`` reads variable ``name`` (a command hands these to the service)."""
    return name.startswith("ARIA_MEM_") or name in _ALIASES


def home_dir() -> Path | None:
    home = os.environ.get("ARIA_MEM_HOME")
    return Path(home).expanduser() if home else None


def default_config_path() -> Path:
    if env := os.environ.get("ARIA_MEM_CONFIG"):
        return Path(env).expanduser()
    home = home_dir() or Path(platformdirs.user_config_dir(APP_NAME))
    return home / "config.toml"


def default_data_dir() -> Path:
    home = home_dir()
    return home / "data" if home is not None else Path(platformdirs.user_data_dir(APP_NAME))


_OTHER_VARIABLES = {
    "ARIA_MEM_HOME": "moves config and data into one folder",
    "ARIA_MEM_CONFIG": "the config file",
    "ARIA_MEM_USER": "the user a command acts for",
    "ARIA_MEM_COMPANION": "the companion a command acts for",
    "ARIA_MEM_TEST_DSN": "a PostgreSQL server for the test suite",
    "ARIA_MEM_TEST_PGDATA_TEMPLATE": "a cluster the test suite's embedded PostgreSQL copies",
    "ARIA_MEM_DOCKER_TESTS": "the opt-in Docker test suite",
    "ARIA_MEM_BENCH_DSN": "a PostgreSQL server for the benchmarks",
}
"""ARIA_MEM_* variables that are not settings; any other unknown one is refused, by name."""


def _coerce(section: str, key: str, raw: Any, kind: Any, source: str) -> Any:
    where = f"[{section}] {key} (from {source})"
    if kind in SPELLINGS:
        if (value := choice(kind, raw)) is None:
            raise ConfigError(f"{where} must be one of {', '.join(SPELLINGS[kind])}")
        return value
    if kind in (float, "float"):
        if isinstance(raw, bool):
            raise ConfigError(f"{where} must be a number, got {raw!r}")
        try:
            number = float(raw)
        except (TypeError, ValueError):
            raise ConfigError(f"{where} must be a number, got {raw!r}") from None
        if not math.isfinite(number):
            raise ConfigError(f"{where} must be a finite number, got {raw!r}")
        return number
    if kind in (int, "int"):
        if isinstance(raw, bool | float):
            raise ConfigError(f"{where} must be a whole number, got {raw!r}")
        try:
            return int(str(raw).strip())
        except (TypeError, ValueError):
            raise ConfigError(f"{where} must be a whole number, got {raw!r}") from None
    if not isinstance(raw, str):
        raise ConfigError(f"{where} must be a string, got {raw!r}")
    if any("\ud800" <= ch <= "\udfff" for ch in raw) or "\x00" in raw:
        raise ConfigError(f"{where} is not valid UTF-8 text")
    return raw


def _check(settings: Settings, sources: dict[tuple[str, str], str]) -> None:
    def fail(section: str, key: str, message: str) -> None:
        source = sources.get((section, key), "default")
        raise ConfigError(f"[{section}] {key} (from {source}) {message}")

    for (section, key), (low, high) in BOUNDS.items():
        value = getattr(getattr(settings, section), key)
        if not low <= value <= high:
            fail(section, key, f"must be between {low:g} and {high:g}, got {value!r}")
    if settings.embedder.provider not in PROVIDERS:
        fail(
            "embedder",
            "provider",
            f"must be one of {', '.join(PROVIDERS)}, got {settings.embedder.provider!r}",
        )
    if settings.chat.provider not in providers.CHAT:
        fail(
            "chat",
            "provider",
            f"must be one of {', '.join(providers.CHAT)}, got {settings.chat.provider!r}",
        )
    language = settings.retrieval.language
    if not (language and language.replace("_", "").isalnum() and len(language) <= 63):
        fail("retrieval", "language", "must be a text-search configuration name, e.g. english")
    if not settings.chat.reply_reserve < settings.chat.context_window:
        fail("chat", "reply_reserve", "must be smaller than context_window")
    url_problem = providers.index_url_problem(settings.index.url)
    if url_problem:
        fail("index", "url", url_problem)
    for key in ("user", "companion"):
        if not getattr(settings.identity, key).strip():
            fail("identity", key, "must not be empty")
    for section in ("embedder", "chat"):
        host = getattr(settings, section).host
        if host and not providers.is_server_address(host):
            fail(
                section,
                "host",
                f"must be empty (the provider's default), HOST:PORT or a URL like "
                f"http://HOST:PORT, got {host!r}",
            )
    for section in ("embedder", "chat", "index", "postgres"):
        account = getattr(settings, section).trust_account  # a login name, or a uid
        if account and not re.fullmatch(r"[\w.][\w.-]{0,63}\$?", account, re.ASCII):
            fail(section, "trust_account", f"must be one account's name or uid, got {account!r}")


def _refuse_unknown_variables(env: dict[str, str]) -> None:
    known = set(_OTHER_VARIABLES)
    for section, cls in _SECTIONS.items():
        known.update(f"ARIA_MEM_{section.upper()}_{f.name.upper()}" for f in fields(cls))
    unknown = sorted(var for var in env if var.startswith("ARIA_MEM_") and var not in known)
    if unknown:
        raise ConfigError(
            f"Unknown environment variable ${unknown[0]} — settings are "
            "ARIA_MEM_<SECTION>_<KEY> for the keys in config.example.toml; unset it or fix "
            "its name"
        )


MAX_CONFIG_BYTES = 1_000_000
"""A config file is a few hundred bytes: `--config /dev/zero` must not fill the memory."""


def _config_text(path: Path) -> str:
    """The text of a regular file (opened without blocking: a FIFO cannot hold us) that no
    other account owns or can write (checked on what was opened, after the path was)."""
    try:
        handle = open_regular(path)
    except NotARegularFileError as exc:
        raise ConfigError(
            f"The config file {path} is not a regular file — give a TOML file "
            "(config.example.toml shows one)"
        ) from exc
    with handle:
        with _or_another_file(path):
            check_opened(
                os.fstat(handle.fileno()), path.absolute(), "config file", _elsewhere(path)
            )
        data = handle.read(MAX_CONFIG_BYTES + 1)
    if len(data) > MAX_CONFIG_BYTES:
        raise ConfigError(
            f"The config file {path} is larger than {MAX_CONFIG_BYTES:,} bytes — is it the "
            "right file? config.example.toml shows one"
        )
    return data.decode("utf-8")


def load(config_path: Path | None = None, *, environ: dict[str, str] | None = None) -> Settings:
    """Read the file (if any) and the environment into one validated Settings; a home, config
    or data folder another account owns or can write is refused before anything is read."""
    env = dict(os.environ if environ is None else environ)
    path = config_path or default_config_path()
    refuse_untrusted(path)
    data: dict[str, Any] = {}
    if path.exists():
        try:
            data = tomllib.loads(_config_text(path))
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(f"Cannot read the config file {path}: {exc}") from exc
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"The config file {path} is not valid TOML: {exc}") from exc
    elif config_path is not None:
        raise ConfigError(
            f"The config file {path} does not exist — create it from "
            "config.example.toml, or name another config file or none",
            option="config_path",
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
    _refuse_unknown_variables(env)
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
    """Apply command-line flags (the highest layer) to loaded settings; a switch or a choice
    may be given as spelled in the file ("off") or as its type (False)."""
    changed: dict[str, Any] = {}
    for section, updates in sections.items():
        kinds = {f.name: f.type for f in fields(getattr(settings, section))}
        clean = {
            k: _coerce(section, k, v, kinds[k], "the overrides") if kinds.get(k) in SPELLINGS else v
            for k, v in updates.items()
            if v is not None
        }
        if clean:
            changed[section] = replace(getattr(settings, section), **clean)
    result = replace(settings, **changed)
    _check(result, {})
    return result


def save_keys(path: Path, updates: dict[str, dict[str, Any]]) -> None:
    """Write ``updates`` into the TOML file, keeping every other key it holds."""
    refuse_untrusted(path)
    data: dict[str, Any] = {}
    if path.exists():
        try:
            data = tomllib.loads(_config_text(path))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            raise ConfigError(f"Cannot update the config file {path}: {exc}") from exc
    for section, body in updates.items():
        data.setdefault(section, {}).update(body)
    if not path.parent.exists() or path.parent in _own_folders():
        private_dir(path.parent, what="config folder", option="config_path")
    try:
        write_private(path, tomli_w.dumps(data))
    except OSError as exc:
        raise ConfigError(f"Cannot write the config file {path}: {exc.strerror or exc}") from exc


def _own_folders() -> set[Path]:
    """Folders that are aria-mem's alone (a --config file elsewhere leaves its folder be)."""
    folders = {Path(platformdirs.user_config_dir(APP_NAME))}
    home = home_dir()
    if home is not None:
        folders.add(home)
    return folders


_OWN_HOME = "use a home of your own: unset ARIA_MEM_HOME or point it at a folder you own"


def refuse_untrusted(config_path: Path) -> None:
    """Refuse, before anything is read or sent, a home, config file, config folder or data
    folder that another account owns or can write, or that sits in a folder it can (the rules
    are aria_mem.ownership's): such a config could name a model server of theirs, and every
    memory, search and chat prompt would go to it."""
    home = home_dir()
    if home is not None:
        check_folder(home, "aria-mem home", _OWN_HOME)
    if config_path.parent in _own_folders() and config_path.parent != home:
        check_folder(config_path.parent, "config folder", _elsewhere(config_path))
    with _or_another_file(config_path):
        check_file(config_path, "config file", _elsewhere(config_path))
    data = default_data_dir()
    check_folder(data, "data folder", _OWN_HOME if home is not None else _OWN_DATA)


_OWN_DATA = "use a data folder of your own: set ARIA_MEM_HOME to a folder you own"


def _elsewhere(config_path: Path) -> str:
    if config_path.parent in _own_folders():
        return "remove it and run `aria-mem init` to write a config of your own"
    return "set $ARIA_MEM_CONFIG to a config file of your own, or name one"


@contextmanager
def _or_another_file(config_path: Path) -> Iterator[None]:
    """A refused config file named outside aria-mem's folders is got past by naming another:
    the error says so (``option``) for a front end to add its spelling of it."""
    try:
        yield
    except ConfigError as exc:
        if config_path.parent not in _own_folders():
            exc.option = exc.option or "config_path"
        raise
