"""`aria-mem daemon` and `aria-mem reindex` as real processes: one daemon per database,
surviving a PostgreSQL restart, refusing a wrong vector size, and a re-index that survives
kill -9."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import psycopg
import pytest

from aria_mem.adapters.postgres import embedded
from aria_mem.adapters.postgres.store import PostgresStore
from aria_mem.adapters.qdrant_edge import EdgeIndex
from aria_mem.adapters.service.protocol import PROTOCOL
from aria_mem.adapters.service.shared_index import SharedEdgeIndex
from aria_mem.domain.models import MEMORIES_COLLECTION, NewMemory
from aria_mem.domain.records import DaemonState
from tests.conftest import ROOT, CliResult, closed_port
from tests.fakes.ollama_server import FakeOllama, FakeOllamaState

Cli = Callable[..., CliResult]


class DaemonProcess:
    """A daemon in a child process whose log lines the test can wait for."""

    def __init__(self, env: dict[str, str], *args: str) -> None:
        self.lines: list[str] = []
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "aria_mem", "-vv", "daemon", "--interval", "0.3", *args],
            cwd=ROOT,
            env={**os.environ, **env},
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line.rstrip())

    def wait_for(self, text: str, timeout: float = 30, after: int = 0) -> int:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for n, line in enumerate(self.lines[after:], start=after):
                if text in line:
                    return n
            time.sleep(0.05)
        raise AssertionError(f"no log line with {text!r} in:\n" + "\n".join(self.lines))

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(timeout=30)


def _pending_write(dsn: str, text: str) -> None:
    store = PostgresStore(dsn)
    store.memories.save(NewMemory(user_id="me", companion_id="aria", text=text))
    store.close()


def _state(dsn: str) -> DaemonState:
    store = PostgresStore(dsn)
    state = store.daemon.daemon_state()
    store.close()
    assert state is not None
    return state


def test_daemon_indexes_what_is_written_behind_its_back_and_reports_to_status(
    cli: Cli, env: dict[str, str], embedded_dsn: str
) -> None:
    daemon = DaemonProcess(env)
    try:
        daemon.wait_for("reconciling this database")
        _pending_write(embedded_dsn, "The user plays chess.")
        daemon.wait_for("pass: indexed=1")
        status = cli("status", "--json", env=env)
        report = json.loads(status.stdout)
        assert status.code == 0, status.stdout
        check = report["checks"]["daemon"]
        assert check["running"] is True and check["pid"] == daemon.proc.pid
        assert report["memories"]["indexed"] == 1
        owner = report["checks"]["index"]["owner"]
        assert (owner["pid"], owner["command"], owner["this_process"]) == (
            daemon.proc.pid,
            "daemon",
            False,
        )
        assert owner["protocol"] == PROTOCOL and owner["uptime_s"] > 0
        human = cli("status", env={**env, "COLUMNS": "400"})  # one line, however long the path
        assert "running, pid" in human.stdout
        assert "served by the aria-mem service" in human.stdout
        assert "aria-mem daemon" in human.stdout
    finally:
        assert daemon.stop() == 0
    assert "stopping" in " ".join(daemon.lines[-3:])
    alone = json.loads(cli("status", "--json", env=env).stdout)["checks"]["index"]["owner"]
    assert (alone["command"], alone["this_process"]) == ("on demand", False)
    assert alone["pid"] != daemon.proc.pid


def test_only_one_daemon_reconciles_and_the_other_takes_over(
    env: dict[str, str], embedded_dsn: str
) -> None:
    first = DaemonProcess(env)
    first.wait_for("reconciling this database")
    second = DaemonProcess(env)
    try:
        second.wait_for("another aria-mem daemon")
        _pending_write(embedded_dsn, "The user plays chess.")
        first.wait_for("pass: indexed=1")
        assert not any("pass:" in line for line in second.lines)
        assert first.stop() == 0
        second.wait_for("reconciling this database")
    finally:
        first.stop()
        assert second.stop() == 0


def test_dimension_mismatch_at_start_is_recorded_and_nothing_is_written(
    cli: Cli, env: dict[str, str], embedded_dsn: str, isolated_env: Path
) -> None:
    wrong = EdgeIndex(isolated_env / "data" / "index")
    wrong.ensure_collection(MEMORIES_COLLECTION, 16)
    wrong.close()
    _pending_write(embedded_dsn, "The user plays chess.")
    daemon = DaemonProcess(env)
    try:
        daemon.wait_for("dimension mismatch")
        time.sleep(1)  # a few passes
        state = _state(embedded_dsn)
        assert state.dimension is not None and state.dimension.ok is False
        status = cli("status", "--json", env=env)
        assert status.code == 1
        report = json.loads(status.stdout)
        assert report["checks"]["daemon"]["ok"] is False
        assert "16-dimensional" in report["checks"]["daemon"]["error"]
        assert report["checks"]["index"]["collections"]["memories"]["points"] == 0
        assert report["memories"]["pending"] == 1
    finally:
        assert daemon.stop() == 0


def test_daemon_survives_a_postgres_restart(
    cli: Cli, fake_ollama: FakeOllama, isolated_env: Path
) -> None:
    env = {"ARIA_MEM_EMBEDDER_HOST": fake_ollama.url}
    pgdata = isolated_env / "data" / "postgres"
    assert cli("remember", "The user swims.", env=env).code == 0  # starts embedded PostgreSQL
    dsn = embedded.ensure_running(pgdata)
    daemon = DaemonProcess(env)
    try:
        daemon.wait_for("reconciling this database")
        seen = daemon.wait_for("pass:")
        embedded.stop(pgdata)
        daemon.wait_for("retrying", after=seen)
        time.sleep(1)
        assert daemon.proc.poll() is None  # still running
        dsn = embedded.ensure_running(pgdata)
        back = daemon.wait_for("reconciling this database", after=seen + 1)
        _pending_write(dsn, "The user cycles.")
        daemon.wait_for("pass: indexed=1", after=back)
    finally:
        assert daemon.stop() == 0
        embedded.stop(pgdata)


def _count_indexed(dsn: str, model: str) -> int:
    with psycopg.connect(dsn) as conn:
        row = conn.execute(
            "SELECT count(*) FROM memories WHERE index_state = 'indexed' AND indexed_model = %s",
            (model,),
        ).fetchone()
    assert row is not None
    return int(row[0])


def _write_goals(path: Path, count: int) -> None:
    """An export file of ``count`` memories with fixed ids."""
    lines = [
        json.dumps(
            {
                "id": f"00000000-0000-4000-8000-{i:012d}",
                "user_id": "me",
                "companion_id": "aria",
                "type": "Goal",
                "text": f"goal number {i}",
                "created_at": "2026-01-01T00:00:00+00:00",
            }
        )
        for i in range(count)
    ]
    path.write_text("\n".join(lines) + "\n")


def test_reindex_killed_halfway_resumes_and_leaves_only_the_new_model(
    cli: Cli, embedded_dsn: str, isolated_env: Path, tmp_path: Path
) -> None:
    _write_goals(tmp_path / "in.jsonl", 200)
    state = FakeOllamaState(dim=64, model_dims={"nomic-embed-text": 32})
    with FakeOllama(state) as server:
        env = {
            "ARIA_MEM_POSTGRES_DSN": embedded_dsn,
            "ARIA_MEM_EMBEDDER_HOST": server.url,
            "ARIA_MEM_EMBEDDER_BATCH_SIZE": "10",
        }
        assert cli("import", str(tmp_path / "in.jsonl"), env=env).code == 0
        assert _count_indexed(embedded_dsn, "ollama/mxbai-embed-large") == 200
        state.embed_delay = 0.1
        proc = subprocess.Popen(
            [sys.executable, "-m", "aria_mem", "reindex", "--model", "nomic-embed-text"],
            cwd=ROOT,
            env={**os.environ, **env},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 60
        while _count_indexed(embedded_dsn, "ollama/nomic-embed-text") < 50:
            assert time.monotonic() < deadline and proc.poll() is None
            time.sleep(0.05)
        proc.kill()
        proc.wait()
        halfway = _count_indexed(embedded_dsn, "ollama/nomic-embed-text")
        assert 50 <= halfway < 200
        state.embed_delay = 0.0
        calls_before = sum(len(c) for c in state.embed_calls)
        again = cli("reindex", "--json", env=env)  # plain: resumes the interrupted --model run
        assert again.code == 0, again.stderr
        resumed = json.loads(again.stdout)
        re_embedded = sum(len(c) for c in state.embed_calls) - calls_before
    assert resumed["finished"] is True and resumed["total"] == 200
    assert resumed["resumed_after"] == halfway and resumed["done"] == 200 - halfway
    assert re_embedded <= 200 - halfway + 1 + 10  # the rest (and a probe), not all again
    assert _count_indexed(embedded_dsn, "ollama/nomic-embed-text") == 200
    index = SharedEdgeIndex(isolated_env / "data" / "index")  # through the running service
    assert index.collection_size(MEMORIES_COLLECTION) == 32
    assert index.count(MEMORIES_COLLECTION) == 200
    index.close()
    config = (isolated_env / "config.toml").read_text()
    assert 'model = "nomic-embed-text"' in config


def test_a_killed_rebuild_resumes_where_it_stopped(
    cli: Cli, embedded_dsn: str, tmp_path: Path
) -> None:
    """A plain `reindex` (rebuild from PostgreSQL) killed halfway: running it again re-embeds
    only what is left, not every memory from the start."""
    _write_goals(tmp_path / "in.jsonl", 200)
    state = FakeOllamaState(dim=64)
    with FakeOllama(state) as server:
        env = {
            "ARIA_MEM_POSTGRES_DSN": embedded_dsn,
            "ARIA_MEM_EMBEDDER_HOST": server.url,
            "ARIA_MEM_EMBEDDER_BATCH_SIZE": "10",
        }
        assert cli("import", str(tmp_path / "in.jsonl"), env=env).code == 0
        model = "ollama/mxbai-embed-large"
        state.embed_delay = 0.1
        proc = subprocess.Popen(
            [sys.executable, "-m", "aria_mem", "reindex"],
            cwd=ROOT,
            env={**os.environ, **env},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 60
        while _count_pending(embedded_dsn) == 0 or _count_indexed(embedded_dsn, model) < 50:
            assert time.monotonic() < deadline and proc.poll() is None
            time.sleep(0.05)
        proc.kill()
        proc.wait()
        left = _count_pending(embedded_dsn)
        assert 0 < left <= 150
        state.embed_delay = 0.0
        calls_before = sum(len(c) for c in state.embed_calls)
        again = cli("reindex", "--json", env=env)
        assert again.code == 0, again.stderr
        resumed = json.loads(again.stdout)
        re_embedded = sum(len(c) for c in state.embed_calls) - calls_before
    assert resumed["resumed_after"] == 200 - left and resumed["done"] == left
    assert re_embedded <= left + 1  # what was left (and a probe), not all 200 again
    assert _count_indexed(embedded_dsn, model) == 200


def _count_pending(dsn: str) -> int:
    with psycopg.connect(dsn) as conn:
        row = conn.execute("SELECT count(*) FROM memories WHERE index_state = 'pending'").fetchone()
    assert row is not None
    return int(row[0])


def test_reindex_rebuilds_a_deleted_index_directory(
    cli: Cli, env: dict[str, str], isolated_env: Path
) -> None:
    for text in ("The user swims.", "The user cycles.", "The user runs."):
        cli("remember", text, env=env)
    gone = json.loads(cli("list", "--json", env=env).stdout)[2]["id"]
    cli("archive", gone, env=env)
    shutil.rmtree(isolated_env / "data" / "index")
    rebuilt = cli("reindex", "--json", env=env)
    assert rebuilt.code == 0, rebuilt.stderr
    assert json.loads(rebuilt.stdout)["done"] == 3  # two vectors written, one kept out
    status = json.loads(cli("status", "--json", env=env).stdout)
    assert status["checks"]["index"]["collections"]["memories"]["points"] == 2


def test_reindex_background_hands_work_to_the_daemon(
    cli: Cli, env: dict[str, str], embedded_dsn: str
) -> None:
    cli("remember", "The user swims.", env=env)
    daemon = DaemonProcess(env)
    try:
        daemon.wait_for("reconciling this database")
        handed = cli("reindex", "--model", "nomic-embed-text", "--background", "--json", env=env)
        assert handed.code == 0, handed.stderr
        assert json.loads(handed.stdout)["daemon_running"] is True
        daemon.wait_for("re-index to ollama/nomic-embed-text finished", timeout=60)
        assert _count_indexed(embedded_dsn, "ollama/nomic-embed-text") == 1
    finally:
        assert daemon.stop() == 0


def test_reindex_refuses_a_model_that_does_not_answer(
    cli: Cli, env: dict[str, str], isolated_env: Path
) -> None:
    result = cli("reindex", "--model", "no-such-model", env=env)
    assert result.code == 1 and "ollama pull no-such-model" in result.stderr
    assert not (isolated_env / "config.toml").exists()


def test_status_says_a_daemon_stopped_cleanly_or_killed_is_not_running(
    cli: Cli, env: dict[str, str]
) -> None:
    def running() -> bool:
        report = json.loads(cli("status", "--json", env=env).stdout)
        return bool(report["checks"]["daemon"]["running"])

    daemon = DaemonProcess(env)
    daemon.wait_for("pass:")
    assert running()
    assert daemon.stop() == 0
    assert not running()  # stopped cleanly: it said so

    killed = DaemonProcess(env)
    killed.wait_for("pass:", after=0)
    assert running()
    killed.proc.kill()
    killed.proc.wait()
    assert not running()  # killed a moment ago: its heartbeat is fresh, its process is gone


def test_status_index_check_fails_when_the_index_folder_was_deleted(
    cli: Cli, env: dict[str, str], isolated_env: Path
) -> None:
    cli("remember", "The user swims.", env=env)
    assert cli("status", env=env).code == 0
    shutil.rmtree(isolated_env / "data" / "index")
    status = cli("status", "--json", env=env)
    assert status.code == 1
    check = json.loads(status.stdout)["checks"]["index"]
    assert check["ok"] is False and "aria-mem reindex" in check["error"]


@pytest.mark.slow
def test_status_writes_to_the_index_and_fails_when_writes_fail(
    cli: Cli, env: dict[str, str], tmp_path: Path
) -> None:
    """An index that opens and answers reads can still refuse every write: `status` is ok
    only after a test write (and its removal) went through, and says why when it did not.
    The index here is qdrant-client's local mode, whose points file is made immutable
    (chattr +i: refused even to root) while the folder stays writable."""
    local = {**env, "ARIA_MEM_INDEX_URL": f"local:{tmp_path / 'qdrant'}"}
    assert cli("remember", "The user swims.", env=local).code == 0
    healthy = cli("status", "--json", env=local)
    assert healthy.code == 0, healthy.stdout
    index = json.loads(healthy.stdout)["checks"]["index"]
    assert index["ok"] and index["collections"][MEMORIES_COLLECTION]["points"] == 1
    storage = [str(p) for p in (tmp_path / "qdrant").rglob("*.sqlite")]
    assert storage
    frozen = subprocess.run(["chattr", "+i", *storage], capture_output=True, check=False)
    if frozen.returncode != 0:
        pytest.skip(f"chattr +i is not available here: {frozen.stderr.decode().strip()}")
    try:
        broken = cli("status", "--json", env=local)
    finally:
        subprocess.run(["chattr", "-i", *storage], check=True)
    assert broken.code == 1
    index = json.loads(broken.stdout)["checks"]["index"]
    assert index["ok"] is False and "test write failed" in index["error"]
    assert "readonly" in index["error"]
    assert index["collections"][MEMORIES_COLLECTION]["points"] == 1  # reads still worked


def test_status_names_why_pending_memories_wait(cli: Cli, env: dict[str, str]) -> None:
    down = {**env, "ARIA_MEM_EMBEDDER_HOST": f"http://127.0.0.1:{closed_port()}"}
    assert cli("remember", "The user swims.", env=down).code == 0
    shown = cli("status", env=down)
    assert "last error: No embedding model answered" in " ".join(shown.stdout.split())
    memories = json.loads(cli("status", "--json", env=down).stdout)["memories"]
    assert memories["pending"] == 1
    assert "No embedding model answered" in memories["last_index_error"]
    assert cli("sync", env=env).code == 0
    memories = json.loads(cli("status", "--json", env=env).stdout)["memories"]
    assert memories["pending"] == 0 and memories["last_index_error"] is None


def test_stop_ends_the_service_and_the_embedded_postgres(
    cli: Cli, isolated_env: Path, fake_ollama: FakeOllama
) -> None:
    home_env = {"ARIA_MEM_EMBEDDER_HOST": fake_ollama.url}
    pgdata = isolated_env / "data" / "postgres"
    assert cli("remember", "The user swims.", env=home_env).code == 0
    daemon = DaemonProcess(home_env)
    try:
        daemon.wait_for("sweep:")  # it runs the service
        done = cli("stop", "--json", env=home_env)
        assert done.code == 0, done.stderr
        assert json.loads(done.stdout) == {
            "index_owner_pid": daemon.proc.pid,
            "postgres_stopped": True,
        }
        assert daemon.proc.wait(timeout=30) == 0
        assert not (pgdata / "postmaster.pid").exists()
        again = cli("stop", env=home_env)
        assert again.code == 0 and "Nothing was running" in again.stdout
        listed = cli("list", "--json", env=home_env)  # starts PostgreSQL again
        assert listed.code == 0 and len(json.loads(listed.stdout)) == 1
    finally:
        daemon.stop()
        embedded.stop(pgdata)


def test_journal_lines_carry_syslog_priorities_and_tracebacks_keep_theirs() -> None:
    import logging

    from aria_mem.cli.logs import JournalFormatter, priority

    assert [priority(n) for n in (50, 40, 30, 20, 10, 25, 5)] == [2, 3, 4, 6, 7, 6, 7]
    formatter = JournalFormatter("%(name)s: %(message)s")
    record = logging.LogRecord("aria_mem.daemon", logging.WARNING, "", 0, "one\ntwo", None, None)
    assert formatter.format(record) == "<4>aria_mem.daemon: one\n<4>two"


def test_daemon_under_the_journal_logs_priorities_no_http_lines_and_idle_passes_quietly(
    env: dict[str, str], embedded_dsn: str
) -> None:
    journal = {**os.environ, **env, "JOURNAL_STREAM": "8:12345"}
    _pending_write(embedded_dsn, "The user knits.")

    def once() -> list[str]:
        done = subprocess.run(
            [sys.executable, "-m", "aria_mem", "daemon", "--once"],
            cwd=ROOT,
            env=journal,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        return done.stderr.splitlines()

    busy = once()
    assert any(line.startswith("<6>aria_mem.daemon: pass: indexed=1") for line in busy), busy
    assert all(line.startswith("<") for line in busy), busy
    assert not any("HTTP Request" in line for line in busy), busy
    idle = once()
    assert not any("pass:" in line for line in idle), idle  # nothing done: debug only


def test_the_systemd_unit_is_hardened_and_writes_only_aria_mems_folders() -> None:
    import configparser

    import platformdirs

    text = (ROOT / "scripts" / "systemd" / "aria-mem.service").read_text()
    unit = configparser.ConfigParser(strict=False, interpolation=None)
    unit.optionxform = str  # type: ignore[assignment,method-assign]
    unit.read_string(text)
    service = unit["Service"]
    assert service["ExecStart"] == "@ARIA_MEM@ daemon"
    assert service["EnvironmentFile"].startswith("-")  # optional
    assert (service["NoNewPrivileges"], service["ProtectSystem"], service["PrivateTmp"]) == (
        "yes",
        "strict",
        "yes",
    )
    writable = service["ReadWritePaths"].split()
    home = Path.home()
    for folder in (
        platformdirs.user_data_dir("aria-mem"),
        platformdirs.user_config_dir("aria-mem"),
    ):
        relative = Path(folder).relative_to(home)
        assert f"-%h/{relative}" in writable, (relative, writable)
    assert "loginctl enable-linger" in text


_CLIENT = """
import sys
from aria_mem import AriaMem
with AriaMem.open() as memory:
    for line in sys.stdin:
        result = memory.remember(line.strip())
        print(result.indexed, result.problem, flush=True)
"""
"""A long-lived process on the index (as a chat is): one memory per line it reads."""


@pytest.mark.slow
def test_a_config_edit_while_a_client_runs_leaves_the_index_whole(
    cli: Cli, env: dict[str, str], isolated_env: Path
) -> None:
    """The daemon reloads its config by letting go of the index and taking it again. A client
    connected to it (a chat) must not end up writing to shards the daemon still holds, nor the
    daemon open a shard twice: every later write, from the client, a new process or the
    daemon, is indexed, and `sync` finds nothing broken."""
    assert cli("init", "--provider", "ollama", env=env).code == 0
    daemon = DaemonProcess(env)
    daemon.wait_for("sweep:")  # the daemon owns the index; the client below is its client
    client = subprocess.Popen(
        [sys.executable, "-c", _CLIENT],
        cwd=ROOT,
        env={**os.environ, **env},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert client.stdin is not None and client.stdout is not None
    try:

        def remember_in_client(text: str) -> str:
            assert client.stdin is not None and client.stdout is not None
            client.stdin.write(text + "\n")
            client.stdin.flush()
            return client.stdout.readline().strip()

        assert remember_in_client("The user likes tea.") == "True None"
        config = isolated_env / "config.toml"
        mark = len(daemon.lines)
        time.sleep(1.1)  # a new modification time, whatever the file system's resolution
        config.write_text(config.read_text() + "\n")
        daemon.wait_for("config changed; reloading", after=mark)
        daemon.wait_for("pass:", after=mark)  # the daemon works on the index again
        assert remember_in_client("The user likes coffee.") == "True None"
        fresh = cli("remember", "The user likes cocoa.", "--json", env=env)
        assert fresh.code == 0 and json.loads(fresh.stdout)["indexed"], fresh.stdout
        client.stdin.close()
        assert client.wait(timeout=60) == 0, client.stderr.read() if client.stderr else ""
        after = cli("remember", "The user likes juice.", "--json", env=env)
        assert after.code == 0 and json.loads(after.stdout)["indexed"], after.stdout
        assert cli("sync", env=env).code == 0
        listed = json.loads(cli("list", "--json", env=env).stdout)
        assert [m["index_state"] for m in listed] == ["indexed"] * 4
        assert cli("status", env=env).code == 0
    finally:
        if client.poll() is None:
            client.kill()
        assert daemon.stop() == 0
    assert not [line for line in daemon.lines if "shorter than expected" in line]
