"""Opt-in suite against real PostgreSQL, Qdrant and Ollama containers (docker-compose.yml).

Runs only with ARIA_MEM_DOCKER_TESTS=1 on a machine with a Docker engine; it is skipped
cleanly everywhere else (these machines have only the Docker client, no engine)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import CliResult

pytestmark = pytest.mark.docker


def _engine_available() -> bool:
    if os.environ.get("ARIA_MEM_DOCKER_TESTS") != "1" or shutil.which("docker") is None:
        return False
    return subprocess.run(["docker", "info"], capture_output=True).returncode == 0


if not _engine_available():
    pytest.skip(
        "opt-in Docker suite: set ARIA_MEM_DOCKER_TESTS=1 on a machine with a Docker engine",
        allow_module_level=True,
    )


@pytest.fixture(scope="session")
def docker_compose_file() -> str:
    return str(Path(__file__).resolve().parents[2] / "docker-compose.yml")


@pytest.fixture(scope="session")
def stack(docker_services: Any) -> dict[str, str]:
    import httpx
    import ollama
    import psycopg

    dsn = "postgresql://aria:aria@127.0.0.1:55432/aria"

    def pg_up() -> bool:
        try:
            psycopg.connect(dsn, connect_timeout=1).close()
            return True
        except psycopg.OperationalError:
            return False

    def http_up(url: str) -> Callable[[], bool]:
        def check() -> bool:
            try:
                return httpx.get(url, timeout=1).status_code < 500
            except httpx.HTTPError:
                return False

        return check

    docker_services.wait_until_responsive(check=pg_up, timeout=60, pause=1)
    docker_services.wait_until_responsive(
        check=http_up("http://127.0.0.1:56333/readyz"), timeout=60, pause=1
    )
    docker_services.wait_until_responsive(
        check=http_up("http://127.0.0.1:51434/api/tags"), timeout=60, pause=1
    )
    ollama.Client(host="http://127.0.0.1:51434").pull("all-minilm")
    return {
        "ARIA_MEM_POSTGRES_DSN": dsn,
        "ARIA_MEM_INDEX_URL": "http://127.0.0.1:56333",
        "ARIA_MEM_EMBEDDER_HOST": "http://127.0.0.1:51434",
        "ARIA_MEM_EMBEDDER_MODEL": "all-minilm",
    }


def test_remember_and_status_against_real_servers(
    cli: Callable[..., CliResult], stack: dict[str, str]
) -> None:
    made = cli("remember", "The user's sister loves pottery.", "--json", env=stack)
    assert made.code == 0 and json.loads(made.stdout)["indexed"] is True
    status = json.loads(cli("status", "--json", env=stack).stdout)
    assert status["ok"] is True
    assert status["checks"]["index"]["collections"]["memories"]["vector_size"] == 384
