"""Whole operations answered by the aria-mem service (issue 38): a command sends one request
and renders the answer; it answers as the same command in-process would, imports no database
driver, index client or model, and says in one line when the service dies mid-request."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from aria_mem.adapters.service.folder import LOCK_NAME
from aria_mem.api import remote
from aria_mem.errors import ConfigError
from tests.conftest import ROOT, CliResult
from tests.fakes.concepts import concept_embed
from tests.fakes.ollama_server import FakeOllama, FakeOllamaState

Cli = Callable[..., CliResult]
QUESTION = "My sister is getting married, any gift ideas?"
HELD = "HOLD THIS ONE"
"""A query the fake model holds until the test lets go (``Gate``)."""


class Gate:
    """Holds the fake model's first answer for a text that contains ``HELD`` until
    ``release`` (a later one, after the service that asked was killed, is answered at once)."""

    def __init__(self) -> None:
        self.entered = threading.Event()
        self.released = threading.Event()

    def embed(self, text: str, dim: int) -> list[float]:
        if HELD in text and not self.entered.is_set():
            self.entered.set()
            self.released.wait(60)
        return concept_embed(text, dim)


@pytest.fixture
def gate() -> Gate:
    return Gate()


@pytest.fixture
def fake_ollama(gate: Gate) -> Iterator[FakeOllama]:
    """The conftest's ``env`` with a model that holds a query containing ``HELD`` until the
    test lets go (let go at the end, so the server can stop)."""
    with FakeOllama(FakeOllamaState(dim=16, embed=gate.embed)) as server:
        yield server
        gate.released.set()


@pytest.fixture
def extra_env() -> dict[str, str]:
    return {"ARIA_MEM_RETRIEVAL_TIMEOUT": "60"}  # a busy machine: never a degraded search


def _remember(cli: Cli, env: dict[str, str]) -> None:
    for text in ("The user's sister loves pottery.", "The user has a dog called Biscuit."):
        assert cli("remember", text, env=env).code == 0


def _without_timings(out: str) -> object:
    """A search's JSON without its timings, every number to 3 places: the recency signal
    moves with the clock between two commands."""
    data = json.loads(out)
    data.pop("timings_ms")
    return _to_3_places(data)


def _to_3_places(data: object) -> object:
    if isinstance(data, float):
        return round(data, 3)
    if isinstance(data, dict):
        return {k: _to_3_places(v) for k, v in data.items()}
    if isinstance(data, list):
        return [_to_3_places(v) for v in data]
    return data


def test_search_through_the_service_answers_as_in_process(cli: Cli, env: dict[str, str]) -> None:
    _remember(cli, env)
    served = cli("search", QUESTION, "--json", env=env)
    alone = cli("--no-service", "search", QUESTION, "--json", env=env)
    assert served.code == alone.code == 0, served.stderr + alone.stderr
    assert _without_timings(served.stdout) == _without_timings(alone.stdout)
    assert json.loads(served.stdout)["memories"], "the search found nothing to compare"
    assert not json.loads(served.stdout)["degraded"]
    view = cli("search", QUESTION, "--why", "zzzz", env=env)
    assert view.code == 1 and "'zzzz' is not a memory id" in view.stderr  # the error's type
    served = cli("search", QUESTION, "--prompt", env=env)
    alone = cli("--no-service", "search", QUESTION, "--prompt", env=env)
    assert served.stdout == alone.stdout and "sister loves pottery" in served.stdout


def test_list_and_show_through_the_service_print_as_in_process(
    cli: Cli, env: dict[str, str]
) -> None:
    _remember(cli, env)
    for args in (["list"], ["list", "--json"], ["list", "--newest", "--limit", "1"]):
        served, alone = cli(*args, env=env), cli("--no-service", *args, env=env)
        assert served.code == alone.code == 0, served.stderr + alone.stderr
        assert served.stdout == alone.stdout and "called Biscuit" in served.stdout
    first = json.loads(cli("list", "--json", env=env).stdout)[0]["id"][:8]
    for args in (["show", first], ["show", first, "--json"]):
        served, alone = cli(*args, env=env), cli("--no-service", *args, env=env)
        assert served.code == alone.code == 0, served.stderr + alone.stderr
        assert served.stdout == alone.stdout and "sister loves pottery" in served.stdout
    missing = cli("show", "zzzz", env=env)
    assert missing.code == 1 and "'zzzz' is not a memory id" in missing.stderr


def test_remember_through_the_service_writes_as_in_process(cli: Cli, env: dict[str, str]) -> None:
    made = cli("remember", "The user plays the cello.", "--json", env=env)
    assert made.code == 0, made.stderr
    created = json.loads(made.stdout)
    assert created["action"] == "created" and created["indexed"] is True
    again = cli("--no-service", "remember", "The user plays the cello.", "--json", env=env)
    confirmed = json.loads(again.stdout)
    assert confirmed["action"] == "confirmed"
    assert confirmed["memory"]["id"] == created["memory"]["id"]
    line = cli("remember", "The user plays the cello.", env=env)
    assert line.stdout.startswith("Already known — confirmed " + created["memory"]["id"][:8])
    piped = cli("remember", "-", "--expires", "30d", "--json", env=env, input="The user likes tea.")
    assert json.loads(piped.stdout)["memory"]["expires_at"] is not None
    wrong = cli("remember", "x", "--importance", "7", env=env)
    assert wrong.code == 2 and "importance must be between 0 and 1" in wrong.stderr


def _run_light(env: dict[str, str], *args: str) -> str:
    """A command's output, run where it must import no database driver, index client or
    model (the service answers it)."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "aria_mem", *args],
        capture_output=True,
        text=True,
        env={**os.environ, **env, "NO_COLOR": "1"},
        cwd=ROOT,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    imported = {
        line.rsplit("|", 1)[-1].strip()
        for line in done.stderr.splitlines()
        if line.startswith("import time:")
    }
    for heavy in ("psycopg", "psycopg_pool", "qdrant_edge", "sentence_transformers", "httpx"):
        assert heavy not in imported
    return done.stdout


def test_search_imports_no_database_driver_index_client_or_model(
    cli: Cli, env: dict[str, str], isolated_env: Path
) -> None:
    _remember(cli, env)
    assert "sister loves pottery" in _run_light(env, "search", QUESTION)


def test_status_through_the_service_says_what_in_process_says_and_imports_no_driver(
    cli: Cli, env: dict[str, str], isolated_env: Path
) -> None:
    _remember(cli, env)  # the service runs
    served = json.loads(_run_light(env, "status", "--json"))
    here = json.loads(cli("--no-service", "status", "--json", env=env).stdout)
    assert list(served["checks"]) == list(here["checks"])
    assert served["memories"] == here["memories"] and served["memories"]["active"] == 2
    owner = served["checks"]["index"]["owner"]
    assert owner["pid"] == int((isolated_env / "data" / "index" / LOCK_NAME).read_text())
    assert owner["this_process"] is False  # the service answered for the command
    assert served["model_servers"] == here["model_servers"]
    table = cli("status", env=env)
    assert table.code == 0, table.stderr
    assert "this process" not in table.stdout and "FAIL" not in table.stdout
    assert "embedder server http://127.0.0.1:" in table.stdout
    assert "memories: 2 (2 active" in table.stdout


def test_a_service_that_dies_mid_request_is_one_line_and_the_next_command_works(
    cli: Cli, env: dict[str, str], gate: Gate, isolated_env: Path
) -> None:
    _remember(cli, env)  # the service runs
    command = subprocess.Popen(
        [sys.executable, "-m", "aria_mem", "search", HELD],
        env={**os.environ, **env, "NO_COLOR": "1", "COLUMNS": "200"},
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert gate.entered.wait(60), "the search never reached the model"
        lock = isolated_env / "data" / "index" / LOCK_NAME
        os.kill(int(lock.read_text()), signal.SIGKILL)
        out, err = command.communicate(timeout=60)
    finally:
        gate.released.set()
        if command.poll() is None:
            command.kill()
    assert command.returncode == 1
    assert len(err.strip().splitlines()) == 1, err
    assert err.startswith("error: The aria-mem service") and "stopped before it answered" in err
    assert "Traceback" not in err and out == ""
    again = cli("search", QUESTION, env=env)
    assert again.code == 0, again.stderr
    assert "sister loves pottery" in again.stdout
    assert "may have been stored" in err  # a remember cut off so is not blindly made again


def test_with_postgresql_s_own_variables_set_a_command_works_in_its_own_process(
    isolated_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """libpq reads PGHOST, PGDATABASE, ... from its own process: a service started by another
    command has other values, so neither side takes whole operations while they are set."""
    monkeypatch.setenv("PGDATABASE", "elsewhere")
    with pytest.raises(remote.NotServed, match="PGDATABASE"):
        remote.call(None, "search", {"message": QUESTION})
    assert remote._answerable(["search", "list"]) == []
    assert not (isolated_env / "data" / "index" / LOCK_NAME).exists()  # none was started
    monkeypatch.delenv("PGDATABASE")
    assert remote._answerable(["search", "list"]) == ["search", "list"]


def test_a_request_for_another_folder_is_refused_before_anything_is_made(tmp_path: Path) -> None:
    root = tmp_path / "mine" / "data" / "index"
    root.mkdir(parents=True, mode=0o700)
    request = {
        "config": str(tmp_path / "theirs" / "config.toml"),
        "config_exists": False,
        "data_dir": str(tmp_path / "theirs" / "data"),
        "env": {},
    }
    with pytest.raises(ConfigError, match="answers for its own folder only"):
        remote.settings_of(root, request)
    assert list(root.iterdir()) == []  # no no-config.toml made for a refused request
