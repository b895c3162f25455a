"""Migrations: from a blank database, recorded, idempotent, safe to run concurrently."""

from __future__ import annotations

import psycopg

from aria_mem.adapters.postgres import migrations
from aria_mem.adapters.postgres.store import PostgresStore
from tests.conftest import PgServer, at_once


def test_migrations_apply_from_blank_and_are_recorded(pg: PgServer) -> None:
    dsn = pg.create_database()
    try:
        store = PostgresStore(dsn)
        applied = store.migrate()
        assert applied == [f"{m.version:03d}_{m.name}" for m in migrations.available()]
        assert store.schema_version() == migrations.available()[-1].version
        assert store.migrate() == []
        store.close()
        with psycopg.connect(dsn) as conn:
            rows = conn.execute("SELECT version, name FROM schema_migrations").fetchall()
        assert rows == [(m.version, m.name) for m in migrations.available()]
    finally:
        pg.drop_database(dsn)


def test_concurrent_migrations_apply_once(pg: PgServer) -> None:
    dsn = pg.create_database()
    results: list[list[str]] = []
    try:

        def run(_: int) -> None:
            s = PostgresStore(dsn)
            results.append(s.migrate())
            s.close()

        assert at_once(run, 4) == []
        assert sorted(len(r) for r in results) == [0, 0, 0, len(migrations.available())]
    finally:
        pg.drop_database(dsn)


def test_migration_files_are_numbered_without_gaps() -> None:
    versions = [m.version for m in migrations.available()]
    assert versions == list(range(1, len(versions) + 1))


def test_an_up_to_date_schema_is_recognised_in_one_question_and_a_stale_one_is_not(
    pg: PgServer,
) -> None:
    """Every command opens the store; the quick check must never skip a migration due."""
    dsn = pg.create_database()
    try:
        store = PostgresStore(dsn)
        with store.db.connection() as conn:
            assert not store.text_search.settled(conn, migrations.newest())  # blank
        store.migrate()
        assert migrations.newest() == migrations.available()[-1].version
        with store.db.connection() as conn:
            assert store.text_search.settled(conn, migrations.newest())
            assert not store.text_search.settled(conn, migrations.newest() + 1)
            conn.execute("UPDATE text_search SET language = 'simple'")
            assert not store.text_search.settled(conn, migrations.newest())
        assert store.migrate() == []  # the full path puts the language back
        with store.db.connection() as conn:
            assert store.text_search.settled(conn, migrations.newest())
        store.close()
    finally:
        pg.drop_database(dsn)
