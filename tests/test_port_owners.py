"""Ports another account can take first: who listens is told from /proc/net/tcp, `init` does
not use a model server another person's account runs (it names it), `status` names each
model server's account, and `mcp --print-config` says when nothing, or someone else, holds
the MCP port. The other accounts are real local accounts (tests/accounts.py)."""

from __future__ import annotations

import json
import os
import pwd
import socket
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from ipaddress import ip_address
from pathlib import Path

import pytest

from aria_mem import listeners
from aria_mem.api.initialise import init_config
from tests.accounts import Intruder, neighbour  # noqa: F401 (a fixture: another person)
from tests.conftest import ROOT, CliResult
from tests.fakes.ollama_server import FakeOllama

Cli = Callable[..., CliResult]

FAKE_OLLAMA = """
    import json, sys
    from http.server import BaseHTTPRequestHandler, HTTPServer

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def _send(self, body):
            data = json.dumps(body).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):
            print("GET " + self.path, flush=True)
            self._send({"models": []})

        def do_POST(self):
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
            print("POST " + self.path + " " + json.dumps(body), flush=True)
            texts = body.get("input", [])
            texts = texts if isinstance(texts, list) else [texts]
            self._send({"model": body.get("model"), "embeddings": [[1.0, 0.0, 0.0] for _ in texts]})

    server = HTTPServer(("127.0.0.1", 0), Handler)
    print(server.server_address[1], flush=True)
    server.serve_forever()
"""
"""Enough of Ollama's /api/embed for a probe, in the standard library only (the other
account runs the system Python, which cannot see our virtualenv); it prints every request."""


class Served:
    """A fake Ollama run by some account; ``requests()`` is what reached it."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        self.process = process
        assert process.stdout is not None
        self.port = int(process.stdout.readline())
        self.url = f"http://127.0.0.1:{self.port}"

    def requests(self) -> list[str]:
        self.process.terminate()
        out, _ = self.process.communicate(timeout=30)
        return [line for line in out.splitlines() if line]


def _serve(account: Intruder | None) -> Served:
    """The fake started as ``account`` (None: as this test, root)."""
    as_other: dict[str, object] = (
        {"user": account.uid, "group": account.gid, "extra_groups": [], "cwd": "/"}
        if account is not None
        else {}
    )
    python = account.python if account is not None else sys.executable
    return Served(
        subprocess.Popen(  # type: ignore[call-overload]
            [python, "-c", textwrap.dedent(FAKE_OLLAMA)],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env={"PATH": os.environ.get("PATH", ""), "HOME": "/nonexistent"},
            **as_other,
        )
    )


@pytest.fixture
def served_by() -> Iterator[Callable[[Intruder | None], Served]]:
    started: list[Served] = []

    def start(account: Intruder | None) -> Served:
        started.append(_serve(account))
        return started[-1]

    yield start
    for served in started:
        if served.process.poll() is None:
            served.process.kill()
            served.process.wait(timeout=30)


@pytest.fixture
def no_lmstudio(monkeypatch: pytest.MonkeyPatch) -> None:
    """Detection would next try LM Studio's usual address; nothing of ours may be there."""
    with socket.socket() as probe:
        if probe.connect_ex(("127.0.0.1", 1234)) == 0:
            pytest.skip("something listens on 127.0.0.1:1234 (LM Studio's address)")


# -- who listens --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("family", "bound", "asked"),
    [
        (socket.AF_INET, "127.0.0.1", "127.0.0.1"),
        (socket.AF_INET, "127.0.0.1", "localhost"),
        (socket.AF_INET, "127.0.0.1", "::ffff:127.0.0.1"),
        (socket.AF_INET, "0.0.0.0", "127.0.0.1"),
        (socket.AF_INET, "127.0.0.1", "0.0.0.0"),
        (socket.AF_INET6, "::1", "::1"),
        (socket.AF_INET6, "::", "127.0.0.1"),
        (socket.AF_INET6, "::", "::1"),
    ],
)
def test_a_listening_socket_of_this_process_is_ours(
    family: socket.AddressFamily, bound: str, asked: str
) -> None:
    with socket.socket(family, socket.SOCK_STREAM) as server:
        try:
            server.bind((bound, 0))
        except OSError as exc:
            pytest.skip(f"cannot listen on {bound}: {exc}")
        server.listen()
        port = server.getsockname()[1]
        found = listeners.listener(asked, port)
        assert found.uid == os.geteuid() and found.yours and not found.another_person
        assert found.account == pwd.getpwuid(os.geteuid()).pw_name
    assert not listeners.listener(asked, port).listening  # closed: nothing listens now


def test_nothing_listening_and_an_address_of_another_machine_are_told_apart() -> None:
    with socket.socket() as spare:
        spare.bind(("127.0.0.1", 0))
        port = spare.getsockname()[1]  # bound, not listening
        free = listeners.listener("127.0.0.1", port)
    assert free.known and not free.listening and free.describe() == "nothing listens"
    remote = listeners.listener("192.0.2.7", 11434)  # TEST-NET-1: never this machine's
    assert not remote.known and not remote.listening
    assert "not an address of this machine" in remote.describe()


def test_the_proc_net_text_is_read_in_the_kernels_byte_order() -> None:
    """Lines as Linux prints them (a little-endian machine): only LISTEN (0A) rows count."""
    if sys.byteorder != "little":
        pytest.skip("the sample lines are a little-endian machine's")
    tcp = textwrap.dedent("""\
          sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
           0: 0100007F:2CAA 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1001        0 1 1
           1: 00000000:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 2 1
           2: 0100007F:2CAA 0100007F:9C40 01 00000000:00000000 00:00000000 00000000  1001        0 3 1
        """)  # noqa: E501
    tcp6 = textwrap.dedent("""\
          sl  local_address                         remote_address                        st
           0: 00000000000000000000000001000000:04D2 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000   998        0 4 1
           1: 0000000000000000FFFF00000100007F:1F91 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     5        0 5 1
        """)  # noqa: E501
    rows = listeners.parse_proc_net(tcp) + listeners.parse_proc_net(tcp6)
    assert rows == [
        (ip_address("127.0.0.1"), 11434, 1001),
        (ip_address("0.0.0.0"), 8080, 0),
        (ip_address("::1"), 1234, 998),
        (ip_address("::ffff:127.0.0.1"), 8081, 5),
    ]


def _listen_as(account: Intruder) -> subprocess.Popen[str]:
    return account.start(
        "import socket,time\ns=socket.socket();s.bind(('127.0.0.1',0));s.listen()\n"
        "print(s.getsockname()[1],flush=True);time.sleep(120)"
    )


def test_another_persons_socket_is_named_and_a_system_accounts_is_not_a_persons(
    neighbour: Intruder,  # noqa: F811
    intruder: Intruder,
) -> None:
    for account, person in ((neighbour, True), (intruder, False)):
        process = _listen_as(account)
        try:
            assert process.stdout is not None
            port = int(process.stdout.readline())
            found = listeners.listener("127.0.0.1", port)
        finally:
            process.kill()
            process.wait(timeout=30)
        assert (found.uid, found.account) == (account.uid, account.name)
        assert found.another_person is person and not found.yours
        kind = "account" if person else "system account"
        assert found.describe() == f"{kind} '{account.name}' (uid {account.uid})"


# -- init ----------------------------------------------------------------------------------


def _config(isolated_env: Path) -> str:
    return (isolated_env / "config.toml").read_text()


@pytest.mark.slow
def test_init_names_another_persons_ollama_and_does_not_use_it(
    cli: Cli,
    isolated_env: Path,
    neighbour: Intruder,  # noqa: F811
    served_by: Callable[[Intruder | None], Served],
    no_lmstudio: None,
) -> None:
    fake = served_by(neighbour)
    done = cli("init", env={"OLLAMA_HOST": f"127.0.0.1:{fake.port}"}, timeout=300)
    line = f"{fake.url} is served by account '{neighbour.name}' (uid {neighbour.uid}), not you"
    assert line in " ".join(done.stderr.split()), done.stderr
    assert f"--trust-account {neighbour.name}" in done.stderr
    assert 'provider = "sentence-transformers"' in _config(isolated_env)
    assert str(fake.port) not in _config(isolated_env)
    assert fake.requests() == []  # not even the probe: it would have seen its text


def test_the_same_server_run_by_this_account_or_a_system_account_is_used(
    isolated_env: Path,
    intruder: Intruder,
    served_by: Callable[[Intruder | None], Served],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for account in (None, intruder):  # root (the tests' own account), a system account
        fake = served_by(account)
        monkeypatch.setenv("OLLAMA_HOST", f"127.0.0.1:{fake.port}")
        done = init_config(isolated_env / "config.toml", force=True)
        assert (done.provider, done.host, done.passed_over) == ("ollama", fake.url, ())
        assert any("/api/embed" in r for r in fake.requests())


def test_init_uses_another_persons_server_when_told_so(
    isolated_env: Path,
    neighbour: Intruder,  # noqa: F811
    served_by: Callable[[Intruder | None], Served],
) -> None:
    fake = served_by(neighbour)
    done = init_config(isolated_env / "config.toml", host=fake.url, trust_account=neighbour.name)
    assert (done.provider, done.host) == ("ollama", fake.url)
    assert any("/api/embed" in r for r in fake.requests())


def test_init_refuses_another_persons_server_asked_for_by_address(
    cli: Cli,
    isolated_env: Path,
    neighbour: Intruder,  # noqa: F811
    served_by: Callable[[Intruder | None], Served],
) -> None:
    fake = served_by(neighbour)
    done = cli("init", "--provider", "ollama", "--host", fake.url)
    assert done.code == 2, done.stderr
    message = " ".join(done.stderr.split())
    assert f"account '{neighbour.name}'" in message and fake.url in message
    assert f"aria-mem init --trust-account {neighbour.name}" in message
    assert "Traceback" not in done.stderr
    assert not (isolated_env / "config.toml").exists()
    assert fake.requests() == []


# -- status ----------------------------------------------------------------------------------


def test_status_names_the_account_of_each_model_server(
    cli: Cli,
    embedded_dsn: str,
    neighbour: Intruder,  # noqa: F811
    served_by: Callable[[Intruder | None], Served],
) -> None:
    theirs, ours = served_by(neighbour), served_by(None)
    env = {
        "ARIA_MEM_POSTGRES_DSN": embedded_dsn,
        "ARIA_MEM_EMBEDDER_HOST": ours.url,
        "ARIA_MEM_CHAT_HOST": theirs.url,
    }
    done = cli("status", "--json", env=env)
    servers = {s["role"]: s for s in json.loads(done.stdout)["model_servers"]}
    assert servers["embedder"]["url"] == ours.url and servers["embedder"]["uid"] == os.geteuid()
    assert servers["embedder"]["another_person"] is False
    assert servers["chat"]["url"] == theirs.url
    assert (servers["chat"]["account"], servers["chat"]["uid"]) == (neighbour.name, neighbour.uid)
    assert servers["chat"]["another_person"] is True
    shown = " ".join(cli("status", env=env).stdout.split())
    assert f"warning: chat server {theirs.url}: account '{neighbour.name}'" in shown, shown
    assert f"embedder server {ours.url}: you" in shown


# -- the MCP port ----------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _print_config(address: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, "-m", "aria_mem", "mcp", "--print-config", "--http", address],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "NO_COLOR": "1", "COLUMNS": "200"},
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["mcpServers"]  # stdout is the JSON alone
    return done


def test_print_config_says_when_nothing_holds_the_port() -> None:
    port = _free_port()
    said = " ".join(_print_config(f"127.0.0.1:{port}").stderr.split())
    assert f"Nothing listens on 127.0.0.1:{port}" in said
    assert "aria-mem daemon --mcp-http" in said


def test_print_config_warns_when_another_account_holds_the_port(
    neighbour: Intruder,  # noqa: F811
) -> None:
    process = _listen_as(neighbour)
    try:
        assert process.stdout is not None
        port = int(process.stdout.readline())
        said = " ".join(_print_config(f"127.0.0.1:{port}").stderr.split())
    finally:
        process.kill()
        process.wait(timeout=30)
    assert f"127.0.0.1:{port} is held by account '{neighbour.name}'" in said, said
    assert "token" in said


def test_print_config_is_quiet_when_the_port_is_ours() -> None:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]
        assert _print_config(f"127.0.0.1:{port}").stderr == ""


def test_the_daemon_will_not_serve_mcp_on_a_port_another_account_holds(
    cli: Cli,
    embedded_dsn: str,
    fake_ollama: FakeOllama,
    neighbour: Intruder,  # noqa: F811
) -> None:
    process = _listen_as(neighbour)
    try:
        assert process.stdout is not None
        port = int(process.stdout.readline())
        env = {"ARIA_MEM_POSTGRES_DSN": embedded_dsn, "ARIA_MEM_EMBEDDER_HOST": fake_ollama.url}
        done = cli("daemon", "--once", "--mcp-http", f"127.0.0.1:{port}", env=env)
    finally:
        process.kill()
        process.wait(timeout=30)
    assert done.code == 1, done.stderr
    said = " ".join(done.stderr.split())
    assert f"Cannot serve MCP on 127.0.0.1:{port}: it is held by account '{neighbour.name}'" in said
    assert "Traceback" not in done.stderr


def test_a_bad_mcp_address_for_the_daemon_names_the_daemon_s_own_flag(
    cli: Cli, embedded_dsn: str, fake_ollama: FakeOllama
) -> None:
    env = {"ARIA_MEM_POSTGRES_DSN": embedded_dsn, "ARIA_MEM_EMBEDDER_HOST": fake_ollama.url}
    done = cli("daemon", "--once", "--mcp-http", "nowhere", env=env)
    assert done.code == 2, done.stderr
    said = " ".join(done.stderr.split())
    assert "must be HOST:PORT" in said and "'nowhere' (--mcp-http)" in said, said
    assert "(--http)" not in said and "Traceback" not in done.stderr


DAEMON_WITHOUT_PROC_NET = """
    import logging, sys, urllib.error, urllib.request
    from pathlib import Path
    from aria_mem import config, listeners
    from aria_mem.cli.upkeep import _serve_mcp_beside

    listeners.PROC_NET = Path(sys.argv[1])
    logging.basicConfig(stream=sys.stderr, format="%(message)s")
    _serve_mcp_beside(config.load(), sys.argv[2], False, lambda: None)
    try:
        urllib.request.urlopen(f"http://{sys.argv[2]}/mcp", timeout=30)
    except urllib.error.HTTPError as exc:
        print("answered", exc.code)  # the bearer gate: the daemon's own MCP server
"""


def test_the_daemon_serves_mcp_where_the_ports_owner_cannot_be_read(
    tmp_path: Path, embedded_dsn: str, fake_ollama: FakeOllama
) -> None:
    """No /proc/net (a container, another kernel): the owner is unknown, so the daemon takes
    its own server's word that it bound the port, and warns, rather than refuse after 60 s."""
    empty = tmp_path / "no-proc-net"
    empty.mkdir()
    address = f"127.0.0.1:{_free_port()}"
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(DAEMON_WITHOUT_PROC_NET), str(empty), address],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={
            **os.environ,
            "ARIA_MEM_POSTGRES_DSN": embedded_dsn,
            "ARIA_MEM_EMBEDDER_HOST": fake_ollama.url,
        },
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "answered 401" in done.stdout, done
    said = " ".join(done.stderr.split())
    assert f"the MCP server listens on {address}, but who else could" in said, said
