"""The CLI as a person uses it: real processes, the embedded index, embedded PostgreSQL and
the ollama client against a fake server."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import psycopg
import pytest

from tests.conftest import CliResult, closed_port
from tests.fakes.ollama_server import FakeOllama

Cli = Callable[..., CliResult]


def _count(dsn: str) -> int:
    with psycopg.connect(dsn) as conn:
        row = conn.execute("SELECT count(*) FROM memories").fetchone()
    assert row is not None
    return int(row[0])


def test_remember_then_list_show_and_status(cli: Cli, env: dict[str, str]) -> None:
    r = cli(
        "remember",
        "The user is allergic to peanuts.",
        "--type",
        "ProfileFact",
        "--importance",
        "0.9",
        "--json",
        env=env,
    )
    assert r.code == 0, r.stderr
    made = json.loads(r.stdout)
    assert made["action"] == "created" and made["indexed"] is True
    assert made["memory"]["type"] == "ProfileFact" and made["memory"]["importance"] == 0.9

    listed = json.loads(cli("list", "--json", env=env).stdout)
    assert [m["id"] for m in listed] == [made["memory"]["id"]]
    assert listed[0]["index_state"] == "indexed"

    shown = cli("show", made["memory"]["id"][:8], env=env)
    assert shown.code == 0 and "allergic to peanuts" in shown.stdout

    status = cli("status", "--json", env=env)
    report = json.loads(status.stdout)
    assert status.code == 0, status.stdout
    assert report["ok"] is True
    assert report["checks"]["embedder"]["dimension"] == 64
    assert report["checks"]["index"]["collections"]["memories"] == {"vector_size": 64, "points": 1}
    assert report["memories"]["indexed"] == 1


def test_remember_twice_confirms(cli: Cli, env: dict[str, str], embedded_dsn: str) -> None:
    cli("remember", "The user loves jazz.", env=env)
    again = cli("remember", "the user LOVES jazz", env=env)
    assert again.code == 0 and "Already known — confirmed" in again.stdout
    assert _count(embedded_dsn) == 1
    made = json.loads(cli("list", "--json", env=env).stdout)[0]["id"]
    assert cli("archive", made, env=env).code == 0
    back = cli("remember", "The user loves jazz.", env=env)
    assert back.code == 0 and "Said again after it was replaced or retired" in back.stdout
    assert "it was archived" in back.stdout
    shown = json.loads(cli("list", "--json", env=env).stdout)
    assert [m["status"] for m in shown] == ["active"]
    other = json.loads(cli("remember", "The user hates jazz.", "--json", env=env).stdout)
    swapped = cli("remember", "The user loves jazz.", "--replaces", other["memory"]["id"], env=env)
    assert swapped.code == 0 and "restored" not in swapped.stdout  # it was active: no restore


@pytest.mark.slow
def test_memory_management_commands(cli: Cli, env: dict[str, str]) -> None:
    mid = json.loads(cli("remember", "The user plays violin.", "--json", env=env).stdout)["memory"][
        "id"
    ]
    edited = json.loads(
        cli(
            "edit", mid, "--text", "The user plays cello.", "--importance", "0.7", "--json", env=env
        ).stdout
    )
    assert edited["memory"]["text"] == "The user plays cello." and edited["indexed"]
    assert json.loads(cli("pin", mid, "--json", env=env).stdout)["memory"]["pinned"] is True
    assert json.loads(cli("unpin", mid, "--json", env=env).stdout)["memory"]["pinned"] is False
    archived = json.loads(cli("archive", mid, "--json", env=env).stdout)
    assert archived["memory"]["status"] == "archived"
    assert json.loads(cli("list", "--status", "active", "--json", env=env).stdout) == []
    assert (
        json.loads(cli("unarchive", mid, "--json", env=env).stdout)["memory"]["status"] == "active"
    )
    confirmed = json.loads(cli("confirm", mid, "--json", env=env).stdout)
    assert confirmed["memory"]["last_confirmed_at"] is not None
    gone = cli("forget", mid, "--yes", "--json", env=env)
    assert gone.code == 0 and json.loads(gone.stdout)["action"] == "forgotten"
    assert json.loads(cli("list", "--json", env=env).stdout) == []


def test_forget_asks_first(cli: Cli, env: dict[str, str], embedded_dsn: str) -> None:
    cli("remember", "The user's PIN is 1234.", env=env)
    mid = json.loads(cli("list", "--json", env=env).stdout)[0]["id"]
    refused = cli("forget", mid, env=env, input="n\n")
    assert refused.code == 1 and _count(embedded_dsn) == 1
    accepted = cli("forget", mid, env=env, input="y\n")
    assert accepted.code == 0 and _count(embedded_dsn) == 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["remember", ""], "empty"),
        (["remember", "   "], "empty"),
        (["remember", "x" * 2001], "2001 characters; the limit is 2000"),
        (["remember", "fact", "--importance", "1.5"], "importance must be between 0 and 1"),
        (["remember", "fact", "--emotion", "-0.2"], "emotional significance must be between"),
        (["remember", "fact", "--type", "Gossip"], "Unknown memory type 'Gossip'"),
        (["remember", "fact", "--expires", "someday"], "--expires takes"),
        (["remember", "fact", "--hold-until", "married"], "Unknown relationship stage"),
        (["remember", "fact", "--importance", "high"], "Invalid value for '--importance'"),
    ],
)
def test_bad_input_is_refused_with_exit_2_and_nothing_stored(
    cli: Cli, env: dict[str, str], embedded_dsn: str, args: list[str], message: str
) -> None:
    result = cli(*args, env=env)
    assert result.code == 2, result.stdout + result.stderr
    assert message in " ".join(result.stderr.split())
    assert "Traceback" not in result.stderr
    assert _count(embedded_dsn) == 0


@pytest.mark.parametrize("command", ["show", "edit", "pin", "archive", "forget", "confirm"])
def test_unknown_memory_id_exits_1(cli: Cli, env: dict[str, str], command: str) -> None:
    extra = ["--text", "x"] if command == "edit" else ["--yes"] if command == "forget" else []
    result = cli(command, "0badc0de-0000-4000-8000-000000000000", *extra, env=env)
    assert result.code == 1
    assert "No memory with id" in result.stderr and "Traceback" not in result.stderr


def test_unreadable_config_is_refused(
    cli: Cli, env: dict[str, str], tmp_path: Path, embedded_dsn: str
) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("[retrieval\nmin_similarity = ")
    result = cli("--config", str(bad), "remember", "fact", env=env)
    assert result.code == 2 and "not valid TOML" in result.stderr
    bad.write_text("[retrieval]\nmin_similarity = 2\n")
    result = cli("--config", str(bad), "list", env=env)
    assert result.code == 2 and "[retrieval] min_similarity" in result.stderr
    assert _count(embedded_dsn) == 0


def test_embedder_down_saves_pending_and_says_so(cli: Cli, embedded_dsn: str) -> None:
    env = {
        "ARIA_MEM_POSTGRES_DSN": embedded_dsn,
        "ARIA_MEM_EMBEDDER_HOST": f"http://127.0.0.1:{closed_port()}",
        "ARIA_MEM_EMBEDDER_TIMEOUT": "2",
    }
    result = cli("remember", "The user swims.", env=env)
    assert result.code == 0
    assert "saved in PostgreSQL" in result.stdout and "pending" in result.stdout
    assert "start Ollama" in " ".join(result.stdout.split())
    status = cli("status", "--json", env=env)
    assert status.code == 1
    report = json.loads(status.stdout)
    assert report["checks"]["embedder"]["ok"] is False
    assert report["checks"]["postgres"]["ok"] is True
    assert report["memories"]["pending"] == 1


def test_index_down_saves_pending(cli: Cli, embedded_dsn: str, fake_ollama: FakeOllama) -> None:
    env = {
        "ARIA_MEM_POSTGRES_DSN": embedded_dsn,
        "ARIA_MEM_EMBEDDER_HOST": fake_ollama.url,
        "ARIA_MEM_INDEX_URL": f"http://127.0.0.1:{closed_port()}",
        "ARIA_MEM_INDEX_TIMEOUT": "1",
    }
    result = cli("remember", "The user swims.", "--json", env=env)
    assert result.code == 0
    data = json.loads(result.stdout)
    assert data["indexed"] is False and data["index_state"] == "pending"
    assert "is it running" in data["problem"]
    assert _count(embedded_dsn) == 1


def test_status_reports_a_dimension_mismatch(
    cli: Cli, env: dict[str, str], fake_ollama: FakeOllama
) -> None:
    cli("remember", "The user swims.", env=env)
    fake_ollama.state.dim = 32
    result = cli("status", "--json", env=env)
    assert result.code == 1
    check = json.loads(result.stdout)["checks"]["dimension"]
    assert check["ok"] is False
    assert (
        "64-dimensional vectors but ollama/mxbai-embed-large makes 32-dimensional" in check["error"]
    )
    human = cli("status", env=env)
    assert human.code == 1 and "FAIL" in human.stdout and "reindex" in human.stdout
    written = cli("remember", "The user cycles.", "--json", env=env)
    assert json.loads(written.stdout)["index_state"] == "pending"


def test_sync_indexes_what_is_pending(cli: Cli, embedded_dsn: str, fake_ollama: FakeOllama) -> None:
    down = {
        "ARIA_MEM_POSTGRES_DSN": embedded_dsn,
        "ARIA_MEM_EMBEDDER_HOST": f"http://127.0.0.1:{closed_port()}",
        "ARIA_MEM_EMBEDDER_TIMEOUT": "2",
    }
    for text in ("The user swims.", "The user cycles."):
        cli("remember", text, env=down)
    failed = cli("sync", env=down)
    assert failed.code == 1
    up = dict(down, ARIA_MEM_EMBEDDER_HOST=fake_ollama.url)
    done = cli("sync", "--json", env=up)
    assert done.code == 0 and json.loads(done.stdout)["indexed"] == 2


def test_help_explains_each_command(cli: Cli) -> None:
    for command in ("remember", "list", "edit", "forget", "export", "import", "status", "sync"):
        result = cli(command, "--help")
        assert result.code == 0 and "Usage" in result.stdout
    assert "Example: aria-mem remember" in " ".join(cli("remember", "--help").stdout.split())
