"""Forgetting a person: after `forget --everything --user alice` no table holds a trace of
her and the index holds no vector of hers, while bob is untouched."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import psycopg
from psycopg import sql

from aria_mem import chat_history
from aria_mem.adapters.postgres.store import PostgresStore
from aria_mem.adapters.service.shared_index import SharedEdgeIndex
from aria_mem.domain.models import MEMORIES_COLLECTION
from tests.conftest import CliResult

Cli = Callable[..., CliResult]
SECRET = "Zanzibar"


def _traces(dsn: str, needles: tuple[str, ...]) -> dict[str, int]:
    """Rows of any table whose text, JSON or character column holds a needle."""
    found: dict[str, int] = {}
    with psycopg.connect(dsn) as conn:
        columns = conn.execute(
            "SELECT table_name, column_name FROM information_schema.columns"
            " WHERE table_schema = 'public'"
            " AND data_type IN ('text', 'character varying', 'jsonb', 'json', 'tsvector')"
        ).fetchall()
        for table, column in columns:
            for needle in needles:
                query = sql.SQL("SELECT count(*) FROM {} WHERE {}::text ILIKE %s").format(
                    sql.Identifier(table), sql.Identifier(column)
                )
                row = conn.execute(query, (f"%{needle}%",)).fetchone()
                if row and row[0]:
                    found[f"{table}.{column} ~ {needle}"] = int(row[0])
    return found


def test_forget_everything_leaves_no_trace_of_the_user(
    cli: Cli, env: dict[str, str], embedded_dsn: str, isolated_env: Path
) -> None:
    for text, companion in (
        (f"The user flew to {SECRET} in May.", "aria"),
        ("The user's sister is called Maya.", "aria"),
        ("The user sings in a choir.", "nova"),
    ):
        made = cli("remember", text, "--user", "alice", "--companion", companion, env=env)
        assert made.code == 0, made.stderr
    kept = cli("remember", "The user rows boats.", "--user", "bob", "--json", env=env)
    bob_id = json.loads(kept.stdout)["memory"]["id"]
    assert cli("stage", "close", "--user", "alice", env=env).code == 0
    store = PostgresStore(embedded_dsn)
    talk = store.conversations.open_conversation("alice", "aria")
    at = datetime.now(UTC)
    store.conversations.add_turns(
        talk, [("user", f"what should I buy for Maya in {SECRET}", at), ("assistant", "hm", at)]
    )
    store.close()
    data = isolated_env / "data"
    alice_lines = chat_history.history_file(data, "alice", "aria")
    alice_lines.write_text(f"+what should I buy for Maya in {SECRET}\n")
    bob_lines = chat_history.history_file(data, "bob", "aria")
    assert _traces(embedded_dsn, ("alice", SECRET))  # the scan sees her before

    refused = cli("forget", "--everything", "--user", "alice", env=env, input="n\n")
    assert refused.code == 1 and _traces(embedded_dsn, ("alice",))
    assert cli("forget", "--everything", env=env).code == 2  # whose?

    done = cli("forget", "--everything", "--user", "alice", "--yes", "--json", env=env)
    assert done.code == 0, done.stderr
    assert json.loads(done.stdout) == {
        "user": "alice",
        "memories": 3,
        "conversations": 1,
        "turns": 2,
        "relationships": 1,
        "vectors_removed": True,
        "problem": None,
    }
    assert _traces(embedded_dsn, ("alice", SECRET, "Maya", "choir")) == {}
    assert not alice_lines.exists() and bob_lines.exists()  # the chat's Up/Down lines too
    listed = json.loads(cli("list", "--all", "--json", env=env).stdout)
    assert [m["id"] for m in listed] == [bob_id]
    index = SharedEdgeIndex(isolated_env / "data" / "index")  # through the running service
    try:
        assert [str(i) for i in index.ids(MEMORIES_COLLECTION)] == [bob_id]
    finally:
        index.close()


def test_conversations_can_be_listed_shown_and_forgotten(
    cli: Cli, env: dict[str, str], embedded_dsn: str
) -> None:
    store = PostgresStore(embedded_dsn)
    talk = store.conversations.open_conversation("me", "aria")
    at = datetime.now(UTC)
    store.conversations.add_turns(
        talk, [("user", "what should I buy for Maya my sister", at), ("assistant", "a vase", at)]
    )
    store.close()
    listed = cli("conversations", "list", "--json", env=env)
    assert listed.code == 0, listed.stderr
    [only] = json.loads(listed.stdout)
    assert (only["id"], only["turns"]) == (str(talk), 2)
    assert only["first_message"] == "what should I buy for Maya my sister"
    shown = cli("conversations", "show", str(talk)[:8], "--json", env=env)
    assert [m["content"] for m in json.loads(shown.stdout)["messages"]] == [
        "what should I buy for Maya my sister",
        "a vase",
    ]
    kept = cli("conversations", "forget", str(talk)[:8], env=env, input="n\n")
    assert kept.code == 1 and _traces(embedded_dsn, ("Maya",))
    gone = cli("conversations", "forget", str(talk)[:8], "--yes", "--json", env=env)
    assert gone.code == 0, gone.stderr
    assert json.loads(gone.stdout) == {"forgotten": str(talk), "turns": 2}
    assert _traces(embedded_dsn, ("Maya",)) == {}
    assert json.loads(cli("conversations", "list", "--json", env=env).stdout) == []
    missing = cli("conversations", "show", str(talk)[:8], env=env)
    assert missing.code == 1 and "No conversation" in missing.stderr


def _talk(dsn: str, *lines: tuple[str, str]) -> None:
    store = PostgresStore(dsn)
    talk = store.conversations.open_conversation("me", "aria")
    at = datetime.now(UTC)
    store.conversations.add_turns(talk, [(role, text, at) for role, text in lines])
    store.close()


def _stored_turns(cli: Cli, env: dict[str, str]) -> list[str]:
    [talk] = json.loads(cli("conversations", "list", "--json", env=env).stdout)
    shown = json.loads(cli("conversations", "show", talk["id"], "--json", env=env).stdout)
    return [m["content"] for m in shown["messages"]]


def test_forgetting_a_memory_offers_the_turns_that_mention_it(
    cli: Cli, env: dict[str, str], embedded_dsn: str
) -> None:
    _talk(
        embedded_dsn,
        ("user", "what should I buy for Maya my sister"),
        ("assistant", "How about a vase?"),
        ("user", "my sister lives in Leeds"),
    )
    made = cli("remember", "The user's sister is called Maya.", "--json", env=env)
    memory_id = json.loads(made.stdout)["memory"]["id"]
    kept = cli("forget", memory_id, "--yes", env=env)  # no one to ask: kept, and said so
    assert kept.code == 0, kept.stderr
    assert "1 stored chat turn still mentions it" in " ".join(kept.stderr.split())
    assert "conversations forget --mentioning -" in kept.stderr
    assert "called Maya" not in kept.stderr  # the hint puts no memory text on a command line
    assert len(_stored_turns(cli, env)) == 3

    made = cli("remember", "The user's sister is called Maya.", "--json", env=env)
    memory_id = json.loads(made.stdout)["memory"]["id"]
    done = cli("forget", memory_id, "--yes", "--turns", "forget", "--json", env=env)
    assert done.code == 0, done.stderr
    answer = json.loads(done.stdout)
    assert (answer["action"], answer["turns_forgotten"], answer["turns_kept"]) == (
        "forgotten",
        1,
        0,
    )
    assert _stored_turns(cli, env) == ["How about a vase?", "my sister lives in Leeds"]
    assert _traces(embedded_dsn, ("Maya",)) == {}


def test_turns_that_mention_something_can_be_forgotten_directly(
    cli: Cli, env: dict[str, str], embedded_dsn: str
) -> None:
    _talk(embedded_dsn, ("user", "I'm allergic to peanuts"), ("user", "peanut butter? no thanks"))
    assert cli("conversations", "forget", "--mentioning", "  ", env=env).code == 2
    peanuts = ("conversations", "forget", "--mentioning", "allergic to peanuts")
    asked = cli(*peanuts, env=env, input="n\n")
    assert asked.code == 1 and "I'm allergic to peanuts" in asked.stdout
    from_stdin = ("conversations", "forget", "--mentioning", "-", "-y", "--json")
    gone = cli(*from_stdin, env=env, input="allergic to peanuts\n")
    assert json.loads(gone.stdout) == {"turns": 1}
    assert _stored_turns(cli, env) == ["peanut butter? no thanks"]
    huge = cli("conversations", "forget", "--mentioning", "peanuts " * 400, env=env)
    assert huge.code == 2 and "at most 2,000" in " ".join(huge.stderr.split())
    none = cli("conversations", "forget", "--mentioning", "zebras", "--json", env=env)
    assert json.loads(none.stdout) == {"turns": 0}


def test_a_conversation_of_another_user_is_not_found_by_its_id(
    cli: Cli, env: dict[str, str], embedded_dsn: str
) -> None:
    store = PostgresStore(embedded_dsn)
    bobs = store.conversations.open_conversation("bob", "aria")
    store.conversations.add_turns(bobs, [("user", "my PIN is 4921", datetime.now(UTC))])
    store.close()
    unknown = next(p for p in ("0000", "ffff") if not str(bobs).startswith(p))
    for command in (["show"], ["forget", "--yes"]):
        for given in (str(bobs)[:8], str(bobs)):
            stolen = cli("conversations", *command[:1], given, *command[1:], env=env)
            nothing = cli("conversations", *command[:1], unknown, *command[1:], env=env)
            assert stolen.code == nothing.code == 1, (command, stolen.stderr)
            assert "4921" not in stolen.stdout + stolen.stderr
            assert "No conversation with an id starting" in stolen.stderr
    as_bob = cli("conversations", "show", str(bobs)[:8], "--user", "bob", "--json", env=env)
    assert json.loads(as_bob.stdout)["messages"] == [{"role": "user", "content": "my PIN is 4921"}]
    gone = cli("conversations", "forget", str(bobs)[:8], "--user", "bob", "--yes", env=env)
    assert gone.code == 0, gone.stderr
