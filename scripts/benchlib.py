"""What the benchmark scripts share: throw-away databases on one PostgreSQL server."""

from __future__ import annotations

import uuid

import psycopg

from aria_mem.adapters.postgres.store import PostgresStore


def fresh_db(admin: str) -> str:
    """A new empty database on the server ``admin`` connects to; returns its DSN."""
    name = f"aria_bench_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return psycopg.conninfo.make_conninfo(admin, dbname=name)


def drop_db(admin: str, dsn: str) -> None:
    name = psycopg.conninfo.conninfo_to_dict(dsn)["dbname"]
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE "{name}" WITH (FORCE)')


def fresh_store(admin: str) -> PostgresStore:
    """A migrated store on a new database."""
    store = PostgresStore(fresh_db(admin))
    store.migrate()
    return store
