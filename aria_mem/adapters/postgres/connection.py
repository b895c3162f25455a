"""Connections to PostgreSQL: one pool per store, connected on first use, every statement
parameterised; a failure says what went wrong (``problems``)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
from psycopg.rows import dict_row
from psycopg_pool import ConnectionPool, PoolTimeout

from aria_mem.adapters.postgres import migrations, problems
from aria_mem.errors import StoreError

Row = dict[str, Any]


class Database:
    """A pool of autocommit connections. Opening it connects nothing."""

    def __init__(self, dsn: str, *, connect_timeout: float = 5.0, max_size: int = 4) -> None:
        problems.check_dsn(dsn)
        self.dsn = dsn
        self.timeout = connect_timeout
        self._max_size = max_size
        self._pool: ConnectionPool | None = None
        self._broken = False
        self._lock = threading.Lock()

    def _new_pool(self) -> ConnectionPool:
        pool = ConnectionPool(
            self.dsn,
            min_size=0,
            max_size=self._max_size,
            kwargs={"connect_timeout": max(1, round(self.timeout)), "autocommit": True},
            timeout=self.timeout,
            open=False,
        )
        pool.open(wait=False)
        return pool

    def _current_pool(self) -> ConnectionPool:
        with self._lock:
            if self._broken:
                # After a failure the pool backs off before it reconnects; a fresh pool
                # answers as soon as PostgreSQL is back (e.g. after a restart).
                self._close_pool()
                self._broken = False
            if self._pool is None:
                self._pool = self._new_pool()
            return self._pool

    def _close_pool(self) -> None:
        if self._pool is not None:
            self._pool.close(timeout=1)
            self._pool = None

    def close(self) -> None:
        with self._lock:
            self._close_pool()

    @contextmanager
    def connection(self) -> Iterator[psycopg.Connection[Row]]:
        pool = self._current_pool()
        try:
            with pool.connection() as conn:
                conn.row_factory = dict_row  # type: ignore[assignment]
                yield conn  # type: ignore[misc]
        except PoolTimeout as exc:
            self._broken = True
            raise StoreError(problems.diagnose(self.dsn, self.timeout)) from exc
        except psycopg.OperationalError as exc:
            self._broken = True
            raise StoreError(f"PostgreSQL failed: {exc}".strip()) from exc

    @contextmanager
    def bounded(self, timeout: float | None) -> Iterator[psycopg.Connection[Row]]:
        """A pipelined transaction whose statements give up after ``timeout`` seconds, so a
        slow or locked database cannot hold up a reply; pipelining sends the whole short
        transaction in one round trip."""
        with self.connection() as conn:
            try:
                with conn.pipeline(), conn.transaction():
                    if timeout is not None:
                        conn.execute(
                            "SELECT set_config('statement_timeout', %s, true)",
                            (str(max(1, int(timeout * 1000))),),
                        )
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
