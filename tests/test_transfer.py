"""`export` and `import`: every field survives, bad lines are named, re-imports are no-ops."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import psycopg
import pytest

from tests.conftest import CliResult, PgServer
from tests.fakes.ollama_server import FakeOllama

Cli = Callable[..., CliResult]


def _seed(cli: Cli, env: dict[str, str]) -> None:
    cli(
        "remember",
        "The user is allergic to peanuts.",
        "-t",
        "ProfileFact",
        "-i",
        "0.9",
        "--pin",
        env=env,
    )
    cli(
        "remember",
        "The user's sister loves pottery.",
        "-t",
        "RelationshipFact",
        "--reason",
        "said at dinner",
        "--expires",
        "2031-01-01",
        env=env,
    )
    cli(
        "remember",
        "The user's father died last year.",
        "-e",
        "0.9",
        "--hold-until",
        "established",
        env=env,
    )
    mid = json.loads(cli("list", "--json", env=env).stdout)[0]["id"]
    cli("confirm", mid, env=env)


@pytest.mark.slow
def test_export_import_round_trip_to_another_machine(
    cli: Cli, env: dict[str, str], embedded_pg: PgServer, fake_ollama: FakeOllama, tmp_path: Path
) -> None:
    _seed(cli, env)
    out = tmp_path / "memories.jsonl"
    assert cli("export", "-o", str(out), env=env).code == 0
    lines = out.read_text().splitlines()
    assert len(lines) == 3
    exported = sorted((json.loads(line) for line in lines), key=lambda r: r["id"])

    other = embedded_pg.create_database()
    try:
        other_env = {
            "ARIA_MEM_POSTGRES_DSN": other,
            "ARIA_MEM_EMBEDDER_HOST": fake_ollama.url,
            "ARIA_MEM_HOME": str(tmp_path / "machine2"),
        }
        done = cli("import", str(out), "--json", env=other_env)
        assert done.code == 0, done.stderr
        summary = json.loads(done.stdout)
        assert summary["inserted"] == 3 and summary["indexed"] == 2  # the held one gets no vector
        again = cli("export", env=other_env)
        assert (
            sorted((json.loads(x) for x in again.stdout.splitlines()), key=lambda r: r["id"])
            == exported
        )
        embedded_before = sum(len(call) for call in fake_ollama.state.embed_calls)
        twice = json.loads(cli("import", str(out), "--json", env=other_env).stdout)
        assert (twice["inserted"], twice["updated"], twice["unchanged"]) == (0, 0, 3)
        assert twice["indexed"] == 0  # unchanged rows keep their vectors: nothing re-embedded
        assert sum(len(call) for call in fake_ollama.state.embed_calls) == embedded_before
        listed = json.loads(cli("list", "--json", env=other_env).stdout)
        assert len(listed) == 3 and all(m["index_state"] == "indexed" for m in listed)
    finally:
        embedded_pg.drop_database(other)


def test_a_bad_line_rejects_the_whole_file_and_names_the_line(
    cli: Cli, env: dict[str, str], embedded_dsn: str, tmp_path: Path
) -> None:
    good = {
        "id": "5f0c7a52-3b7e-4c1e-9d8a-2f7f0f1e2d3c",
        "user_id": "me",
        "companion_id": "aria",
        "type": "Goal",
        "text": "The user wants to run a marathon.",
        "created_at": "2026-01-01T00:00:00+00:00",
    }
    bad_type = dict(good, id="6f0c7a52-3b7e-4c1e-9d8a-2f7f0f1e2d3c", type="Gossip")
    path = tmp_path / "in.jsonl"
    path.write_text("\n".join([json.dumps(good), "{not json", json.dumps(bad_type)]) + "\n")
    result = cli("import", str(path), env=env)
    assert result.code == 2
    err = " ".join(result.stderr.split())
    assert "line 2: not valid JSON" in err and "line 3: Unknown memory type 'Gossip'" in err
    assert "nothing was imported" in err
    with psycopg.connect(embedded_dsn) as conn:
        assert conn.execute("SELECT count(*) FROM memories").fetchone() == (0,)

    skipped = cli("import", str(path), "--skip-invalid", "--json", env=env)
    assert skipped.code == 0
    summary = json.loads(skipped.stdout)
    assert summary["inserted"] == 1 and len(summary["invalid_lines"]) == 2
    with psycopg.connect(embedded_dsn) as conn:
        assert conn.execute("SELECT text FROM memories").fetchall() == [
            ("The user wants to run a marathon.",)
        ]


def test_import_of_a_missing_file_is_a_usage_error(
    cli: Cli, env: dict[str, str], tmp_path: Path
) -> None:
    result = cli("import", str(tmp_path / "nope.jsonl"), env=env)
    assert result.code == 2 and "Cannot read" in result.stderr


def test_import_without_indexing_leaves_memories_pending(
    cli: Cli, env: dict[str, str], tmp_path: Path
) -> None:
    path = tmp_path / "in.jsonl"
    path.write_text(
        json.dumps(
            {
                "id": "7f0c7a52-3b7e-4c1e-9d8a-2f7f0f1e2d3c",
                "user_id": "me",
                "companion_id": "aria",
                "type": "Goal",
                "text": "The user wants to learn Dutch.",
                "created_at": "2026-01-01T00:00:00+00:00",
            }
        )
        + "\n"
    )
    assert cli("import", str(path), "--no-index", env=env).code == 0
    assert json.loads(cli("list", "--json", env=env).stdout)[0]["index_state"] == "pending"


@pytest.mark.slow
def test_everything_of_a_person_moves_to_a_new_machine_and_only_theirs(
    cli: Cli,
    env: dict[str, str],
    embedded_dsn: str,
    embedded_pg: PgServer,
    fake_ollama: FakeOllama,
    tmp_path: Path,
) -> None:
    from datetime import UTC, datetime, timedelta

    from aria_mem.adapters.postgres.store import PostgresStore

    for text, user in (("The user's sister loves pottery.", "sam"), ("The user rows.", "kim")):
        assert cli("remember", text, "--user", user, env=env).code == 0
    assert cli("stage", "close", "--user", "sam", env=env).code == 0
    doc = tmp_path / "kilns.md"
    doc.write_text("# Kilns\n\nA kiln fires pottery at high heat to harden the clay.\n")
    assert cli("learn", str(doc), env=env).code == 0
    assert cli("learn", str(doc), "--companion", "nova", env=env).code == 0  # not sam's
    store = PostgresStore(embedded_dsn)
    then = datetime(2026, 3, 1, 9, 30, tzinfo=UTC)
    for user, said in (("sam", "my sister's pottery show is on Friday"), ("kim", "rowing!")):
        talk = store.conversations.open_conversation(user, "aria")
        store.conversations.add_turns(
            talk, [("user", said, then), ("assistant", "Lovely.", then + timedelta(seconds=4))]
        )
        store.conversations.set_system_prompt(talk, f"You are {user}'s rowing coach.")
    store.close()

    out = tmp_path / "sam.jsonl"
    done = cli("export", "--everything", "--user", "sam", "-o", str(out), env=env)
    assert done.code == 0, done.stderr
    assert "1 memories, 1 conversations (2 turns), 1 relationship stages, 1 learned" in " ".join(
        done.stderr.split()
    )
    text = out.read_text()
    assert "kim" not in text and "rowing!" not in text and "nova" not in text
    assert "You are sam's rowing coach." in text  # the conversation's persona goes along
    kinds = [json.loads(line).get("kind", "memory") for line in text.splitlines()]
    assert kinds == ["memory", "conversation", "turn", "turn", "stage", "knowledge", "passage"]

    other = embedded_pg.create_database()
    try:
        new_machine = {
            "ARIA_MEM_POSTGRES_DSN": other,
            "ARIA_MEM_EMBEDDER_HOST": fake_ollama.url,
            "ARIA_MEM_HOME": str(tmp_path / "machine2"),
            "ARIA_MEM_USER": "sam",
        }
        restored = cli("import", str(out), "--json", env=new_machine)
        assert restored.code == 0, restored.stderr
        summary = json.loads(restored.stdout)
        assert (summary["inserted"], summary["conversations"], summary["turns"]) == (1, 1, 2)
        assert (summary["stages"], summary["sources"], summary["indexed"]) == (1, 1, 2)
        assert json.loads(cli("stage", "--json", env=new_machine).stdout)["stage"] == "close"
        [talk] = json.loads(cli("conversations", "list", "--json", env=new_machine).stdout)
        shown = json.loads(
            cli("conversations", "show", talk["id"], "--json", env=new_machine).stdout
        )
        assert [m["content"] for m in shown["messages"]] == [
            "my sister's pottery show is on Friday",
            "Lovely.",
        ]
        [learned] = json.loads(cli("knowledge", "list", "--json", env=new_machine).stdout)
        assert (learned["title"], learned["passages"], learned["pending"]) == ("Kilns", 1, 0)
        again = json.loads(cli("import", str(out), "--json", env=new_machine).stdout)
        assert (again["unchanged"], again["conversations"], again["conversations_kept"]) == (
            1,
            0,
            1,
        )
        assert (again["stages"], again["sources"], again["sources_unchanged"]) == (0, 0, 1)
        back = cli("export", "--everything", env=new_machine)
        assert sorted(back.stdout.splitlines()) == sorted(text.splitlines())
    finally:
        embedded_pg.drop_database(other)


def test_conversations_export_is_importable_and_bad_archive_lines_are_named(
    cli: Cli, env: dict[str, str], embedded_dsn: str, tmp_path: Path
) -> None:
    from datetime import UTC, datetime

    from aria_mem.adapters.postgres.store import PostgresStore

    store = PostgresStore(embedded_dsn)
    talk = store.conversations.open_conversation("me", "aria")
    store.conversations.add_turns(talk, [("user", "hello there", datetime.now(UTC))])
    store.close()
    out = tmp_path / "talks.jsonl"
    assert cli("conversations", "export", "-o", str(out), env=env).code == 0
    assert oct(out.stat().st_mode & 0o777) == "0o600"
    lines = out.read_text().splitlines()
    assert [json.loads(line)["kind"] for line in lines] == ["conversation", "turn"]
    assert cli("conversations", "export", "--companion", "nova", env=env).stdout == ""

    orphan = json.dumps(
        {
            "kind": "turn",
            "conversation_id": "00000000-0000-4000-8000-000000000001",
            "role": "user",
            "content": "x",
            "created_at": "2026-01-01T00:00:00+00:00",
        }
    )
    bad_role = lines[1].replace('"role": "user"', '"role": "system"')
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join([lines[0], bad_role, orphan, '{"kind": "mystery"}']) + "\n")
    refused = cli("import", str(bad), env=env)
    flat = " ".join(refused.stderr.split())
    assert refused.code == 2 and "nothing was imported" in flat
    assert "line 2: role must be 'user' or 'assistant'" in flat
    assert "line 3: turn of conversation 00000000-0000-4000-8000-000000000001" in flat
    assert "line 4: kind must be one of" in flat
    with psycopg.connect(embedded_dsn) as conn:
        assert conn.execute("SELECT count(*) FROM turns").fetchone() == (1,)


HIDDEN = (
    "Note\x85 \x9b31m\x7f C1\u2028line\u2029para bidi\u202eevil\u202c\u2066iso\u2069\u061c"
    " tag\U000e0041\U000e007f fillers\u115f\u1160\u3164\uffa0 cgj\u034f khmer\u17b4\u17b5"
    " bom\ufeff zw\u200b\u00ad vs\U000e0100 caf\u00e9 \u6771\u4eac \U0001f600"
)
"""A text with a character of every class the export escapes, and non-ASCII it keeps."""


def _raw_hidden(data: bytes) -> list[str]:
    """The characters of ``data`` that a JSON escape should have written instead."""
    from aria_mem.domain.invisible import is_default_ignorable

    return [
        ch
        for ch in data.decode("utf-8")
        if ch in "\x7f\u2028\u2029" or "\x80" <= ch <= "\x9f" or is_default_ignorable(ch)
    ]


@pytest.mark.slow
def test_every_export_escapes_hidden_characters_and_imports_them_back_unchanged(
    cli: Cli,
    env: dict[str, str],
    embedded_dsn: str,
    embedded_pg: PgServer,
    fake_ollama: FakeOllama,
    tmp_path: Path,
) -> None:
    from datetime import UTC, datetime

    from aria_mem.adapters.postgres.store import PostgresStore

    made = cli("remember", HIDDEN, "--json", env=env)
    assert made.code == 0, made.stderr
    assert json.loads(made.stdout)["memory"]["text"] == HIDDEN
    doc = tmp_path / "notes.md"
    doc.write_text("# Notes\n\nA kiln fires pottery at high heat to harden the clay.\n")
    assert cli("learn", str(doc), "--title", f"Kilns {HIDDEN}", env=env).code == 0
    store = PostgresStore(embedded_dsn)
    talk = store.conversations.open_conversation("me", "aria")
    store.conversations.add_turns(talk, [("user", HIDDEN, datetime.now(UTC))])
    store.close()

    piped = cli("export", "--everything", env=env)
    memories_only = cli("export", env=env)
    talks = cli("conversations", "export", env=env)
    everything = tmp_path / "everything.jsonl"
    assert cli("export", "--everything", "-o", str(everything), env=env).code == 0
    for written in (
        piped.stdout.encode(),
        memories_only.stdout.encode(),
        talks.stdout.encode(),
        everything.read_bytes(),
    ):
        assert written and _raw_hidden(written) == []
        assert "caf\u00e9 \u6771\u4eac \U0001f600".encode() in written  # kept as UTF-8 text
    assert everything.read_text() == piped.stdout
    lines = [json.loads(line) for line in piped.stdout.splitlines()]
    assert [line.get("kind", "memory") for line in lines] == [
        "memory",
        "conversation",
        "turn",
        "knowledge",
        "passage",
    ]
    assert lines[0]["text"] == lines[2]["content"] == HIDDEN
    assert lines[3]["title"] == f"Kilns {HIDDEN}"

    other = embedded_pg.create_database()
    try:
        new_machine = {
            "ARIA_MEM_POSTGRES_DSN": other,
            "ARIA_MEM_EMBEDDER_HOST": fake_ollama.url,
            "ARIA_MEM_HOME": str(tmp_path / "machine2"),
        }
        restored = cli("import", str(everything), "--json", env=new_machine)
        assert restored.code == 0, restored.stderr
        [memory] = json.loads(cli("list", "--json", env=new_machine).stdout)
        assert memory["text"] == HIDDEN
        [learned] = json.loads(cli("knowledge", "list", "--json", env=new_machine).stdout)
        assert learned["title"] == f"Kilns {HIDDEN}"
        back = cli("export", "--everything", env=new_machine)
        assert sorted(back.stdout.splitlines()) == sorted(piped.stdout.splitlines())
    finally:
        embedded_pg.drop_database(other)
