"""Watching a change in another thread wait for a lock another PostgreSQL session holds."""

from __future__ import annotations

import threading
import time
from typing import Any

import psycopg
import pytest


def _blocked_by(probe: psycopg.Connection[Any], holder_pid: int) -> bool:
    row = probe.execute(
        "SELECT count(*) FROM pg_stat_activity WHERE %s = ANY(pg_blocking_pids(pid))",
        (holder_pid,),
    ).fetchone()
    return bool(row and row[0])


def finished_or_waiting(
    thread: threading.Thread, probe: psycopg.Connection[Any], holder_pid: int
) -> bool:
    """True once ``thread`` has finished, False once it waits for what ``holder_pid`` holds."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if not thread.is_alive():
            return True
        if _blocked_by(probe, holder_pid):
            return False
        time.sleep(0.02)
    pytest.fail("the change neither finished nor waited")
