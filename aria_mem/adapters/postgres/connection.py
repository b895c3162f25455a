"""Connections to PostgreSQL: one pool per store, connected on first use, every statement
parameterised; a failure says what went wrong (``problems``)."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
from psycopg.rows import dict_row
from psycopg_pool import ConnectionPool, PoolTimeout

from aria_mem.adapters.postgres import migrations, problems
from aria_mem.adapters.postgres.server_owner import ServerOwner
from aria_mem.errors import StoreError

Row = dict[str, Any]


class Database:
    """A pool of autocommit connections. Opening it connects nothing."""

    def __init__(
        self, dsn: str, *, connect_timeout: float = 5.0, max_size: int = 4, trust_account: str = ""
    ) -> None:
        """``trust_account``: another person's account whose server on this machine may be
        connected to (``server_owner``)."""
        problems.check_dsn(dsn)
        self.dsn = dsn
        self.owner = ServerOwner(dsn, trust_account)
        self.timeout = connect_timeout
        self._max_size = max_size
        self._pools: dict[int, ConnectionPool] = {}
        """Keyed by the statement timeout (ms) its connections are made with; 0: none."""
        self._given: Counter[int] = Counter()
        """Connections given out now, per pool. When a wait for one times out while the pool's
        all are given out, the server answers: only this process asks too much at once, so
        the pool is kept (a broken pool is closed and made again, dropping what the others
        hold) and no connection is tried to diagnose a server that is fine."""
        self._broken = False
        self._lock = threading.Lock()

    def _new_pool(self, statement_timeout_ms: int) -> ConnectionPool:
        kwargs: dict[str, Any] = {
            "connect_timeout": max(1, round(self.timeout)),
            "autocommit": True,
        }
        if statement_timeout_ms:
            kwargs["options"] = f"-c statement_timeout={statement_timeout_ms}"
        pool = ConnectionPool(
            self.dsn,
            connection_class=_checked(self.owner),
            min_size=0,
            max_size=self._max_size,
            kwargs=kwargs,
            timeout=self.timeout,
            open=False,
        )
        pool.open(wait=False)
        return pool

    def _current_pool(self, statement_timeout_ms: int = 0) -> ConnectionPool:
        with self._lock:
            if self._broken:
                # After a failure the pool backs off before it reconnects; a fresh pool
                # answers as soon as PostgreSQL is back (e.g. after a restart).
                self._close_pools()
                self._broken = False
            pool = self._pools.get(statement_timeout_ms)
            if pool is None:
                # Who holds the server's address, asked here (a refusal at once, not after the
                # pool's wait) and by each new connection (``_checked``), not on every query:
                # a connection made stays with the server it was made to.
                self.owner.check()
                pool = self._pools[statement_timeout_ms] = self._new_pool(statement_timeout_ms)
            return pool

    def _close_pools(self) -> None:
        for pool in self._pools.values():
            pool.close(timeout=1)
        self._pools.clear()

    def close(self) -> None:
        with self._lock:
            self._close_pools()

    @contextmanager
    def connection(
        self, statement_timeout_ms: int = 0, wait: float | None = None
    ) -> Iterator[psycopg.Connection[Row]]:
        """``wait``: how long to wait for a connection (default: the connect timeout)."""
        pool = self._current_pool(statement_timeout_ms)
        try:
            with pool.connection(timeout=wait) as conn:
                conn.row_factory = dict_row  # type: ignore[assignment]
                with self._lock:
                    self._given[statement_timeout_ms] += 1
                try:
                    yield conn  # type: ignore[misc]
                finally:
                    with self._lock:
                        self._given[statement_timeout_ms] -= 1
        except PoolTimeout as exc:
            if self._given[statement_timeout_ms] >= self._max_size:
                waited = self.timeout if wait is None else wait
                raise StoreError(
                    f"every one of this process's {self._max_size} connections to PostgreSQL "
                    f"was in use for {waited:g}s; try again"
                ) from exc
            self._broken = True
            self.owner.forget()  # whoever listens there now is looked up before diagnosing
            self.owner.check()
            raise StoreError(problems.diagnose(self.dsn, self.timeout)) from exc
        except psycopg.OperationalError as exc:
            if _connection_lost(exc):
                self._broken = True
                self.owner.forget()
            raise StoreError(f"PostgreSQL failed: {exc}".strip()) from exc

    @contextmanager
    def bounded(self, timeout: float | None) -> Iterator[psycopg.Connection[Row]]:
        """A connection whose statements give up after ``timeout`` seconds, so a slow or
        locked database cannot hold up a reply. The timeout is set when the connection is
        made (a pool per timeout: in practice one, the retrieval timeout), so a read is one
        round trip, with no transaction or ``SET`` around it (that halved a 30-row read). It
        waits for a connection no longer than ``timeout`` either, so a server that is down
        costs a turn the retrieval timeout, not the connect timeout."""
        ms = 0 if timeout is None else max(1, int(timeout * 1000))
        wait = None if timeout is None else min(timeout, self.timeout)
        with self.connection(ms, wait) as conn:
            try:
                yield conn
            except psycopg.errors.QueryCanceled as exc:
                raise StoreError(f"PostgreSQL took longer than {timeout:g}s") from exc

    def migrate(self) -> list[str]:
        with self.connection() as conn:
            return migrations.apply(conn)

    def schema_version(self) -> int:
        with self.connection() as conn:
            return migrations.current_version(conn)

    def ping(self) -> None:
        with self.connection() as conn:
            conn.execute("SELECT 1")


def _checked(owner: ServerOwner) -> type[psycopg.Connection[Any]]:
    """Connections that ask ``owner`` first: the pool also connects in the background (again
    and again after a failure), where ``Database.connection``'s check is not made."""

    class Checked(psycopg.Connection[Any]):
        @classmethod
        def connect(cls, conninfo: str = "", **kwargs: Any) -> Any:
            owner.check()
            try:
                return super().connect(conninfo, **kwargs)
            except psycopg.Error:
                owner.forget()  # whoever listens there next is looked up before it is used
                raise

    return Checked


def _connection_lost(error: psycopg.OperationalError) -> bool:
    """Whether the connection, not one statement, failed: no SQLSTATE (the server went away or
    could not be reached), a connection exception (08) or the server shutting down (57P01-03).
    A deadlock, a lock not granted or a statement cancelled is one statement's failure: the
    pool, and the connections other threads hold, are kept."""
    state = error.sqlstate
    return state is None or state.startswith("08") or state in ("57P01", "57P02", "57P03")
