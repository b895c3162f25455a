"""The aria-mem service as a person meets it, from the command line: started once by whichever
commands need it, replaced by the daemon, gone when idle, and no command ends by a signal."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from aria_mem.adapters.embedders.local_model import LOADING
from aria_mem.adapters.postgres import embedded
from aria_mem.adapters.service.folder import lock_held
from tests.conftest import ROOT, CliResult
from tests.test_daemon import DaemonProcess

Cli = Callable[..., CliResult]
IN_PROCESS = {
    "ARIA_MEM_EMBEDDER_PROVIDER": "sentence-transformers",
    "ARIA_MEM_RETRIEVAL_MIN_SIMILARITY": "0.25",
}
STARTED = "started the aria-mem service in the background"


@pytest.fixture
def home(isolated_env: Path) -> Iterator[Path]:
    yield isolated_env
    embedded.stop(isolated_env / "data" / "postgres")


def _service(cli: Cli, env: dict[str, str]) -> dict[str, object]:
    status = cli("status", "--json", env=env)
    owner: dict[str, object] = json.loads(status.stdout)["checks"]["index"]["owner"]
    return owner


@pytest.mark.slow
def test_24_remember_commands_at_once_on_a_fresh_home_all_succeed_and_all_are_indexed(
    home: Path,
) -> None:
    """A fresh home: no PostgreSQL, no service. Every command races to start both; one
    service wins and loads the model once; every exit code is 0 (none ends by a signal or an
    abort at exit) and every memory is indexed."""
    env = {**os.environ, **IN_PROCESS, "NO_COLOR": "1"}
    runs = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "aria_mem",
                "remember",
                f"The user's fact number {n}.",
                "--json",
            ],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in range(24)
    ]
    done = [(run.communicate(timeout=300), run.returncode) for run in runs]
    assert [code for _, code in done] == [0] * 24, [err for (_, err), _ in done if err]
    assert all(json.loads(out)["indexed"] is True for (out, _), _ in done)
    assert sum(err.count(STARTED) for (_, err), _ in done) == 1
    listed = subprocess.run(
        [sys.executable, "-m", "aria_mem", "list", "--json", "--limit", "100"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    memories = json.loads(listed.stdout)
    assert len(memories) == 24 and {m["index_state"] for m in memories} == {"indexed"}
    log = (home / "data" / "service.log").read_text()
    assert log.count(LOADING) == 1


@pytest.mark.slow
def test_the_daemon_replaces_a_service_started_on_demand_and_clients_follow(
    cli: Cli, home: Path
) -> None:
    assert cli("remember", "The user swims.", env=IN_PROCESS).code == 0
    on_demand = _service(cli, IN_PROCESS)
    assert on_demand["command"] == "on demand"
    daemon = DaemonProcess(IN_PROCESS)
    try:
        deadline = time.monotonic() + 60
        while (found := _service(cli, IN_PROCESS))["command"] != "daemon":
            assert time.monotonic() < deadline and daemon.proc.poll() is None
            time.sleep(0.2)
        assert found["pid"] == daemon.proc.pid
        made = cli("remember", "The user cycles.", "--json", env=IN_PROCESS)
        assert made.code == 0 and json.loads(made.stdout)["indexed"] is True
        assert STARTED not in made.stderr
        found_text = cli("search", "What sport does the user do?", "--json", env=IN_PROCESS)
        texts = {m["text"] for m in json.loads(found_text.stdout)["memories"]}
        assert {"The user swims.", "The user cycles."} <= texts
    finally:
        code = daemon.stop()
    assert code == 0, "\n".join(daemon.lines)
    daemon.wait_for(f"stopped the aria-mem service started on demand (pid {on_demand['pid']})")
    daemon.wait_for(f"(pid {daemon.proc.pid}, daemon) serves")
    assert not Path(f"/proc/{on_demand['pid']}").exists()


@pytest.mark.slow
def test_a_service_started_on_demand_exits_when_idle(cli: Cli, home: Path) -> None:
    env = {**IN_PROCESS, "ARIA_MEM_DAEMON_SERVICE_IDLE_EXIT": "1"}
    assert cli("remember", "The user swims.", env=env).code == 0
    root = home / "data" / "index"
    deadline = time.monotonic() + 30
    while lock_held(root):
        assert time.monotonic() < deadline, "the idle service is still running"
        time.sleep(0.1)
    assert "no client for 1 s; exiting" in (home / "data" / "service.log").read_text()
    again = cli("remember", "The user cycles.", "--json", env=env)
    assert again.code == 0 and json.loads(again.stdout)["indexed"] is True
    assert STARTED in again.stderr


@pytest.mark.slow
def test_status_is_ok_only_when_a_probe_write_goes_through(cli: Cli, home: Path) -> None:
    """Made immutable (root only: chattr +i), the shard refuses writes: status says so,
    naming the error, and is ok again once writes go through."""
    if os.geteuid() != 0:
        pytest.skip("making files immutable needs root")
    assert cli("remember", "The user swims.", env=IN_PROCESS).code == 0
    healthy = cli("status", "--json", env=IN_PROCESS)
    assert healthy.code == 0 and json.loads(healthy.stdout)["checks"]["index"]["ok"] is True
    shard = home / "data" / "index" / "memories"
    subprocess.run(["chattr", "-R", "+i", str(shard)], check=True)
    try:
        broken = cli("status", "--json", env=IN_PROCESS)
        index = json.loads(broken.stdout)["checks"]["index"]
        assert broken.code == 1 and index["ok"] is False
        # A service holding the shard when it turned read-only dies at the write (a bus error
        # in Qdrant Edge); status then asks a new one, which cannot open the shard for writing
        # or whose test write fails: either way it names the refusal.
        assert "test write failed" in index["error"] or "Could not open" in index["error"]
        assert "not permitted" in index["error"]
    finally:
        subprocess.run(["chattr", "-R", "-i", str(shard)], check=True)
    again = cli("status", "--json", env=IN_PROCESS)
    assert again.code == 0, again.stdout
    assert json.loads(again.stdout)["checks"]["index"]["ok"] is True


@pytest.mark.slow
def test_a_daemon_whose_index_folder_is_removed_exits_to_be_started_afresh(
    cli: Cli, home: Path
) -> None:
    """Its shards are deleted files no client can reach: it says so and exits 1 (systemd
    starts it again on a fresh folder) instead of reconciling into them."""
    daemon = DaemonProcess(IN_PROCESS)
    try:
        daemon.wait_for("pass:", timeout=60)
        shutil.rmtree(home / "data" / "index")
        assert daemon.proc.wait(timeout=60) == 1, "\n".join(daemon.lines)
    finally:
        if daemon.proc.poll() is None:
            daemon.proc.kill()
    daemon.wait_for("the index folder was removed under the service; exiting")


def test_the_service_this_process_runs_is_found_by_any_name_of_its_folder(
    tmp_path: Path,
) -> None:
    """Its own clients are answered in place whether they name the folder as it was hosted
    or by another way to it (a link); once let go, by neither."""
    from aria_mem.adapters.service import folder

    root = tmp_path / "index"
    root.mkdir()
    (tmp_path / "link").symlink_to(root)
    service = object()
    folder.host(root, service)  # type: ignore[arg-type]
    try:
        assert folder.hosted(root) is service
        assert folder.hosted(tmp_path / "link") is service
        assert folder.hosted(tmp_path / "other") is None
    finally:
        folder.unhost(root=root, service=service)  # type: ignore[arg-type]
    assert folder.hosted(root) is None and folder.hosted(tmp_path / "link") is None
