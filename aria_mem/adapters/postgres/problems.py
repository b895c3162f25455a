"""What went wrong connecting to PostgreSQL, said plainly, with the fix.

A connection pool only reports that no connection came in time; the cause (no such database,
nothing listening on the port, a bad sslmode, a timeout) is learned from one direct attempt.
"""

from __future__ import annotations

import re

import psycopg
from psycopg.conninfo import conninfo_to_dict

from aria_mem.errors import ConfigError

_FIX = "check [postgres] dsn in config.toml"


def check_dsn(dsn: str) -> None:
    """Refuse a connection string that does not even parse."""
    try:
        conninfo_to_dict(dsn)
    except psycopg.ProgrammingError as exc:
        raise ConfigError(f"[postgres] dsn is not a valid connection string: {exc}") from None


def _target(dsn: str) -> str:
    try:
        parts = conninfo_to_dict(dsn)
    except psycopg.ProgrammingError:
        return "the configured server"
    host = str(parts.get("host") or "localhost")
    port = str(parts.get("port") or "5432")
    if host.startswith("/"):
        return f"the socket in {host}"
    return f"{host}:{port}"


def describe(dsn: str, exc: Exception, timeout: float) -> str:
    """One line naming the problem and what to do, from a failed connection attempt."""
    message = str(exc)
    where = _target(dsn)
    if found := re.search(r'database "([^"]+)" does not exist', message):
        return (
            f"PostgreSQL at {where} has no database {found[1]!r} — create it "
            f"(createdb {found[1]}) or {_FIX}"
        )
    if found := re.search(r'role "([^"]+)" does not exist', message):
        return f"PostgreSQL at {where} has no role {found[1]!r} — create it or {_FIX}"
    if "password authentication failed" in message or "no password supplied" in message:
        return f"PostgreSQL at {where} refused the password — {_FIX}"
    if found := re.search(r'invalid (\w+) value: "([^"]*)"', message):
        return f"[postgres] dsn has an invalid {found[1]} {found[2]!r} — {_FIX}"
    if found := re.search(
        r'invalid integer value "([^"]*)" for connection option "(\w+)"', message
    ):
        return f"[postgres] dsn has an invalid {found[2]} {found[1]!r} — {_FIX}"
    if "does not support SSL" in message:
        return (
            f"PostgreSQL at {where} does not support SSL, but the dsn requires it — use "
            f"sslmode=prefer or disable, or {_FIX}"
        )
    if "Connection refused" in message:
        return (
            f"Nothing listens at {where} (connection refused) — is PostgreSQL running, "
            f"and on that port? Or {_FIX}"
        )
    if "No such file or directory" in message:
        return f"No PostgreSQL socket at {where} — is PostgreSQL running? Or {_FIX}"
    if "failed to resolve host" in message or "could not translate host name" in message:
        return f"Unknown host in the dsn ({where}) — {_FIX}"
    if "timeout expired" in message or isinstance(exc, TimeoutError):
        return (
            f"Connecting to PostgreSQL at {where} timed out after {timeout:g}s — is the host "
            f"right and reachable? Or {_FIX}"
        )
    first = message.strip().splitlines()[0] if message.strip() else type(exc).__name__
    return f"PostgreSQL at {where} failed: {first} — {_FIX}"


def diagnose(dsn: str, timeout: float) -> str:
    """Try one direct connection and describe why it fails (or say it now works)."""
    try:
        psycopg.connect(dsn, connect_timeout=max(1, round(timeout))).close()
    except (psycopg.Error, OSError) as exc:
        return describe(dsn, exc, timeout)
    return f"PostgreSQL at {_target(dsn)} did not answer within {timeout:g}s — is it overloaded?"
