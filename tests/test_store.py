"""What only the PostgreSQL store can show: what is on disk after a delete, and the errors of
a server that is not there. (Everything else is the contract in test_store_contract.py.)"""

from __future__ import annotations

import psycopg
import pytest

from aria_mem.adapters.postgres.store import PostgresStore
from aria_mem.domain.models import NewMemory
from aria_mem.errors import ConfigError, StoreError
from tests.conftest import closed_port


def test_a_forgotten_memory_leaves_no_text_in_the_database(store: PostgresStore, dsn: str) -> None:
    m = store.memories.save(NewMemory(user_id="u1", companion_id="aria", text="Secret X.")).memory
    store.memories.delete(m.id)
    with psycopg.connect(dsn) as conn:
        hits = conn.execute(
            "SELECT count(*) FROM memories WHERE text LIKE %s", ("%Secret%",)
        ).fetchone()
    assert hits == (0,)


def test_unreachable_postgres_is_a_store_error_that_says_why() -> None:
    dead = PostgresStore(
        f"postgresql://postgres@127.0.0.1:{closed_port()}/postgres", connect_timeout=1
    )
    with pytest.raises(StoreError, match="connection refused"):
        dead.ping()
    dead.close()


def test_a_connection_string_that_does_not_parse_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="not a valid connection string"):
        PostgresStore("this is not = = a dsn")
