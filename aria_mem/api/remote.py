"""Whole operations answered by the aria-mem service: a command that needs data sends one
request and renders the answer, without importing PostgreSQL's driver, the index client or the
model (the service holds the PostgreSQL pool beside the index and the model).

The request carries what the service needs to open the same ``AriaMem`` the command would:
the config file and data folder this process resolved, and its settings variables
(``ARIA_MEM_*`` and the aliases ``config`` reads). The service answers only for its own index
folder, and each operation still scopes its user and companion as in-process. Where no service
can answer (an index server of one's own, a service that answers no whole operations),
``call`` says so and the command works in-process.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any

from aria_mem import config
from aria_mem.errors import ConfigError
from aria_mem.private import private_dir


class NotServed(Exception):
    """No aria-mem service answers whole operations for these settings: work in-process."""


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
    """The service's answer to operation ``name``; ``NotServed`` when the settings name an
    index server (no service holds the index; ``:memory:`` included) or the service does not
    know that operation (one started by another version, or without the handler). The
    service stopping mid-request is an error (the operation is not sent twice). ``start``:
    start the service when none runs (False for an operation that needs only PostgreSQL:
    then ``NotServed``, and it runs in-process without waiting for a service to start)."""
    settings = config.load(config_path)
    if not settings.embedded_index:
        raise NotServed(settings.index.url)
    libpq = sorted(k for k in os.environ if k.startswith("PG"))
    if libpq:  # PostgreSQL's client reads them from its own process: the service's differ
        raise NotServed(", ".join(libpq))
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


# -- the service's side ---------------------------------------------------------------------

Handler = Callable[[Path, dict[str, Any]], Any]
"""The entry points' handler of whole operations: the service's index folder and a request in,
the JSON answer out."""


def settings_of(root: Path, request: dict[str, Any]) -> config.Settings:
    """The settings a request's command runs with, read as that command read them (its config
    file, its settings variables, its data folder); refused unless their index folder is this
    service's ``root``."""
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

    register(handler, _answerable(names))


def serve(argv: list[str] | None, handler: Handler, names: Iterable[str]) -> int:
    """Run the service started on demand (``python -m aria_mem.operations``), answering the
    whole operations ``names`` with ``handler``; its exit status."""
    from aria_mem.adapters.service.server import main

    return main(argv, operations=handler, names=_answerable(names))


def _answerable(names: Iterable[str]) -> list[str]:
    """The operations this process may answer for commands: none while PostgreSQL's own
    ``PG*`` variables are set here (its client library would read this process's, not the
    command's; commands then work in-process, as they do when they have such variables)."""
    return [] if any(k.startswith("PG") for k in os.environ) else list(names)
