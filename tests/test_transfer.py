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


@pytest.fixture
def env(embedded_dsn: str, fake_ollama: FakeOllama) -> dict[str, str]:
    return {"ARIA_MEM_POSTGRES_DSN": embedded_dsn, "ARIA_MEM_EMBEDDER_HOST": fake_ollama.url}


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
