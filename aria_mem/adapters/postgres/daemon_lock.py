"""The PostgreSQL advisory lock that lets one daemon reconcile a database at a time.

It is a session lock on a connection of its own: if that daemon dies or PostgreSQL restarts,
the lock goes with the session and another daemon can take over."""

from __future__ import annotations

import contextlib

import psycopg

from aria_mem.adapters.postgres import problems
from aria_mem.adapters.postgres.server_owner import ServerOwner
from aria_mem.errors import StoreError

DAEMON_LOCK_KEY = 0x41524944  # "ARID"


class PgDaemonLock:
    def __init__(self, dsn: str, connect_timeout: float = 5.0, trust_account: str = "") -> None:
        self._dsn = dsn
        self._owner = ServerOwner(dsn, trust_account)
        self._timeout = connect_timeout
        self._conn: psycopg.Connection[tuple[object, ...]] | None = None

    def try_acquire(self) -> bool:
        try:
            if self._conn is None or self._conn.closed:
                self._owner.check()
                self._conn = psycopg.connect(
                    self._dsn, autocommit=True, connect_timeout=max(1, round(self._timeout))
                )
            row = self._conn.execute(
                "SELECT pg_try_advisory_lock(%s)", (DAEMON_LOCK_KEY,)
            ).fetchone()
        except psycopg.OperationalError as exc:
            self._owner.forget()
            self.release()
            problem = problems.describe(self._dsn, exc, self._timeout)
            raise StoreError(f"Could not take the daemon lock: {problem}") from exc
        return bool(row and row[0])

    def still_held(self) -> bool:
        """False once the session holding the lock is gone (e.g. PostgreSQL restarted)."""
        if self._conn is None or self._conn.closed:
            return False
        try:
            row = self._conn.execute(
                "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted"
                " AND pid = pg_backend_pid() AND objid = %s",
                (DAEMON_LOCK_KEY,),
            ).fetchone()
        except psycopg.OperationalError:
            self.release()
            return False
        return bool(row and int(str(row[0])) > 0)

    def release(self) -> None:
        if self._conn is not None:
            with contextlib.suppress(psycopg.Error):
                self._conn.close()
            self._conn = None
