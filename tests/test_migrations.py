"""Migrations: from a blank database, recorded, idempotent, safe to run concurrently."""

from __future__ import annotations

import uuid

import psycopg
import pytest

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


@pytest.mark.parametrize(
    ("table", "column", "index"),
    [
        ("review_items", "memory_id", "review_items_memory"),
        ("review_items", "other_id", "review_items_other"),
        ("consolidations", "memory_id", "consolidations_memory"),
        ("consolidations", "other_id", "consolidations_other"),
    ],
)
def test_what_names_a_memory_is_found_by_an_index(
    store: PostgresStore, table: str, column: str, index: str
) -> None:
    """A forget's cascade and its question locks look up the questions and pass records
    naming the memory, once per memory and column (migration 012): without an index with that
    column first, each look-up read the whole table (scripts/bench_forget.py)."""
    with store.db.connection() as conn, conn.transaction():
        conn.execute("SET LOCAL enable_seqscan = off")
        plan = conn.execute(
            f"EXPLAIN SELECT 1 FROM {table} WHERE {column} = %s", (uuid.uuid4(),)
        ).fetchall()
    assert index in " ".join(str(row) for row in plan)
