"""Versioned schema migrations: ``NNN_name.sql`` files applied in order, each recorded in
``schema_migrations`` inside the transaction that applies it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources
from typing import Any

import psycopg
from psycopg.rows import tuple_row

_NAME = re.compile(r"^(\d{3})_([a-z0-9_]+)\.sql$")

# Any fixed number works: it only has to be the same in every process that migrates.
_MIGRATION_LOCK = 0x41524941


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    sql: str


def available() -> list[Migration]:
    folder = resources.files("aria_mem.adapters.postgres") / "migrations"
    found = []
    for entry in folder.iterdir():
        match = _NAME.match(entry.name)
        if match:
            found.append(Migration(int(match[1]), match[2], entry.read_text(encoding="utf-8")))
    return sorted(found, key=lambda m: m.version)


def newest() -> int:
    """The version the newest migration file brings the schema to (names only, no reading)."""
    folder = resources.files("aria_mem.adapters.postgres") / "migrations"
    return max((int(m[1]) for e in folder.iterdir() if (m := _NAME.match(e.name))), default=0)


def apply(conn: psycopg.Connection[Any]) -> list[str]:
    """Apply what is missing; return the names applied. Safe to run from many processes."""
    applied_now: list[str] = []
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATION_LOCK,))
        conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations ("
            " version integer PRIMARY KEY, name text NOT NULL,"
            " applied_at timestamptz NOT NULL DEFAULT now())"
        )
        rows = (
            conn.cursor(row_factory=tuple_row)
            .execute("SELECT version FROM schema_migrations")
            .fetchall()
        )
        done = {int(str(r[0])) for r in rows}
        for migration in available():
            if migration.version in done:
                continue
            conn.execute(migration.sql.encode())
            conn.execute(
                "INSERT INTO schema_migrations (version, name) VALUES (%s, %s)",
                (migration.version, migration.name),
            )
            applied_now.append(f"{migration.version:03d}_{migration.name}")
    return applied_now


def current_version(conn: psycopg.Connection[Any]) -> int:
    row = (
        conn.cursor(row_factory=tuple_row)
        .execute("SELECT coalesce(max(version), 0) FROM schema_migrations")
        .fetchone()
    )
    return int(str(row[0])) if row else 0
