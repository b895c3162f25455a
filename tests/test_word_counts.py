"""The pair's word counts (``pair_words``) that tell the word search which words are common:
kept by triggers, they must equal a count made from the memories themselves after any mix of
writes, by any path, from any number of writers. Real PostgreSQL."""

from __future__ import annotations

import uuid
from collections import Counter
from typing import Any

import psycopg
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from aria_mem.adapters.postgres import migrations, retry
from aria_mem.adapters.postgres.store import PostgresStore
from aria_mem.adapters.postgres.text_search import TextSearch
from aria_mem.domain.models import MemoryStatus, NewMemory
from aria_mem.domain.records import MemoryChanges
from tests.conftest import PgServer, at_once
from tests.factories import make_memory


def counted(dsn: str) -> set[tuple[str, str, str, int]]:
    with psycopg.connect(dsn) as conn:
        return {tuple(r) for r in conn.execute("SELECT * FROM pair_words").fetchall()}


def recounted(dsn: str) -> set[tuple[str, str, str, int]]:
    """Counted here in Python from each active memory's words, not by the migration's SQL."""
    tally: Counter[tuple[str, str, str]] = Counter()
    with psycopg.connect(dsn) as conn:
        active = conn.execute(
            "SELECT user_id, companion_id, tsvector_to_array(search_words) FROM memories"
            " WHERE status = 'active'"
        ).fetchall()
    for user, companion, words in active:
        tally.update((user, companion, word) for word in ["", *set(words)])
    return {(*key, n) for key, n in tally.items()}


WORDS = ["tea", "coffee", "Biscuit", "cat", "cats", "violin", "Porto", "sister", "the"]
PAIRS = [("u1", "aria"), ("u1", "nova"), ("u2", "aria")]

steps = st.lists(
    st.one_of(
        st.tuples(
            st.just("save"),
            st.sampled_from(PAIRS),
            st.lists(st.sampled_from(WORDS), min_size=1, max_size=4),
        ),
        st.tuples(
            st.just("edit"), st.integers(0, 30), st.lists(st.sampled_from(WORDS), max_size=4)
        ),
        st.tuples(st.just("archive"), st.integers(0, 30), st.booleans()),
        st.tuples(st.just("delete"), st.integers(0, 30), st.none()),
        st.tuples(st.just("use"), st.integers(0, 30), st.none()),
        st.tuples(st.just("erase"), st.sampled_from(["u1", "u2"]), st.none()),
        st.tuples(st.just("import"), st.sampled_from(PAIRS), st.integers(1, 5)),
        st.tuples(st.just("language"), st.sampled_from(["simple", "english"]), st.none()),
    ),
    max_size=14,
)


def _apply(
    store: PostgresStore, step: tuple[str, Any, Any], made: list[uuid.UUID], number: int
) -> None:
    """Carry out one step; ``number`` (the step's place) keeps every text distinct, as two
    memories of a pair saying the same thing are refused."""
    kind, what, how = step
    live = [i for i in made if _exists(store, i)]
    target = live[what % len(live)] if live and isinstance(what, int) else None
    if kind == "save":
        user, companion = what
        text = "The user " + " ".join(how) + f" (step {number})."
        made.append(store.memories.save(NewMemory(user, companion, text)).memory.id)
    elif kind == "edit" and target is not None:
        text = "The user " + " ".join(how) + f" (edited at step {number})."
        store.memories.edit(target, MemoryChanges(text=text))
    elif kind == "archive" and target is not None:
        status = MemoryStatus.ARCHIVED if how else MemoryStatus.ACTIVE
        store.memories.edit(target, MemoryChanges(status=status))
    elif kind == "delete" and target is not None:
        store.memories.delete(target)
    elif kind == "use" and target is not None:
        store.reads.record_use([target])
    elif kind == "erase":
        store.erasure.erase_user(what)
    elif kind == "import":
        user, companion = what
        batch = [
            make_memory(
                f"The user imported cats and tea {uuid.uuid4().hex[:6]}.",
                user_id=user,
                companion_id=companion,
            )
            for _ in range(how)
        ]
        store.memories.import_memories(batch)
        made.extend(m.id for m in batch)
    elif kind == "language":
        with store.db.connection() as conn:
            TextSearch(what).apply(conn)


def _exists(store: PostgresStore, memory_id: uuid.UUID) -> bool:
    with store.db.connection() as conn:
        found = conn.execute("SELECT 1 FROM memories WHERE id = %s", (memory_id,)).fetchone()
    return found is not None


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(steps=steps)
@example(  # two edits to no words: their texts must still differ
    steps=[("import", PAIRS[0], 1), ("save", PAIRS[0], ["tea"]), ("edit", 0, []), ("edit", 1, [])]
)
def test_the_word_counts_equal_a_recount_after_any_writes(
    store: PostgresStore, steps: list[tuple[str, Any, Any]]
) -> None:
    with store.db.connection() as conn:
        conn.execute("TRUNCATE memories, relationships, vector_deletions CASCADE")
        TextSearch("english").apply(conn)
    assert counted(store.db.dsn) == set()  # emptied with the memories
    made: list[uuid.UUID] = []
    for number, step in enumerate(steps):
        _apply(store, step, made, number)
        assert counted(store.db.dsn) == recounted(store.db.dsn), step


def test_a_word_no_active_memory_has_any_more_leaves_no_row(store: PostgresStore) -> None:
    kept = store.memories.save(NewMemory("u1", "aria", "The user plays the violin.")).memory
    gone = store.memories.save(NewMemory("u2", "aria", "The user hums in Porto.")).memory
    assert ("u2", "aria", "porto", 1) in counted(store.db.dsn)
    store.memories.edit(kept.id, MemoryChanges(status=MemoryStatus.ARCHIVED))
    store.erasure.erase_user("u2")
    assert counted(store.db.dsn) == set()  # not even the pairs' '' rows
    assert store.memories.counts().total == 1 and gone.id != kept.id


def test_writers_of_one_pair_at_once_neither_deadlock_nor_miscount(
    store: PostgresStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each writer edits its own memories (words out, words in) and adds new ones: every
    statement takes the pair's '' row first, so they queue instead of deadlocking (one attempt
    each: the store's running a deadlock's loser again would hide one)."""
    monkeypatch.setattr(retry, "ATTEMPTS", 1)

    def write(n: int) -> None:
        for i in range(15):
            text = f"The user likes tea, cats and word{n}x{i} with word{(n + i) % 5}."
            made = store.memories.save(NewMemory("u1", "aria", text)).memory
            store.memories.edit(made.id, MemoryChanges(text=f"{text} Also word{i % 3}."))

    assert at_once(write, 4) == []
    assert counted(store.db.dsn) == recounted(store.db.dsn)
    assert ("u1", "aria", "", 60) in counted(store.db.dsn)


def test_the_migration_counts_the_memories_already_stored(pg: PgServer) -> None:
    dsn = pg.create_database()
    try:
        with psycopg.connect(dsn) as conn:
            before = [m for m in migrations.available() if m.version < 8]
            later = [f"{m.version:03d}_{m.name}" for m in migrations.available() if m.version >= 8]
            assert later[0] == "008_pair_words"
            for migration in before:
                conn.execute(migration.sql.encode())
            conn.execute(
                "CREATE TABLE schema_migrations (version integer PRIMARY KEY, name text NOT NULL,"
                " applied_at timestamptz NOT NULL DEFAULT now())"
            )
            for migration in before:
                conn.execute(
                    "INSERT INTO schema_migrations (version, name) VALUES (%s, %s)",
                    (migration.version, migration.name),
                )
            for user, text, status in (  # as an aria-mem of schema 7 stored them
                ("u1", "The user drinks tea with cats.", "active"),
                ("u1", "The user drinks coffee.", "active"),
                ("u2", "The user drinks tea.", "archived"),
            ):
                conn.execute(
                    "INSERT INTO memories (id, user_id, companion_id, type, text, normalized_text,"
                    " importance, emotional_significance, confidence, status)"
                    " VALUES (gen_random_uuid(), %s, 'aria', 'EpisodicEvent', %s, lower(%s),"
                    " 0.5, 0, 0.8, %s)",
                    (user, text, text, status),
                )
        store = PostgresStore(dsn)
        assert store.migrate() == later
        store.close()
        assert counted(dsn) == recounted(dsn)
        assert {("u1", "aria", "drink", 2), ("u1", "aria", "", 2)} <= counted(dsn)
        assert not any(user == "u2" for user, *_ in counted(dsn))
    finally:
        pg.drop_database(dsn)
