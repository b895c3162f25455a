"""The single-machine default with nothing configured: an embedded PostgreSQL started once
and reused, and the Edge index shared with another process that holds it."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from aria_mem.adapters.postgres import embedded
from tests.conftest import CHILD, ROOT, CliResult
from tests.fakes.ollama_server import FakeOllama

Cli = Callable[..., CliResult]


@pytest.fixture
def home_pg(isolated_env: Path) -> Iterator[Path]:
    pgdata = isolated_env / "data" / "postgres"
    yield pgdata
    embedded.stop(pgdata)


def _postmaster_pid(pgdata: Path) -> int:
    return int((pgdata / "postmaster.pid").read_text().splitlines()[0])


def test_first_command_starts_embedded_postgres_and_later_ones_reuse_it(
    cli: Cli, home_pg: Path, fake_ollama: FakeOllama
) -> None:
    env = {"ARIA_MEM_EMBEDDER_HOST": fake_ollama.url}
    first = cli("remember", "The user is allergic to peanuts.", "--json", env=env)
    assert first.code == 0, first.stderr
    assert json.loads(first.stdout)["indexed"] is True
    pid = _postmaster_pid(home_pg)
    status = cli("status", "--json", env=env)
    assert status.code == 0
    report = json.loads(status.stdout)
    assert report["checks"]["postgres"]["target"].startswith("embedded (")
    assert report["memories"]["total"] == 1
    assert _postmaster_pid(home_pg) == pid  # reused, not restarted
    assert embedded.stop(home_pg) is True
    again = cli("list", "--json", env=env)
    assert again.code == 0 and len(json.loads(again.stdout)) == 1  # restarted, nothing lost


def test_cli_writes_through_the_process_that_runs_the_service(
    cli: Cli, home_pg: Path, isolated_env: Path, fake_ollama: FakeOllama
) -> None:
    index_root = isolated_env / "data" / "index"
    owner = subprocess.Popen(
        [*CHILD, str(index_root), "someone", "0", "hold", "serve"],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert owner.stdout is not None
        assert owner.stdout.readline().startswith("service=True")
        env = {
            "ARIA_MEM_EMBEDDER_HOST": fake_ollama.url,
            "ARIA_MEM_EMBEDDER_MODEL": "mxbai-embed-large",
        }
        for text in ("The user swims.", "The user cycles."):
            made = cli("remember", text, "--json", env=env)
            assert made.code == 0 and json.loads(made.stdout)["indexed"] is True, made.stderr
        status = json.loads(cli("status", "--json", env=env).stdout)
        assert status["checks"]["index"]["collections"]["memories"]["points"] == 2
    finally:
        owner.communicate("", timeout=30)
    assert owner.returncode == 0
