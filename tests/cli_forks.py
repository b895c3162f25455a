"""``aria-mem`` commands for the tests, each in a process of its own, forked from one that has
already imported the command line.

A test's ``cli(...)`` is a person running ``aria-mem``: a process of its own with the test's
environment, working folder and umask, stdin, stdout and stderr of its own, and an exit code.
Started afresh, such a process spent about 0.2 of its 0.3 CPU-seconds importing Python, typer,
rich and aria-mem's command line before it did anything, and the suite runs hundreds of them.
A fork of a process that has imported those (and nothing that reads settings) starts where that
import ends. What the fork cannot give, a fresh process does (``needs_fresh``): Python's own
settings (``PYTHON*``) and typer's, read when they are imported. Known differences: the forked
commands of one run share the server's hash seed (a set's order is the same in each), an
uncaught traceback shows this module's frames first, and more modules are loaded already (a
missing import in a module loaded later could go unseen; many tests still start
``python -m aria_mem`` afresh).

The server (``python -m tests.cli_forks aria_mem SOCKET``: its command line names aria_mem as
each command's does, for the checks that ask /proc whether a process is aria-mem's) takes one
command per connection: a JSON line (arguments, environment, folder, umask) with the command's
stdin, stdout and stderr passed as file descriptors; it answers the child's pid, then its exit
status as ``subprocess`` gives it.
"""

from __future__ import annotations

import contextlib
import ctypes
import importlib
import importlib.util
import json
import locale
import os
import runpy
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

READ_AT_IMPORT = (
    *("PYTHON", "TYPER_", "_TYPER_", "TERMINAL_WIDTH"),
    *("COLUMNS", "LINES", "NO_COLOR", "FORCE_COLOR", "TERM", "COLORTERM", "TTY_", "JUPYTER_"),
    *("LANG", "LC_", "PSYCOPG_"),
)
"""Settings read when Python starts or the command line is imported (Python's own and the
locale, typer's, rich's that aria_mem.cli.render's consoles are made with, psycopg's): a command
given other values than the server started with runs in a fresh process."""

PRELOADED = (
    "aria_mem.cli.app",
    "aria_mem.operations",
    "aria_mem.wiring",
    "aria_mem.api.context",
    "aria_mem.api.remote",
    "aria_mem.adapters.service.client",
    "aria_mem.adapters.postgres.store",
    "aria_mem.adapters.embedders.ollama",
    "psycopg_pool",
)
"""What the server imports before it forks: the command line, and what most commands then import
to reach the aria-mem service, PostgreSQL and the Ollama the tests fake. None reads a setting
when imported (``READ_AT_IMPORT`` names those that do)."""

REQUEST_LIMIT = 64 << 20
SERVER_ANSWERS = 60.0
"""Seconds within which the server says the pid of the command it forked."""
PR_SET_PDEATHSIG = 1


SET_BY_EACH_TEST = ("ARIA_MEM_", "OLLAMA_HOST", "MEMORY_MIN_SIMILARITY")
"""What each test sets or removes for itself (tests/conftest.py's ``isolated_env``): the server
starts without them, as no command of its reads them at import."""


def needs_fresh(env: dict[str, str], server_env: dict[str, str]) -> bool:
    """Whether a command with ``env`` must start afresh to see it: it sets or changes one of
    ``READ_AT_IMPORT`` from the server's."""
    keys = {k for k in (*env, *server_env) if k.startswith(READ_AT_IMPORT)}
    return any(env.get(k) != server_env.get(k) for k in keys)


class Forks:
    """A running server and the way to run commands through it."""

    def __init__(self, folder: Path, cwd: Path, env: dict[str, str]) -> None:
        self.socket_path = folder / "forks.sock"
        self.env = {
            **{k: v for k, v in os.environ.items() if not k.startswith(SET_BY_EACH_TEST)},
            **env,
        }
        self._log = (folder / "forks.log").open("wb")
        self._server = subprocess.Popen(
            [sys.executable, "-m", "tests.cli_forks", "aria_mem", str(self.socket_path)],
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=self._log,
            cwd=cwd,
            env={**self.env, "ARIA_FORKS_OWNER": str(os.getpid())},
        )
        deadline = time.monotonic() + 60
        while not self.socket_path.exists():
            if self._server.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the command server did not start: see {folder / 'forks.log'}")
            time.sleep(0.02)

    def close(self) -> None:
        self._server.kill()
        self._server.wait()
        self._log.close()

    def run(
        self, args: list[str], env: dict[str, str], cwd: Path, input: str | None, timeout: float
    ) -> tuple[int, str, str]:
        """Run one command; its exit code, stdout and stderr as ``subprocess.run(text=True)``
        gives them, or ``subprocess.TimeoutExpired`` after killing it."""
        umask = os.umask(0o077)
        os.umask(umask)
        request = {"args": args, "env": env, "cwd": str(cwd), "umask": umask}
        stdin_read, stdin_write = os.pipe() if input is not None else (os.dup(0), -1)
        out_read, out_write = os.pipe()
        err_read, err_write = os.pipe()
        deadline = time.monotonic() + timeout
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.connect(str(self.socket_path))
            try:  # the descriptors ride on one byte; the request, of any size, follows
                socket.send_fds(conn, [b"R"], [stdin_read, out_write, err_write])
            finally:
                for fd in (stdin_read, out_write, err_write):
                    os.close(fd)
            conn.sendall(json.dumps(request).encode() + b"\n")
            conn.settimeout(SERVER_ANSWERS)  # the pid comes as soon as it forks
            answers = conn.makefile("rb")
            pid = int(json.loads(answers.readline())["pid"])
            conn.settimeout(max(0.001, deadline - time.monotonic()))
            out, err = bytearray(), bytearray()
            readers = [
                threading.Thread(target=_drain, args=(out_read, out), daemon=True),
                threading.Thread(target=_drain, args=(err_read, err), daemon=True),
            ]
            if stdin_write != -1:
                readers.append(
                    threading.Thread(target=_feed, args=(stdin_write, input or ""), daemon=True)
                )
            for reader in readers:
                reader.start()
            try:
                status = int(json.loads(answers.readline())["status"])
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
                raise self._expired(args, timeout, readers, out, err) from None
            for reader in readers:  # as communicate(): its output must end within the time too
                reader.join(max(0.0, deadline - time.monotonic()))
            if any(reader.is_alive() for reader in readers[:2]):
                raise self._expired(args, timeout, readers, out, err)
            return status, _text(out), _text(err)

    @staticmethod
    def _expired(
        args: list[str],
        timeout: float,
        readers: list[threading.Thread],
        out: bytearray,
        err: bytearray,
    ) -> subprocess.TimeoutExpired:
        """What ``subprocess.run`` raises, with the output read so far (a process the command
        started may hold its output open: that is not waited for)."""
        for reader in readers[:2]:
            reader.join(0.2)
        return subprocess.TimeoutExpired(["aria-mem", *args], timeout, _text(out), _text(err))


def _drain(fd: int, into: bytearray) -> None:
    with open(fd, "rb", closefd=True) as pipe:
        while chunk := pipe.read1(65536):
            into.extend(chunk)


def _feed(fd: int, text: str) -> None:
    with open(fd, "wb", closefd=True) as pipe, contextlib.suppress(BrokenPipeError):
        pipe.write(text.encode(locale.getpreferredencoding(False)))


def _text(data: bytearray) -> str:
    """As ``subprocess.run(text=True)`` decodes: the locale's encoding, universal newlines."""
    text = bytes(data).decode(locale.getpreferredencoding(False))
    return text.replace("\r\n", "\n").replace("\r", "\n")


@contextlib.contextmanager
def started(folder: Path, cwd: Path, env: dict[str, str]) -> Iterator[Forks]:
    """A server whose commands are run in ``cwd`` and whose imports see ``env`` besides the
    environment: what the commands' own will say (``needs_fresh``)."""
    forks = Forks(folder, cwd, env)
    try:
        yield forks
    finally:
        forks.close()


# -- the server ------------------------------------------------------------------------------


def _serve(path: str) -> dict[str, Any]:
    """Answer commands until killed; in a forked child, return the request it is to run."""
    ctypes.CDLL(None).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)  # dies with the test process
    if os.getppid() != int(os.environ.get("ARIA_FORKS_OWNER", os.getppid())):
        return {}  # the owner went before the line above: nothing to serve
    for name in PRELOADED:
        importlib.import_module(name)

    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path + ".new")
    os.chmod(path + ".new", 0o600)
    listener.listen(64)
    os.rename(path + ".new", path)
    while True:
        conn, _ = listener.accept()
        fds: list[int] = []
        try:
            _, fds, _, _ = socket.recv_fds(conn, 1, 3)
            request = json.loads(conn.makefile("rb").readline(REQUEST_LIMIT))
            if len(fds) != 3:
                raise ValueError(f"{len(fds)} descriptors, not stdin, stdout and stderr")
        except (OSError, ValueError) as exc:  # one bad request ends its connection, not all
            print(f"refused a request: {exc}", file=sys.stderr, flush=True)
            for fd in fds:
                os.close(fd)
            conn.close()
            continue
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            listener.close()
            conn.close()
            for target, fd in enumerate(fds):
                os.dup2(fd, target)
                os.close(fd)
            return dict(request)
        for fd in fds:
            os.close(fd)
        conn.sendall(json.dumps({"pid": pid}).encode() + b"\n")
        threading.Thread(target=_report, args=(conn, pid), daemon=True).start()


def _report(conn: socket.socket, pid: int) -> None:
    _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    with conn, contextlib.suppress(OSError):
        conn.sendall(json.dumps({"status": code}).encode() + b"\n")


def _run(module: str, request: dict[str, Any]) -> None:
    """Become ``python -m MODULE ARGS``: its environment, folder and umask."""
    os.environ.clear()
    os.environ.update(request["env"])
    time.tzset()
    os.chdir(request["cwd"])
    os.umask(int(request["umask"]))
    signal.signal(signal.SIGINT, signal.default_int_handler)
    main = importlib.util.find_spec(f"{module}.__main__")
    sys.argv = [str(main.origin if main else module), *request["args"]]
    runpy.run_module(module, run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    served = _serve(sys.argv[2])
    if served:
        _run(sys.argv[1], served)
