"""A process that asks PostgreSQL for more connections at once than its pool holds is told the
pool is busy; the pool, and the connections others hold, are kept."""

from __future__ import annotations

import psycopg
import pytest

from aria_mem.adapters.postgres.connection import Database
from aria_mem.errors import StoreError


def _backend(db: Database) -> int:
    with db.connection() as conn:
        row = conn.execute("SELECT pg_backend_pid() AS pid").fetchone()
        assert row is not None
        return int(row["pid"])


def test_a_busy_pool_is_not_taken_for_a_broken_server(dsn: str) -> None:
    db = Database(dsn, max_size=1)
    try:
        held_by = _backend(db)
        with db.connection() as held:
            with pytest.raises(StoreError) as busy, db.connection(wait=0.2):
                pass
            assert "process's 1 connections to PostgreSQL was in use" in str(busy.value)
            assert held.execute("SELECT 1 AS one").fetchone() == {"one": 1}
        assert _backend(db) == held_by  # the same pool and connection: nothing was closed
    finally:
        db.close()


def test_a_server_that_cannot_be_reached_still_says_why(dsn: str) -> None:
    db = Database(dsn + " port=1", connect_timeout=1, max_size=1)
    try:
        with pytest.raises(StoreError) as down, db.connection(wait=0.5):
            pass
        assert "connections to PostgreSQL was in use" not in str(down.value)
    finally:
        db.close()


def test_one_statement_that_fails_keeps_the_pool(dsn: str) -> None:
    """A lock not granted is one statement's failure, not a broken server: the pool, and the
    connection, are kept (they were closed and made again)."""
    db = Database(dsn, max_size=1)
    try:
        held_by = _backend(db)
        holder = psycopg.connect(dsn, autocommit=True)
        try:
            holder.execute("SELECT pg_advisory_lock(4242)")
            with pytest.raises(StoreError, match="lock"), db.connection() as conn:
                conn.execute("SET lock_timeout = '50ms'")
                conn.execute("SELECT pg_advisory_lock(4242)")
        finally:
            holder.close()
        assert _backend(db) == held_by
    finally:
        db.close()
