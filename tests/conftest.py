"""Shared fixtures: an isolated home per test, real PostgreSQL servers, real index engines and
fake model servers that the real client libraries talk to over sockets."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import threading
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import psycopg
import pytest

from aria_mem.adapters.embedders.ollama import OllamaEmbedder
from aria_mem.adapters.in_memory.store import InMemoryStore
from aria_mem.adapters.postgres import embedded
from aria_mem.adapters.postgres.store import PostgresStore
from aria_mem.adapters.service.folder import lock_held, stop_service
from aria_mem.errors import StoreError
from aria_mem.ports import Store
from tests import cli_forks
from tests.accounts import intruder  # noqa: F401 (a fixture: a second local account)
from tests.cli_forks import Forks
from tests.fakes.concepts import concept_embed
from tests.fakes.lmstudio_server import FakeLMStudio
from tests.fakes.ollama_server import FakeOllama, FakeOllamaState

SERVER_DSN = os.environ.get("ARIA_MEM_TEST_DSN", "")
ROOT = Path(__file__).resolve().parent.parent
CHILD = (sys.executable, "-m", "tests.fakes.index_child")
"""Another process on the embedded index (see tests/fakes/index_child.py)."""

TABLES = (
    "memories, relationships, vector_deletions, knowledge_items, knowledge_sources, "
    "daemon_state, reindex_runs, turns, conversations, memory_events, review_items"
)


@pytest.fixture(scope="session")
def _pgdata_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A cluster made once per worker that the embedded PostgreSQL of each test's home is
    copied from (``embedded.TEMPLATE_VARIABLE``): a copy took 0.2 CPU-s, initdb 0.6."""
    pgdata = tmp_path_factory.mktemp("pg-template") / "pgdata"
    embedded.make_template(pgdata)
    return pgdata


@pytest.fixture(autouse=True)
def isolated_env(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, _pgdata_template: Path
) -> Iterator[Path]:
    """Every test gets its own home and no aria-mem, Ollama or similarity settings from the
    developer's shell; an aria-mem service a command started in the background under the
    test's folder is stopped with the test, so none outlives what it serves, and so is an
    embedded PostgreSQL a command started there."""
    for key in list(os.environ):
        if (key.startswith("ARIA_MEM_") and key != "ARIA_MEM_TEST_DSN") or key in (
            "MEMORY_MIN_SIMILARITY",
            "OLLAMA_HOST",
        ):
            monkeypatch.delenv(key)
    home = tmp_path / "home"
    monkeypatch.setenv("ARIA_MEM_HOME", str(home))
    monkeypatch.setenv(embedded.TEMPLATE_VARIABLE, str(_pgdata_template))
    yield home
    for pattern in ("*/index.lock", "*/*/index.lock", "*/*/*/index.lock"):
        for lock in tmp_path.glob(pattern):
            if lock_held(lock.parent):
                stop_service(lock.parent)
    for pattern in ("*/*/postmaster.pid", "*/*/*/postmaster.pid", "*/*/*/*/postmaster.pid"):
        for pid_file in tmp_path.glob(pattern):
            with contextlib.suppress(StoreError):
                embedded.stop(pid_file.parent)


# -- PostgreSQL --------------------------------------------------------------------------


def _with_database(admin_dsn: str, name: str) -> str:
    return psycopg.conninfo.make_conninfo(admin_dsn, dbname=name)


@dataclass
class PgServer:
    kind: str
    admin_dsn: str

    def create_database(self, template: str = "") -> str:
        """A new empty database, or a copy of the database ``template`` names."""
        name = f"aria_test_{uuid.uuid4().hex[:12]}"
        copy = f' TEMPLATE "{template}"' if template else ""
        with psycopg.connect(self.admin_dsn, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"{copy}')
        return _with_database(self.admin_dsn, name)

    def drop_database(self, dsn: str) -> None:
        name = psycopg.conninfo.conninfo_to_dict(dsn)["dbname"]
        with psycopg.connect(self.admin_dsn, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(scope="session")
def embedded_pg(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PgServer]:
    pgdata = tmp_path_factory.mktemp("embedded-pg") / "pgdata"
    uri = embedded.ensure_running(pgdata)
    yield PgServer("embedded", uri)
    embedded.stop(pgdata)


@pytest.fixture(scope="session")
def server_pg() -> PgServer:
    if not SERVER_DSN:
        pytest.skip("ARIA_MEM_TEST_DSN is not set (e.g. postgresql://postgres@127.0.0.1/postgres)")
    return PgServer("server", SERVER_DSN)


@pytest.fixture(scope="session", params=["embedded", "server"])
def pg(request: pytest.FixtureRequest) -> PgServer:
    """Each PostgreSQL the suite runs against: the embedded one always, a server by DSN."""
    fixture = "embedded_pg" if request.param == "embedded" else "server_pg"
    server: PgServer = request.getfixturevalue(fixture)
    return server


@pytest.fixture(scope="session")
def _session_databases(pg: PgServer) -> Iterator[str]:
    dsn = pg.create_database()
    yield dsn
    pg.drop_database(dsn)


@pytest.fixture
def dsn(_session_databases: str) -> str:
    """A migrated database with empty tables."""
    store = PostgresStore(_session_databases)
    store.migrate()
    store.close()
    with psycopg.connect(_session_databases, autocommit=True) as conn:
        conn.execute(f"TRUNCATE {TABLES} CASCADE")
    return _session_databases


@pytest.fixture
def store(dsn: str) -> Iterator[PostgresStore]:
    s = PostgresStore(dsn)
    yield s
    s.close()


@pytest.fixture(scope="session")
def _embedded_db(embedded_pg: PgServer) -> Iterator[str]:
    dsn = embedded_pg.create_database()
    yield dsn
    embedded_pg.drop_database(dsn)


@pytest.fixture(scope="session")
def _server_db(server_pg: PgServer) -> Iterator[str]:
    dsn = server_pg.create_database()
    yield dsn
    server_pg.drop_database(dsn)


def _empty(dsn: str) -> str:
    store = PostgresStore(dsn)
    store.migrate()
    store.close()
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f"TRUNCATE {TABLES} CASCADE")
    return dsn


@pytest.fixture(params=["embedded", "server", "memory"])
def any_store(request: pytest.FixtureRequest) -> Iterator[Store]:
    """Each store the services can run on: PostgreSQL (embedded, and a server by DSN) and
    the in-memory twin. One contract holds for all of them."""
    if request.param == "memory":
        yield InMemoryStore()
        return
    dsn = _empty(request.getfixturevalue(f"_{request.param}_db"))
    store = PostgresStore(dsn)
    yield store
    store.close()


@pytest.fixture(scope="session")
def _migrated_embedded(embedded_pg: PgServer) -> Iterator[str]:
    """The name of a database migrated once per run (per worker), which embedded_dsn copies:
    a copy took 0.14 s against 0.75 s to create and migrate one (loaded 2-core machine)."""
    dsn = embedded_pg.create_database()
    store = PostgresStore(dsn)
    store.migrate()
    store.close()
    yield str(psycopg.conninfo.conninfo_to_dict(dsn)["dbname"])
    embedded_pg.drop_database(dsn)


@pytest.fixture
def embedded_dsn(embedded_pg: PgServer, _migrated_embedded: str) -> Iterator[str]:
    """A fresh migrated database on the embedded server (for CLI tests)."""
    dsn = embedded_pg.create_database(template=_migrated_embedded)
    yield dsn
    embedded_pg.drop_database(dsn)


# -- model servers -----------------------------------------------------------------------


@pytest.fixture
def fake_ollama() -> Iterator[FakeOllama]:
    with FakeOllama() as server:
        yield server


@pytest.fixture
def concept_ollama() -> Iterator[FakeOllama]:
    """A fake Ollama whose vectors follow meaning (tests/fakes/concepts.py), for the tests that
    search by it; a test file whose commands need it overrides ``fake_ollama`` with it."""
    with FakeOllama(FakeOllamaState(dim=16, embed=concept_embed)) as server:
        yield server


@pytest.fixture
def extra_env() -> dict[str, str]:
    """Settings a test file adds to ``env``: none, unless the file overrides this."""
    return {}


@pytest.fixture
def env(embedded_dsn: str, fake_ollama: FakeOllama, extra_env: dict[str, str]) -> dict[str, str]:
    """The settings a CLI test's commands run with: a fresh migrated database, the fake Ollama
    (a file that needs another one overrides ``fake_ollama``) and the file's ``extra_env``."""
    server = {"ARIA_MEM_POSTGRES_DSN": embedded_dsn, "ARIA_MEM_EMBEDDER_HOST": fake_ollama.url}
    return {**extra_env, **server}


@pytest.fixture
def fake_lmstudio() -> Iterator[FakeLMStudio]:
    import lmstudio

    lmstudio.set_sync_api_timeout(5)
    with FakeLMStudio() as server:
        yield server


@pytest.fixture
def ollama_embedder(fake_ollama: FakeOllama) -> OllamaEmbedder:
    return OllamaEmbedder("mxbai-embed-large", host=fake_ollama.url, timeout=5)


def at_once(work: Callable[[int], None], count: int) -> list[BaseException]:
    """Run ``work(0)`` ... ``work(count - 1)`` in threads at once; what they raised."""
    raised: list[BaseException] = []

    def guarded(n: int) -> None:
        try:
            work(n)
        except BaseException as exc:  # handed to the test's own thread
            raised.append(exc)

    threads = [threading.Thread(target=guarded, args=(n,)) for n in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return raised


def closed_port() -> int:
    """A local port with nothing listening."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# -- the CLI as a person runs it ---------------------------------------------------------


@dataclass
class CliResult:
    code: int
    stdout: str
    stderr: str


TERMINAL = {"COLUMNS": "200", "NO_COLOR": "1"}
"""What every command's terminal settings are, unless a test says otherwise."""


@pytest.fixture(scope="session")
def _cli_forks(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Forks]:
    with cli_forks.started(tmp_path_factory.mktemp("forks"), ROOT, TERMINAL) as forks:
        yield forks


@pytest.fixture
def cli(isolated_env: Path, _cli_forks: Forks) -> Callable[..., CliResult]:
    """Run ``aria-mem`` in a process of its own with this test's environment: forked from one
    that has imported the command line already (tests/cli_forks.py), or started afresh where a
    setting is read at import."""

    def run(
        *args: str,
        env: dict[str, str] | None = None,
        input: str | None = None,
        timeout: float = 120,
    ) -> CliResult:
        full_env = {**os.environ, **TERMINAL, **(env or {})}
        if not cli_forks.needs_fresh(full_env, _cli_forks.env):
            return CliResult(*_cli_forks.run(list(args), full_env, ROOT, input, timeout))
        done = subprocess.run(
            [sys.executable, "-m", "aria_mem", *args],
            capture_output=True,
            text=True,
            env=full_env,
            input=input,
            timeout=timeout,
            cwd=ROOT,
        )
        return CliResult(done.returncode, done.stdout, done.stderr)

    return run


# -- the run's order and summary ---------------------------------------------------------


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tests marked slow first, each file's order kept otherwise: with the Makefile's
    ``--maxschedchunk 1`` the workers take them one at a time, so no long test starts last
    and keeps the run waiting on one worker while the others are done."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """The skipped tests as one line per reason, not one per test: without a PostgreSQL server
    or a browser a newcomer sees what to install, not a hundred lines. ``-rs`` on the command
    line still lists each."""
    if "s" not in terminalreporter.config.option.reportchars:
        terminalreporter.reportchars = terminalreporter.reportchars.replace("s", "")
    skipped = terminalreporter.stats.get("skipped", [])
    reasons = Counter(_skip_reason(report) for report in skipped)
    if reasons:
        why = "one reason" if len(reasons) == 1 else f"{len(reasons)} reasons"
        terminalreporter.write_sep("=", f"{len(skipped)} skipped, for {why}")
        for reason, count in reasons.most_common():
            terminalreporter.write_line(f"{count:5d}  {reason}")


def _skip_reason(report: pytest.TestReport) -> str:
    detail = report.longrepr
    reason = str(detail[2]) if isinstance(detail, tuple) else str(detail)
    return reason.removeprefix("Skipped: ")
