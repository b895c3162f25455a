"""Whole operations answered by the aria-mem service: a command that needs data sends one
request and renders the answer, without importing PostgreSQL's driver, the index client or the
model (the service holds the PostgreSQL pool beside the index and the model).

The request carries what the service needs to open the same ``AriaMem`` the command would:
the config file and data folder this process resolved, and its settings variables
(``ARIA_MEM_*`` and the aliases ``config`` reads). The service answers only for its own index
folder, and each operation still scopes its user and companion as in-process. Where no service
can answer (an index server of one's own, a service that answers no whole operations),
``call`` says so and the command works in-process.

A program's ``AriaMem.search`` is sent the same way (``retrieve``, on the connection its
``AriaMem`` keeps to the service): its request names the program's settings by their digest,
and carries them whole only when the service asks (the first search, or after it restarted or
forgot them), and the ``SearchResult`` comes back whole (``api.wire``), as raw bytes.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import asdict, fields, is_dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aria_mem import config
from aria_mem.api.wire import result_from_wire, result_wire
from aria_mem.errors import ConfigError, ServiceError, UsageError
from aria_mem.private import private_dir
from aria_mem.version import __version__

if TYPE_CHECKING:
    from aria_mem.adapters.service.client import ServiceClient
    from aria_mem.domain.retrieval import SearchResult


log = logging.getLogger(__name__)


class NotServed(Exception):
    """No aria-mem service answers whole operations for these settings: work in-process."""


def check_served(settings: config.Settings) -> None:
    """``NotServed`` when no service may answer whole operations of ``settings``, which
    commands and programs alike then run in-process: an index server of one's own (no service
    holds the index; ``:memory:`` included), or PostgreSQL's own ``PG*`` variables set here
    (libpq reads them from its own process: the service's differ)."""
    if not settings.embedded_index:
        raise NotServed(settings.index.url)
    libpq = sorted(k for k in os.environ if k.startswith("PG"))
    if libpq:
        raise NotServed(", ".join(libpq))


def request_for(settings: config.Settings, name: str, args: dict[str, Any]) -> dict[str, Any]:
    """The request of operation ``name`` for a command of ``settings``."""
    path = settings.config_path.absolute()
    return {
        "op": "operation",
        "name": name,
        "args": args,
        "config": str(path),
        "config_exists": path.is_file(),
        "data_dir": str(settings.data_dir.absolute()),
        "env": {k: v for k, v in os.environ.items() if config.is_setting_variable(k)},
    }


def call(config_path: Path | None, name: str, args: dict[str, Any], *, start: bool = True) -> Any:
    """The service's answer to operation ``name`` for a command; ``NotServed`` when
    ``check_served`` says so or the service does not know that operation (one started by
    another version, or without the handler). The service stopping mid-request is an error
    (the operation is not sent twice). ``start``: start the service when none runs (False for
    an operation that needs only PostgreSQL: then ``NotServed``, and it runs in-process
    without waiting for a service to start)."""
    settings = config.load(config_path)
    check_served(settings)
    from aria_mem.adapters.service.client import WITH_OPERATIONS, ServiceClient
    from aria_mem.adapters.service.folder import lock_held

    if not start and not lock_held(settings.index_dir):
        raise NotServed(str(settings.index_dir))

    private_dir(settings.data_dir, what="data folder")
    client = ServiceClient(  # as wiring's, without importing what builds the other adapters
        settings.index_dir,
        idle_exit=settings.daemon.service_idle_exit,
        client_timeout=settings.daemon.service_client_timeout,
        entry=WITH_OPERATIONS,
    )
    try:
        client.hello()
        known = client.info.get("operations")
        if not isinstance(known, list) or name not in known:
            raise NotServed(str(settings.index_dir))
        return client.call(request_for(settings, name, args), resend=False)
    finally:
        client.close()


# -- a program's search --------------------------------------------------------------------

RETRIEVE = "retrieve"
"""The whole operation of a program's ``AriaMem.search``: the trip run in the service, the
``SearchResult`` sent back whole (``result_wire``)."""
SEND_SETTINGS = "send_settings"
"""The service's answer to a search that names settings by a digest it has not read: the
program asks again with them whole (``program_settings``)."""

_answering = threading.local()
"""Set while this thread runs a search the service was asked for: its ``AriaMem`` runs it
here (it is the process that holds the index), without asking whether to send it."""


class SettingsUnknown(Exception):
    """A program's search named its settings by a digest this service has not read (it started
    since, or forgot them): answered ``SEND_SETTINGS``."""


def served_search(
    settings: config.Settings,
    connect: Callable[[], ServiceClient],
    user_id: str,
    companion_id: str,
    message: str,
    previous: str | None,
    now: datetime | None,
) -> SearchResult | None:
    """``AriaMem.search`` of a program (its ``settings``, already scoped to ``user_id`` and
    ``companion_id``) run by the service in one request on the connection its ``AriaMem``
    keeps (``connect`` gives it, made when first needed): the index search and the look-up
    then happen in the process that holds the index, not over the socket. None when it is to
    run in-process: when ``check_served`` says so (as for a command), in the process that
    runs the service itself (the daemon, or the service's own ``AriaMem``), with a service
    of another version or one that does not know the operation, or when none answered
    (in-process, the search reaches the index and the model as it can, and says what it
    skipped). A search is a read: a service that goes away before it answers is asked again
    (a new one is started), as an index search in-process is."""
    if getattr(_answering, "search", False):
        return None
    args = {
        "message": message,
        "previous": previous,
        "user": user_id,
        "companion": companion_id,
        "now": None if now is None else now.isoformat(),
    }
    try:
        return _retrieve(settings, connect, args)
    except NotServed:
        return None
    except (ServiceError, ConfigError, UsageError) as exc:
        # None answered, or the service refused what this process runs as it is (settings
        # made in code outside the config file's bounds, a service that lost the operation)
        log.warning("the aria-mem service did not answer a search (%s); searching here", exc)
        return None


def _retrieve(
    settings: config.Settings, connect: Callable[[], ServiceClient], args: dict[str, Any]
) -> SearchResult:
    check_served(settings)
    from aria_mem.adapters.service.folder import hosted

    if hosted(settings.index_dir) is not None:
        raise NotServed(str(settings.index_dir))
    digest, whole = program_settings(settings)
    client = connect()  # only now: making it makes the data folder, which may fail
    if not client.info:
        client.hello()  # connects, starting the service when none runs
    known = client.info.get("operations")
    if not isinstance(known, list) or RETRIEVE not in known:
        raise NotServed(str(settings.index_dir))
    if client.info.get("version") != __version__:  # the result's classes must be the same
        raise NotServed(str(client.info.get("version")))
    request = {"op": "operation", "name": RETRIEVE, "args": args, "settings_digest": digest}
    answered = client.call(request)  # a search is a read: asked again of a new service
    if isinstance(answered, dict) and answered.get(SEND_SETTINGS) is True:
        answered = client.call({**request, **whole})
    if client.info.get("version") != __version__:  # a new one of another version answered
        raise NotServed(str(client.info.get("version")))
    return result_from_wire(answered)


def answer_retrieve(search: Callable[..., SearchResult], args: dict[str, Any]) -> bytes:
    """The service's side of ``served_search``: ``search`` (that of the ``AriaMem`` of the
    program's settings) with the user and companion the program scoped, its result whole."""
    texts = {k: args.get(k) for k in ("previous", "user", "companion", "now")}
    if not all(v is None or isinstance(v, str) for v in texts.values()):
        raise ValueError("previous, user, companion and now are text or null")
    now = texts.pop("now")
    when = None if now is None else datetime.fromisoformat(now)
    _answering.search = True
    try:
        found = search(str(args["message"]), **texts, now=when)
    finally:
        _answering.search = False
    return result_wire(found)


@functools.lru_cache(maxsize=16)
def program_settings(settings: config.Settings) -> tuple[str, dict[str, Any]]:
    """What a program's search request says of its settings: their digest (every search), and
    them whole (``settings_wire``, the config file and the data folder: when the service asks).
    Made once for the settings of the last few objects."""
    whole = {
        "settings": settings_wire(settings),
        "config": str(settings.config_path.absolute()),
        "data_dir": str(settings.data_dir.absolute()),
    }
    return _digest(whole), whole


@functools.lru_cache(maxsize=16)
def settings_key(settings: config.Settings) -> str:
    """A digest of everything ``settings`` holds (config file, data folder, every section): the
    same settings, the same key (``api.kept``); made once for the last few."""
    return _digest([str(settings.config_path), str(settings.data_dir), settings_wire(settings)])


def _digest(value: object) -> str:
    """SHA-256 of ``value`` as canonical JSON: the same on both sides of the socket for the
    same values (a tuple and a list write alike)."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


@functools.lru_cache(maxsize=16)
def settings_wire(settings: config.Settings) -> dict[str, dict[str, Any]]:
    """Every section of ``settings`` as JSON values (``settings_of`` reads them back through
    ``config.with_overrides``, so they are checked again there). Kept for the settings of the
    last few objects (0.05 ms each time otherwise): not to be changed."""
    return {
        f.name: asdict(value)
        for f in fields(settings)
        if is_dataclass(value := getattr(settings, f.name)) and not isinstance(value, type)
    }


# -- the service's side ---------------------------------------------------------------------

Handler = Callable[[Path, dict[str, Any]], Any]
"""The entry points' handler of whole operations: the service's index folder and a request in,
the JSON answer out."""


def settings_of(root: Path, request: dict[str, Any]) -> config.Settings:
    """The settings a request's command runs with, read as that command read them (its config
    file, its settings variables, its data folder), or a program's settings as the request
    carries them (``program_settings``: whole, or their digest once this service has read
    them; ``SettingsUnknown`` when it has not); refused unless their index folder is this
    service's ``root``."""
    if "settings_digest" in request or "settings" in request:
        return _program_settings(root, request)
    env = request.get("env")
    if not isinstance(env, dict) or not all(
        isinstance(k, str) and config.is_setting_variable(k) and isinstance(v, str)
        for k, v in env.items()
    ):
        raise ValueError("env must map the names of settings variables to strings")
    path, data_dir = Path(str(request["config"])), Path(str(request["data_dir"]))
    _own_folder(root, data_dir / "index")  # Settings.index_dir: before anything is made
    source = path if request.get("config_exists") else _no_config(root)
    settings = replace(config.load(source, environ=env), config_path=path, data_dir=data_dir)
    _own_folder(root, settings.index_dir)
    return settings


_read: OrderedDict[tuple[str, str], config.Settings] = OrderedDict()
_read_lock = threading.Lock()
READ_SETTINGS = 16
"""Programs' settings the service keeps as read (reading them again takes 0.5 ms a request), by
the digest this service made of them when they came whole: a request naming a digest gets only
settings the service itself read and checked."""


def _program_settings(root: Path, request: dict[str, Any]) -> config.Settings:
    sections = request.get("settings")
    if sections is None:  # named by their digest only
        digest = request.get("settings_digest")
        if not isinstance(digest, str):
            raise ValueError("settings_digest must be text")
        with _read_lock:
            known = _read.get((str(root), digest))
            if known is None:
                raise SettingsUnknown(digest)
            _read.move_to_end((str(root), digest))
            return known
    if not isinstance(sections, dict) or not all(
        isinstance(k, str) and isinstance(v, dict) for k, v in sections.items()
    ):
        raise ValueError("settings must map section names to objects")
    whole = {"settings": sections, "config": request["config"], "data_dir": request["data_dir"]}
    key = (str(root), _digest(whole))
    with _read_lock:
        settings = _read.get(key)
        if settings is not None:
            _read.move_to_end(key)
            return settings
    settings = _read_program_settings(root, request, sections)
    with _read_lock:
        _read[key] = settings
        while len(_read) > READ_SETTINGS:
            _read.popitem(last=False)
    return settings


def _read_program_settings(
    root: Path, request: dict[str, Any], sections: dict[str, Any]
) -> config.Settings:
    path, data_dir = Path(str(request["config"])), Path(str(request["data_dir"]))
    _own_folder(root, data_dir / "index")
    defaults = config.load(_no_config(root), environ={})
    unknown = set(sections) - set(settings_wire(defaults))
    if unknown:
        raise ValueError(f"unknown settings sections: {', '.join(sorted(unknown))}")
    settings = replace(
        config.with_overrides(defaults, **sections), config_path=path, data_dir=data_dir
    )
    _own_folder(root, settings.index_dir)
    return settings


def _own_folder(root: Path, index_dir: Path) -> None:
    if index_dir.resolve() != root.resolve():
        raise ConfigError(
            f"The aria-mem service for {root} was asked about the index in {index_dir}; "
            "it answers for its own folder only"
        )


def _no_config(root: Path) -> Path:
    """An empty config file in the service's private folder, read for a command that has none
    (its defaults and variables are then all there is)."""
    empty = root / "no-config.toml"
    if not empty.exists():
        fd = os.open(empty, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        os.close(fd)
    return empty


def answer_operations(handler: Handler | None, names: Iterable[str] = ()) -> None:
    """Let the service this process runs (the daemon's) answer the whole operations
    ``names``."""
    from aria_mem.adapters.service.server import answer_operations as register

    register(None if handler is None else _asking(handler), _answerable(names))


def serve(argv: list[str] | None, handler: Handler, names: Iterable[str]) -> int:
    """Run the service started on demand (``python -m aria_mem.operations``), answering the
    whole operations ``names`` with ``handler``; its exit status."""
    from aria_mem.adapters.service.server import main

    return main(argv, operations=_asking(handler), names=_answerable(names))


def _asking(handler: Handler) -> Handler:
    """``handler``, answering ``SEND_SETTINGS`` to a search whose settings it has not read."""

    def handle(root: Path, request: dict[str, Any]) -> Any:
        try:
            return handler(root, request)
        except SettingsUnknown:
            return {SEND_SETTINGS: True}

    return handle


def _answerable(names: Iterable[str]) -> list[str]:
    """The operations this process may answer for commands: none while PostgreSQL's own
    ``PG*`` variables are set here (its client library would read this process's, not the
    command's; commands then work in-process, as they do when they have such variables)."""
    return [] if any(k.startswith("PG") for k in os.environ) else list(names)
