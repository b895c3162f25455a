"""A command just after the embedded PostgreSQL was killed: the killed postmaster's backends
still run (one busy in a query notices its postmaster's death only when the query ends) and
hold the server's shared memory, so PostgreSQL refuses to start; the command waits for them,
bounded, then starts the server. Real processes throughout: the server, a client busy in a
query from another process, SIGKILL."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import psycopg
import pytest

from aria_mem.adapters.postgres import embedded, old_server
from aria_mem.adapters.postgres.server_account import server_account
from aria_mem.errors import StoreError
from tests.conftest import CliResult
from tests.fakes.ollama_server import FakeOllama

Cli = Callable[..., CliResult]

BUSY = """
import sys, psycopg
conn = psycopg.connect(sys.argv[1], autocommit=True)
print(conn.info.backend_pid, flush=True)
try:
    conn.execute(
        "DO $$ DECLARE t timestamptz := clock_timestamp(); BEGIN"
        " WHILE clock_timestamp() < t + make_interval(secs => %s) LOOP END LOOP; END $$"
        % float(sys.argv[2])
    )
except psycopg.Error:
    pass  # the server is gone by then
"""
"""A client whose backend computes for a while (a busy loop never checks for its postmaster's
death; an idle backend, or one in pg_sleep, would exit at once)."""


@pytest.fixture
def pgdata(isolated_env: Path) -> Iterator[Path]:
    folder = isolated_env / "data" / "postgres"
    yield folder
    embedded.stop(folder)


def _busy_backend(dsn: str, seconds: float) -> tuple[subprocess.Popen[str], int]:
    """A client process in a query that computes for ``seconds`` (by the clock: niced, so
    other work on the machine comes first, it still ends when it would); its backend's pid
    once the query runs."""
    client = subprocess.Popen(
        [sys.executable, "-c", BUSY, dsn, str(seconds)], stdout=subprocess.PIPE, text=True
    )
    assert client.stdout is not None
    backend = int(client.stdout.readline())
    os.setpriority(os.PRIO_PROCESS, backend, 19)  # it burns a core; the other tests go first
    with psycopg.connect(dsn, autocommit=True) as conn:
        for _ in range(200):
            row = conn.execute(
                "SELECT state FROM pg_stat_activity WHERE pid = %s", (backend,)
            ).fetchone()
            if row is not None and row[0] == "active":
                break
            time.sleep(0.05)
        else:
            pytest.fail("the busy client's query never started")
    return client, backend


def _kill_postmaster(pgdata: Path) -> int:
    postmaster = int((pgdata / "postmaster.pid").read_text().splitlines()[0])
    os.kill(postmaster, signal.SIGKILL)
    while not old_server.is_dead(postmaster):
        time.sleep(0.01)
    return postmaster


def _alive(pid: int) -> bool:
    """Alive and not a zombie, from the real /proc (whatever a test makes ``old_server``
    read)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[0] != "Z"


@pytest.mark.slow
def test_a_command_right_after_a_crash_waits_for_the_old_backends_then_starts_postgres(
    cli: Cli, pgdata: Path, fake_ollama: FakeOllama
) -> None:
    env = {"ARIA_MEM_EMBEDDER_HOST": fake_ollama.url}
    assert cli("remember", "The user swims in the lake.", env=env).code == 0
    client, backend = _busy_backend(embedded.ensure_running(pgdata), seconds=8)
    log = pgdata / "log"
    before = log.stat().st_size
    try:
        killed = _kill_postmaster(pgdata)
        left = old_server.leftovers(pgdata, server_account().uid)
        assert left is not None and backend in left.processes and left.attached >= 1
        assert left.holding  # what makes PostgreSQL refuse: "... is still in use"

        listed = cli("list", "--json", env=env)
        assert listed.code == 0, listed.stderr
        assert [m["text"] for m in json.loads(listed.stdout)] == ["The user swims in the lake."]
        assert not _alive(backend)
        written = log.read_bytes()[before:].decode()
        assert "pre-existing shared memory block" not in written  # waited for, not raced
        assert written.index("unexpected postmaster exit") < written.index("starting PostgreSQL")
        assert int((pgdata / "postmaster.pid").read_text().splitlines()[0]) != killed
    finally:
        client.communicate(timeout=60)


def test_processes_that_outlast_the_wait_are_named_with_the_fix(
    pgdata: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    client, backend = _busy_backend(embedded.ensure_running(pgdata), seconds=30)
    try:
        killed = _kill_postmaster(pgdata)
        monkeypatch.setattr(old_server, "WAIT_S", 1.0)
        with pytest.raises(old_server.HeldByOldServer) as refused:
            embedded.ensure_running(pgdata)
        message = str(refused.value)
        assert "\n" not in message
        assert f"previous server (pid {killed}) was killed" in message
        assert f"its processes {backend} still run" in message
        assert f"(kill {backend})" in message
        os.kill(backend, signal.SIGTERM)  # the fix the message names
        monkeypatch.setattr(old_server, "WAIT_S", 15.0)
        with psycopg.connect(embedded.ensure_running(pgdata)) as conn:
            assert conn.execute("SELECT 1").fetchone() == (1,)
    finally:
        client.communicate(timeout=60)


@pytest.mark.slow
def test_without_proc_the_start_is_retried_while_postgres_refuses(
    pgdata: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Where /proc tells nothing (another system), PostgreSQL's own refusal, read from its
    log, is what the start waits on."""
    client, backend = _busy_backend(embedded.ensure_running(pgdata), seconds=8)
    try:
        killed = _kill_postmaster(pgdata)
        while os.path.exists(f"/proc/{killed}"):
            time.sleep(0.05)  # reaped: its pid no longer answers a signal
        assert _alive(backend)
        monkeypatch.setattr(old_server, "PROC", tmp_path / "no-proc")
        assert old_server.leftovers(pgdata, server_account().uid) == old_server.Leftovers(
            killed, False, (), 0
        )
        log = pgdata / "log"
        before = log.stat().st_size
        with psycopg.connect(embedded.ensure_running(pgdata)) as conn:
            assert conn.execute("SELECT 1").fetchone() == (1,)
        assert old_server.refused(log, before)  # it was refused first, then retried
        assert not _alive(backend)
    finally:
        client.communicate(timeout=60)


def test_a_refusal_for_another_reason_is_not_retried(pgdata: Path) -> None:
    embedded.ensure_running(pgdata)
    embedded.stop(pgdata)
    (pgdata / "postgresql.auto.conf").write_text("shared_buffers = 'lots'\n")
    log = pgdata / "log"
    before = log.stat().st_size
    with pytest.raises(StoreError, match="Could not start the embedded PostgreSQL"):
        embedded.ensure_running(pgdata)
    written = log.read_bytes()[before:].decode()
    assert written.count('invalid value for parameter "shared_buffers"') == 1
    (pgdata / "postgresql.auto.conf").write_text("")
