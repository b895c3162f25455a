"""Conventions a shell user relies on: --version, "-" for stdin and stdout, and output a pipe
can read (every column, tab-separated, never wrapped)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from importlib.metadata import version
from pathlib import Path

import psycopg
import pytest

from aria_mem.adapters.postgres import embedded
from tests.conftest import ROOT, CliResult
from tests.fakes.ollama_server import FakeOllama

Cli = Callable[..., CliResult]


def _texts(dsn: str) -> list[str]:
    with psycopg.connect(dsn) as conn:
        return [r[0] for r in conn.execute("SELECT text FROM memories ORDER BY created_at")]


def test_version_prints_the_installed_version(cli: Cli) -> None:
    done = cli("--version")
    assert done.code == 0, done.stderr
    assert done.stdout == f"aria-mem {version('aria-mem')}\n"


def test_remember_dash_reads_the_text_from_stdin(
    cli: Cli, env: dict[str, str], embedded_dsn: str
) -> None:
    done = cli("remember", "-", "--json", env=env, input="The user has a cat called Miso.\n")
    assert done.code == 0, done.stderr
    assert json.loads(done.stdout)["memory"]["text"] == "The user has a cat called Miso."
    empty = cli("remember", "-", env=env, input="  \n")
    assert empty.code == 2 and "empty" in empty.stderr.lower()
    flood = cli("remember", "-", env=env, input="x" * (70 * 1024))
    assert flood.code == 2 and "more than 64 KB on stdin" in flood.stderr
    broken = subprocess.run(
        [sys.executable, "-m", "aria_mem", "remember", "-"],
        input=b"caf\xe9 au lait",
        capture_output=True,
        env={**os.environ, **env},
        cwd=ROOT,
        timeout=120,
    )
    assert broken.returncode == 2 and b"stdin is not UTF-8 text" in broken.stderr
    assert _texts(embedded_dsn) == ["The user has a cat called Miso."]


def test_export_dash_writes_stdout_and_import_dash_reads_stdin(
    cli: Cli, env: dict[str, str], embedded_dsn: str
) -> None:
    assert cli("remember", "The user plays the cello.", env=env).code == 0
    exported = cli("export", "-o", "-", env=env)
    assert exported.code == 0, exported.stderr
    assert not (ROOT / "-").exists()  # not a file called "-"
    [line] = exported.stdout.splitlines()
    assert json.loads(line)["text"] == "The user plays the cello."
    changed = line.replace("cello", "viola")
    imported = cli("import", "-", "--json", env=env, input=changed + "\n")
    assert imported.code == 0, imported.stderr
    assert json.loads(imported.stdout)["updated"] == 1
    assert _texts(embedded_dsn) == ["The user plays the viola."]
    garbage = cli("import", "-", env=env, input="not json\n" * 5000)
    assert garbage.code == 2 and "stdin has 1000 invalid line(s)" in garbage.stderr
    assert _texts(embedded_dsn) == ["The user plays the viola."]


def test_list_into_a_pipe_is_every_column_tab_separated_and_unwrapped(
    cli: Cli, env: dict[str, str]
) -> None:
    long_text = "The user is allergic to peanuts, " + "and to tree nuts of every kind, " * 8
    made = cli("remember", long_text.strip(), "-t", "ProfileFact", "--json", env=env)
    assert made.code == 0, made.stderr
    memory_id = json.loads(made.stdout)["memory"]["id"]
    assert cli("remember", "The user likes jazz.", env=env).code == 0
    listed = cli("list", env=env)  # the child's stdout is a pipe, as in `aria-mem list | grep`
    assert listed.code == 0, listed.stderr
    header, *rows = listed.stdout.splitlines()
    columns = header.split("\t")
    assert columns[0] == "id" and columns[-1] == "text" and "user" in columns
    assert len(rows) == 2
    assert sum("allergic to peanuts" in row for row in rows) == 1
    first = dict(zip(columns, rows[0].split("\t"), strict=True))
    assert first["id"] == memory_id and first["type"] == "ProfileFact"
    assert first["text"] == long_text.strip()  # one line, however long
    assert first["index"] == "indexed" and first["user"] == "me"


def test_every_command_help_has_an_example() -> None:
    from aria_mem.cli.app import command

    root = command()
    missing: list[str] = []
    run_together: list[str] = []

    def walk(command: object, path: str) -> None:
        subcommands = getattr(command, "commands", None)
        text = getattr(command, "help", None) or ""
        if path and "Example:" not in text:
            missing.append(path)
        # Help is markdown: an example not in a paragraph of its own runs into the one before.
        run_together.extend(
            path for part in text.split("\n\n") if part.strip().count("Example:") > 1
        )
        for name, sub in (subcommands or {}).items():
            walk(sub, f"{path} {name}".strip())

    walk(root, "")
    assert len(missing) == 0, missing
    assert run_together == []


def test_a_command_run_alone_is_the_same_command_as_in_the_whole_tree() -> None:
    """The tree built for one command (a faster start) must take the same arguments, options
    (-v and -q after it included) and help as that command in the whole tree."""
    from typer.core import TyperGroup
    from typer.testing import CliRunner

    from aria_mem.cli.app import command

    def help_of(tree: TyperGroup, name: str) -> str:
        with CliRunner().isolation() as streams:
            with pytest.raises(SystemExit) as done:
                tree.main([name, "--help"], prog_name="aria-mem")
            assert done.value.code == 0
            return streams[0].getvalue().decode()

    whole = command()
    assert len(whole.commands) > 20
    for name, full in whole.commands.items():
        alone = command([name])
        assert list(alone.commands) == [name]
        assert [p.opts for p in alone.commands[name].params] == [p.opts for p in full.params]
        assert help_of(alone, name) == help_of(whole, name), name
        assert "--quiet" in help_of(alone, name) or name in ("knowledge", "conversations")
    assert len(command(["lst"]).commands) == len(whole.commands)  # a typo gets suggestions
    assert len(command(["--verbose", "list"]).commands) == len(whole.commands)


def test_json_numbers_carry_no_float_noise(cli: Cli, env: dict[str, str]) -> None:
    import re

    text = "The user is allergic to peanuts."
    made = cli("remember", text, "-i", "0.3", "-e", "0.7", "--confidence", "0.9", env=env)
    assert made.code == 0, made.stderr
    found = cli("search", text, "--json", env={**env, "ARIA_MEM_RETRIEVAL_MIN_SIMILARITY": "0"})
    assert found.code == 0, found.stderr
    result = json.loads(found.stdout)
    assert [m["text"] for m in result["memories"]] == [text]
    numbers = re.findall(r"-?\d+\.\d+(?:e-?\d+)?", found.stdout)
    assert numbers  # scores, weights and timings are there
    assert all(len(n.split(".")[1].split("e")[0]) <= 6 for n in numbers), numbers


def test_an_index_in_process_memory_is_refused_for_the_cli(
    cli: Cli, env: dict[str, str], embedded_dsn: str
) -> None:
    done = cli("remember", "The user swims.", env={**env, "ARIA_MEM_INDEX_URL": ":memory:"})
    assert done.code == 2
    assert '[index] url = ":memory:"' in done.stderr and "empty" in done.stderr
    assert _texts(embedded_dsn) == []


def test_a_data_folder_of_another_postgresql_major_version_is_named_not_started(
    cli: Cli, isolated_env: Path
) -> None:
    pgdata = isolated_env / "data" / "postgres"
    pgdata.mkdir(parents=True)
    (pgdata / "PG_VERSION").write_text("16\n")
    done = cli("list")
    assert done.code == 2, done.stderr
    assert "made by PostgreSQL 16" in done.stderr and "export" in done.stderr
    assert sorted(p.name for p in pgdata.iterdir()) == ["PG_VERSION"]  # nothing started


@pytest.fixture
def home_pg(isolated_env: Path) -> Iterator[Path]:
    """The home's own embedded PostgreSQL, which `init` starts: stopped afterwards."""
    pgdata = isolated_env / "data" / "postgres"
    yield pgdata
    embedded.stop(pgdata)


def _config_text(isolated_env: Path) -> str:
    return (isolated_env / "config.toml").read_text()


def test_init_uses_ollama_host_and_writes_the_address_it_used(
    cli: Cli, isolated_env: Path, fake_ollama: FakeOllama, home_pg: Path
) -> None:
    host_port = fake_ollama.url.removeprefix("http://")
    done = cli("init", env={"OLLAMA_HOST": host_port})
    assert done.code == 0, done.stderr
    assert f"at {fake_ollama.url}" in done.stdout and "OLLAMA_HOST" in done.stdout
    config = _config_text(isolated_env)
    assert 'provider = "ollama"' in config and f'host = "{fake_ollama.url}"' in config
    # later commands find the server through the config alone
    made = cli("remember", "The user swims.", "--json")
    assert made.code == 0 and json.loads(made.stdout)["indexed"] is True, made.stderr


def test_init_host_option_is_written(
    cli: Cli, isolated_env: Path, fake_ollama: FakeOllama, home_pg: Path
) -> None:
    done = cli("init", "--provider", "ollama", "--host", fake_ollama.url)
    assert done.code == 0, done.stderr
    assert f'host = "{fake_ollama.url}"' in _config_text(isolated_env)


def test_list_newest_type_and_grep(cli: Cli, env: dict[str, str]) -> None:
    for text, kind in (
        ("The user's sister Maya loves pottery.", "RelationshipFact"),
        ("The user is allergic to peanuts.", "ProfileFact"),
        ("The user's sister lives in Porto.", "ProfileFact"),
    ):
        assert cli("remember", text, "-t", kind, env=env).code == 0
    found = cli("list", "--newest", "--type", "profilefact", "--grep", "SISTER", "--json", env=env)
    assert found.code == 0, found.stderr
    assert [m["text"] for m in json.loads(found.stdout)] == ["The user's sister lives in Porto."]
    newest = json.loads(cli("list", "--newest", "--limit", "1", "--json", env=env).stdout)
    assert [m["text"] for m in newest] == ["The user's sister lives in Porto."]
    wrong = cli("list", "--type", "Gossip", env=env)
    assert wrong.code == 2 and "Unknown memory type" in wrong.stderr


def test_explain_into_a_pipe_keeps_every_column_and_long_texts_on_one_line(
    cli: Cli, env: dict[str, str]
) -> None:
    text = "The user is allergic to peanuts, " + "tree nuts, sesame and shellfish, " * 6
    assert cli("remember", text.strip(), "-i", "0.9", env=env).code == 0
    piped = {**env, "COLUMNS": "", "ARIA_MEM_RETRIEVAL_MIN_SIMILARITY": "0"}
    shown = cli("search", text.strip(), "--explain", env=piped)
    assert shown.code == 0, shown.stderr
    header = next(line for line in shown.stdout.splitlines() if "score" in line and "found" in line)
    assert all(f" {name}" in header for name in ("sim", "imp", "emo", "rec", "use")), header
    assert any(text.strip() in line for line in shown.stdout.splitlines())  # not folded


def test_verbose_and_quiet_are_taken_after_the_subcommand_too(
    cli: Cli, env: dict[str, str], tmp_path: Path
) -> None:
    assert cli("remember", "The user plays the cello.", env=env).code == 0
    loud = cli("search", "cello", "-v", env=env)
    assert loud.code == 0 and "INFO aria_mem.services.retriever" in loud.stderr
    assert "INFO" in cli("-v", "search", "cello", env=env).stderr
    assert "INFO" not in cli("search", "cello", env=env).stderr
    out = tmp_path / "all.jsonl"
    told = cli("export", "-o", str(out), env=env)
    assert told.code == 0 and "Exported 1 memories" in told.stderr
    for args in (("export", "-o", str(out), "-q"), ("-q", "export", "-o", str(out))):
        quiet = cli(*args, env=env)
        assert quiet.code == 0 and quiet.stderr == "" and out.read_text().count("\n") == 1
    failed = cli("show", "ffffffff", "-q", env=env)
    assert failed.code == 1 and "ffffffff" in failed.stderr  # errors are still shown
    assert cli("remember", "--", "-v", env=env).code == 0  # after --, -v is text
    texts = [m["text"] for m in json.loads(cli("list", "--json", env=env).stdout)]
    assert "-v" in texts
