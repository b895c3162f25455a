"""The one rule that says whether the daemon runs (domain.liveness), and its use on a row."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from dataclasses import replace

from aria_mem.domain.liveness import DaemonSighting, is_running
from aria_mem.domain.records import DaemonState
from aria_mem.services.health import daemon_running


def _sighting(**changes: object) -> DaemonSighting:
    fields: dict[str, object] = {
        "heartbeat_age_s": 200.0,
        "interval_s": 300.0,
        "stopped": False,
        "same_host": False,
        "process_alive": None,
    }
    fields.update(changes)
    return DaemonSighting(**fields)  # type: ignore[arg-type]


def test_the_daemons_own_interval_judges_its_heartbeat() -> None:
    # Every 300 s, 200 s since the last beat: running, whatever interval the caller's
    # config says (60 s would have called it dead).
    assert is_running(_sighting(), fallback_interval_s=60)
    assert not is_running(_sighting(heartbeat_age_s=611.0), fallback_interval_s=60)
    assert is_running(_sighting(heartbeat_age_s=609.0), fallback_interval_s=60)
    # An older daemon that recorded no interval: the caller's is all there is.
    assert not is_running(_sighting(interval_s=None), fallback_interval_s=60)
    assert is_running(_sighting(interval_s=None), fallback_interval_s=100)


def test_a_stopped_or_dead_daemon_is_not_running_however_fresh_its_heartbeat() -> None:
    assert not is_running(_sighting(heartbeat_age_s=1.0, stopped=True), 60)
    assert not is_running(_sighting(heartbeat_age_s=1.0, same_host=True, process_alive=False), 60)
    assert is_running(_sighting(heartbeat_age_s=1.0, same_host=True, process_alive=True), 60)
    assert not is_running(_sighting(heartbeat_age_s=None), 60)


def test_the_row_of_a_process_that_is_gone_or_not_aria_mem_says_not_running() -> None:
    row = DaemonState(host=socket.gethostname(), heartbeat_age_s=1.0, reconcile_interval=60.0)
    look_alike = subprocess.Popen(
        [sys.executable, "-c", "import time; print('up', flush=True); time.sleep(60)", "aria-mem"],
        cwd="/",
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert look_alike.stdout is not None and look_alike.stdout.readline() == "up\n"
        assert daemon_running(replace(row, pid=look_alike.pid), 60)
    finally:
        look_alike.kill()
        look_alike.communicate()
    assert not daemon_running(replace(row, pid=look_alike.pid), 60)  # killed, reaped
    assert not daemon_running(replace(row, pid=os.getpid()), 60)  # alive, but not aria-mem
    assert not daemon_running(replace(row, pid=1), 60)  # alive, but not aria-mem
    assert daemon_running(replace(row, host="elsewhere", pid=2**22 + 12345), 60)
    assert not daemon_running(None, 60)
