"""A second local account for the tests that prove aria-mem keeps it out (run as root)."""

from __future__ import annotations

import fcntl
import json
import os
import pwd
import shutil
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

INTRUDER = "aria_intruder"
NEIGHBOUR = "aria_neighbour"


@dataclass(frozen=True)
class Intruder:
    name: str
    uid: int
    gid: int
    python: str

    def run(self, code: str, *args: str) -> dict[str, object]:
        """Run Python ``code`` as the second account; it prints one JSON object."""
        done = subprocess.run(
            [self.python, "-c", textwrap.dedent(code), *args],
            capture_output=True,
            text=True,
            timeout=60,
            user=self.uid,
            group=self.gid,
            extra_groups=[],
            cwd="/",
            env={"PATH": os.environ.get("PATH", ""), "HOME": "/nonexistent", "PYTHONPATH": ""},
        )
        assert done.returncode == 0, done.stderr
        result: dict[str, object] = json.loads(done.stdout)
        return result

    def start(self, code: str, *args: str) -> subprocess.Popen[str]:
        """A program of the second account that keeps running while the test goes on."""
        return subprocess.Popen(
            [self.python, "-c", code, *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            user=self.uid,
            group=self.gid,
            extra_groups=[],
            cwd="/",
            env={"PATH": os.environ.get("PATH", ""), "HOME": "/nonexistent", "PYTHONPATH": ""},
        )


SLOW_CLIENTS = r"""
import json, select, socket, sys, time
host, port, path = "127.0.0.1", int(sys.argv[1]), sys.argv[2]
half = f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUser-Agent: slow".encode()
slow = []
for _ in range(40):
    one = socket.create_connection((host, port), timeout=10)
    one.sendall(half)
    slow.append(one)
print("ready", flush=True)
sys.stdin.readline()

def shut(one):
    try:
        return one.recv(1) == b""
    except OSError:
        return True

ready, _, _ = select.select(slow, [], [], 0)
pushed_out = sum(shut(one) for one in ready)
left = list(slow)
deadline = time.monotonic() + 60
while left and time.monotonic() < deadline:
    ready, _, _ = select.select(left, [], [], 1)
    left = [one for one in left if one not in ready or not shut(one)]
print(json.dumps({"pushed_out": pushed_out, "left_open": len(left)}), flush=True)
"""
"""Forty connections of the second account (arguments: the port and a path) that each send
half a request and wait; told to go on, it says how many the server had closed by then, and
whether all were closed within a minute."""


@pytest.fixture(scope="session")
def intruder() -> Intruder:
    """The second account, created once and left in place (as the embedded server's account
    is): another test worker may still be using it when this one finishes."""
    return _account(INTRUDER, system=True)


@pytest.fixture(scope="session")
def neighbour() -> Intruder:
    """Another person's account: an ordinary one (uid from UID_MIN up), where the intruder is
    a system account; aria-mem uses a model server of the one and not of the other."""
    return _account(NEIGHBOUR, system=False)


def _account(name: str, *, system: bool) -> Intruder:
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        pytest.skip("creating a second local account needs root; run the suite as root")
    if shutil.which("useradd") is None:
        pytest.skip("useradd is not available to create a second local account")
    lock_path = "/run/aria-test-intruder.lock"
    with open(os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)) as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # two workers at once would race in useradd
        try:
            pwd.getpwnam(name)
        except KeyError:
            subprocess.run(
                ["useradd", *(["--system"] if system else []), "--no-create-home",
                 "--shell", "/usr/sbin/nologin", name],
                check=True,
                capture_output=True,
            )  # fmt: skip
    entry = pwd.getpwnam(name)
    return Intruder(
        entry.pw_name, entry.pw_uid, entry.pw_gid, _python_for(entry.pw_uid, entry.pw_gid)
    )


def _python_for(uid: int, gid: int) -> str:
    """A Python the second account can run (ours may live in root's home): the system one."""
    for candidate in ("/usr/bin/python3", "/usr/local/bin/python3", sys.executable):
        probe = (
            subprocess.run(
                [candidate, "-c", "print('ok')"],
                capture_output=True,
                text=True,
                user=uid,
                group=gid,
                extra_groups=[],
                cwd="/",
                check=False,
            )
            if Path(candidate).exists()
            else None
        )
        if probe is not None and probe.stdout.strip() == "ok":
            return candidate
    pytest.skip("no Python that a second account may run (needed to play the intruder)")
