"""Another local account must never reach the data.

The suite runs aria-mem on the embedded defaults as this account (with umask 000, the least
private setting there is), then plays a second local account that tries every door: the files
aria-mem writes, the embedded PostgreSQL's socket (with and without a long data path, which
used to move it to a shared /tmp folder), the index socket, and the HTTP MCP server on
loopback. Where a layer would stop the intruder early (a 0700 folder), the deeper layers are
proven too by deliberately opening the folder: PostgreSQL still wants the generated password,
each end of the index socket still checks the other's account (SO_PEERCRED) before sending
anything, and the MCP token file is still 0600.

Creating the second account needs root; elsewhere the suite is skipped, with the reason.
"""

from __future__ import annotations

import json
import os
import pwd
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from aria_mem.adapters.postgres import embedded, server_account
from aria_mem.adapters.service.folder import lock_held, stop_service
from aria_mem.adapters.service.server import IndexService
from aria_mem.adapters.service.shared_index import SharedEdgeIndex
from aria_mem.domain.models import SearchScope
from aria_mem.errors import VectorIndexError
from aria_mem.ownership import has_acl
from aria_mem.wiring import redact
from tests.accounts import Intruder
from tests.conftest import ROOT
from tests.fakes.ollama_server import FakeOllama
from tests.fakes.vectors import embed
from tests.test_mcp import INITIALIZE, LIST_MEMORIES

SCOPE = SearchScope("me", "aria", "ollama/fake")


@pytest.fixture
def open_base() -> Iterator[Path]:
    """A folder every account may pass through (as a home directory under /home is), so that
    only aria-mem's own modes stand between the intruder and the data."""
    base = Path(tempfile.mkdtemp(prefix="aria-privacy-"))
    base.chmod(0o755)
    yield base
    shutil.rmtree(base, ignore_errors=True)


def _aria(home: Path, ollama: FakeOllama, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith("ARIA_MEM_") and key != "XDG_RUNTIME_DIR"
    }
    env.update(ARIA_MEM_HOME=str(home), ARIA_MEM_EMBEDDER_HOST=ollama.url, NO_COLOR="1")
    done = subprocess.run(
        [sys.executable, "-m", "aria_mem", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=120,
        preexec_fn=lambda: os.umask(0),
    )
    assert done.returncode == 0, done.stderr
    return done


def _set_up_home(home: Path, ollama: FakeOllama, export: Path) -> None:
    _aria(home, ollama, "init", "--provider", "ollama")
    _aria(home, ollama, "remember", "The user's bank PIN is 4921.", "--type", "ProfileFact")
    _aria(home, ollama, "export", "-o", str(export))


_TRY_FILES = """
    import json, os, sys
    readable, listed = [], []
    for top in sys.argv[1:]:
        for folder, dirs, files in os.walk(top, onerror=lambda e: None):
            listed.append(folder)
            for name in files:
                try:
                    with open(os.path.join(folder, name), "rb") as handle:
                        handle.read(1)
                    readable.append(os.path.join(folder, name))
                except OSError:
                    pass
    for path in sys.argv[1:]:
        try:
            with open(path, "rb") as handle:
                handle.read(1)
            readable.append(path)
        except OSError:
            pass
    print(json.dumps({"readable": readable, "listed": listed}))
"""

_TRY_POSTGRES = """
    import json, socket, struct, sys
    outcomes = []
    for folder in sys.argv[1:]:
        sock = socket.socket(socket.AF_UNIX)
        sock.settimeout(5)
        try:
            sock.connect(folder + "/.s.PGSQL.5432")
        except OSError as exc:
            outcomes.append({"connected": False, "error": str(exc)})
            continue
        body = struct.pack("!i", 196608) + b"user\\0postgres\\0database\\0postgres\\0\\0"
        sock.sendall(struct.pack("!i", len(body) + 4) + body)
        reply = sock.recv(4096)
        kind = reply[:1].decode()
        code = struct.unpack("!i", reply[5:9])[0] if kind == "R" else None
        outcomes.append({"connected": True, "kind": kind, "auth_code": code,
                         "let_in": kind == "R" and code == 0})
    print(json.dumps({"outcomes": outcomes}))
"""
"""Speaks the first message of PostgreSQL's protocol with the standard library only (the
intruder may not be able to run our virtual environment's Python): a server that trusts the
caller answers AuthenticationOk (R, 0) at once; ours must ask for a password (R, 10: SASL)."""

_TRY_INDEX = """
    import json, socket, sys
    request = {"op": "search", "collection": "memories", "vector": [0.0] * 64,
               "scope": {"user_id": "me", "companion_id": "aria",
                         "embedding_model": "ollama/mxbai-embed-large"}, "limit": 10}
    sock = socket.socket(socket.AF_UNIX)
    sock.settimeout(5)
    try:
        sock.connect(sys.argv[1])
    except OSError as exc:
        print(json.dumps({"connected": False, "error": str(exc)}))
        raise SystemExit
    try:
        sock.sendall(json.dumps(request).encode() + b"\\n")
        reply, error = sock.recv(65536), None
    except OSError as exc:
        reply, error = b"", str(exc)
    print(json.dumps({"connected": True, "answer": reply.decode(errors="replace"),
                      "error": error}))
"""


def _walk(home: Path) -> list[Path]:
    return [home, *home.rglob("*")]


@pytest.mark.parametrize("long_path", [False, True], ids=["short-path", "long-path"])
def test_a_second_account_reaches_no_file_no_database_and_no_index(
    intruder: Intruder, open_base: Path, fake_ollama: FakeOllama, long_path: bool
) -> None:
    home = open_base / ("h" * 110 if long_path else "home")
    export = open_base / "memories.jsonl"
    pgdata = home / "data" / "postgres"
    try:
        _set_up_home(home, fake_ollama, export)
        dsn = embedded.ensure_running(pgdata)
        socket_dir = Path(str(psycopg.conninfo.conninfo_to_dict(dsn)["host"]))
        assert (socket_dir == pgdata) is not long_path

        # Every mode, whatever the umask: the owner's alone.
        assert stat.S_IMODE((home / "config.toml").stat().st_mode) == 0o600
        assert stat.S_IMODE(export.stat().st_mode) == 0o600
        assert stat.S_IMODE((home / "data" / "index").stat().st_mode) == 0o700
        for path in _walk(home):
            mode = stat.S_IMODE(path.lstat().st_mode)
            assert not mode & 0o007, f"{path} is open to other accounts ({oct(mode)})"
            if mode & 0o070:
                assert has_acl(path), f"{path} is open to its group ({oct(mode)})"
        socket_info = socket_dir.stat()
        assert stat.S_IMODE(socket_info.st_mode) == 0o700
        assert socket_info.st_uid == pwd.getpwnam(server_account.ROOT_SERVER_ACCOUNT).pw_uid
        with psycopg.connect(dsn) as conn:
            assert conn.execute("SHOW listen_addresses").fetchone() == ("",)

        assert lock_held(home / "data" / "index")  # the commands above started the service
        files = intruder.run(_TRY_FILES, str(home), str(export))
        assert files["readable"] == []
        listed = files["listed"]
        assert isinstance(listed, list) and str(home / "data") not in listed

        tried = intruder.run(_TRY_POSTGRES, str(socket_dir))["outcomes"]
        assert isinstance(tried, list) and tried[0]["connected"] is False, tried

        index = intruder.run(_TRY_INDEX, str(home / "data" / "index" / "index.sock"))
        assert index["connected"] is False
    finally:
        stop_service(home / "data" / "index")
        embedded.stop(pgdata)


def test_with_the_folders_opened_postgres_still_wants_the_password(
    intruder: Intruder, open_base: Path, fake_ollama: FakeOllama
) -> None:
    home = open_base / ("p" * 110)
    pgdata = home / "data" / "postgres"
    try:
        _set_up_home(home, fake_ollama, open_base / "x.jsonl")
        dsn = embedded.ensure_running(pgdata)
        socket_dir = Path(str(psycopg.conninfo.conninfo_to_dict(dsn)["host"]))
        socket_dir.chmod(0o777)  # a mistake the server must survive
        (socket_dir / ".s.PGSQL.5432").chmod(0o777)
        tried = intruder.run(_TRY_POSTGRES, str(socket_dir))["outcomes"]
        assert isinstance(tried, list) and tried[0]["connected"] is True, tried
        assert tried[0]["kind"] == "R" and tried[0]["auth_code"] == 10  # SASL: a password
        assert tried[0]["let_in"] is False
    finally:
        stop_service(home / "data" / "index")
        embedded.stop(pgdata)


def test_the_service_answers_no_other_account(intruder: Intruder, open_base: Path) -> None:
    root = open_base / "index"
    service = IndexService.take(root, started="test")
    assert service is not None
    try:
        root.chmod(0o755)  # opened by mistake: the socket itself must still refuse
        (root / "index.sock").chmod(0o777)
        index = intruder.run(_TRY_INDEX, str(root / "index.sock"))
        assert index["connected"] is True
        assert index["answer"] == ""  # closed without a word
    finally:
        service.close()


_FAKE_OWNER = """
    import json, os, socket, sys
    path = sys.argv[1]
    server = socket.socket(socket.AF_UNIX)
    server.bind(path)
    os.chmod(path, 0o777)
    server.listen()
    print(json.dumps({"listening": True}), flush=True)
    server.settimeout(20)
    conn, _ = server.accept()
    conn.settimeout(2)
    received = b""
    try:
        while chunk := conn.recv(65536):
            received += chunk
    except OSError:
        pass
    print(json.dumps({"received": len(received)}), flush=True)
"""


def test_a_client_sends_nothing_to_an_index_socket_of_another_account(
    intruder: Intruder, open_base: Path
) -> None:
    trap = open_base / "trap"
    trap.mkdir()
    os.chown(trap, intruder.uid, intruder.gid)
    trap.chmod(0o777)
    fake = intruder.start(textwrap.dedent(_FAKE_OWNER), str(trap / "index.sock"))
    try:
        assert fake.stdout is not None and '"listening"' in fake.stdout.readline()
        client = SharedEdgeIndex(trap, wait_seconds=1)
        with pytest.raises(VectorIndexError, match="another account"):
            client.search("memories", embed("The user's bank PIN", 16), SCOPE, 5)
        client.close()
        out, _ = fake.communicate(timeout=30)
        assert json.loads(out.strip().splitlines()[-1])["received"] == 0
    finally:
        fake.kill()


def test_files_are_private_whatever_the_umask(tmp_path: Path) -> None:
    from aria_mem import config
    from aria_mem.private import open_private, private_dir

    old = os.umask(0)
    try:
        folder = private_dir(tmp_path / "a" / "b", what="test folder")
        config.save_keys(folder / "config.toml", {"identity": {"user": "sam"}})
        with open_private(folder / "export.jsonl") as handle:
            handle.write("{}\n")
        widened = folder / "old-export.jsonl"
        widened.write_text("old")
        widened.chmod(0o666)
        with open_private(widened) as handle:
            handle.write("new")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "a").stat().st_mode) == 0o700
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    for name in ("config.toml", "export.jsonl", "old-export.jsonl"):
        assert stat.S_IMODE((folder / name).stat().st_mode) == 0o600, name
    assert widened.read_text() == "new"


def test_an_index_socket_listens_only_for_its_account(tmp_path: Path) -> None:
    """The peer check itself, without a second account: a socket pair is our own uid."""
    from aria_mem.adapters.service.protocol import peer_uid

    left, right = socket.socketpair(socket.AF_UNIX)
    try:
        assert peer_uid(left) == os.geteuid()
    finally:
        left.close()
        right.close()


_TRY_MCP = """
    import json, sys, urllib.error, urllib.request
    url, session, token_file = sys.argv[1:4]
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                  "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                             "clientInfo": {"name": "intruder", "version": "0"}}}
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "list_memories", "arguments": {}}}
    live = {"mcp-session-id": session, "mcp-protocol-version": "2025-06-18"}
    answers = []
    for auth in (None, "Bearer guess", "Bearer " + "A" * 43):
        for message, extra in ((initialize, {}), (call, live)):
            headers = {"Content-Type": "application/json",
                       "Accept": "application/json, text/event-stream", **extra}
            if auth:
                headers["Authorization"] = auth
            request = urllib.request.Request(url, json.dumps(message).encode(), headers)
            try:
                with urllib.request.urlopen(request, timeout=10) as response:
                    status, body = response.status, response.read()
                    challenge = response.headers.get("WWW-Authenticate")
            except urllib.error.HTTPError as exc:
                status, body = exc.code, exc.read()
                challenge = exc.headers.get("WWW-Authenticate")
            answers.append({"status": status, "body": body.decode(errors="replace"),
                            "challenge": challenge})
    try:
        with open(token_file) as handle:
            handle.read()
        token_read = True
    except OSError:
        token_read = False
    print(json.dumps({"answers": answers, "token_read": token_read}))
"""
"""A second account speaks plain JSON-RPC to the owner's HTTP MCP server (standard library
only): initialize and a tools/call, without a token, with guessed ones, and inside the owner's
live session (as if it had learned the session id); then it tries to read the token file."""


def _listening(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0


def test_a_second_account_gets_nothing_from_the_http_mcp_server(
    intruder: Intruder, open_base: Path, fake_ollama: FakeOllama, embedded_dsn: str
) -> None:
    import httpx

    home = open_base / "home"
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith("ARIA_MEM_") and key != "XDG_RUNTIME_DIR"
    }
    env.update(
        ARIA_MEM_HOME=str(home),
        ARIA_MEM_POSTGRES_DSN=embedded_dsn,
        ARIA_MEM_EMBEDDER_HOST=fake_ollama.url,
        NO_COLOR="1",
    )
    remembered = subprocess.run(
        [sys.executable, "-m", "aria_mem", "remember", "The user's bank PIN is 4921."],
        env=env, cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert remembered.returncode == 0, remembered.stderr
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = int(probe.getsockname()[1])
    url = f"http://127.0.0.1:{port}/mcp"
    server = subprocess.Popen(
        [sys.executable, "-m", "aria_mem", "mcp", "--http", f"127.0.0.1:{port}"],
        env=env,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        preexec_fn=lambda: os.umask(0),
    )
    try:
        deadline = time.monotonic() + 60
        while not _listening(port):
            assert server.poll() is None, "the MCP server stopped before it listened"
            assert time.monotonic() < deadline, "the MCP server did not listen within 60 s"
            time.sleep(0.1)
        token_file = home / "mcp-token"
        assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
        assert stat.S_IMODE(home.stat().st_mode) == 0o700
        owner = {
            "Accept": "application/json, text/event-stream",
            "Authorization": f"Bearer {token_file.read_text().strip()}",
        }
        opened = httpx.post(url, json=INITIALIZE, headers=owner, timeout=30)
        assert opened.status_code == 200, opened.text
        live = {
            "mcp-session-id": opened.headers["mcp-session-id"],
            "mcp-protocol-version": "2025-06-18",
        }
        ready = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        httpx.post(url, json=ready, headers={**owner, **live}, timeout=30)
        listed = httpx.post(url, json=LIST_MEMORIES, headers={**owner, **live}, timeout=30)
        assert "4921" in listed.text  # the same call with the token does read the memories

        home.chmod(0o755)  # opened by mistake: the token file itself must still refuse
        tried = intruder.run(_TRY_MCP, url, live["mcp-session-id"], str(token_file))
        answers = tried["answers"]
        assert isinstance(answers, list) and len(answers) == 6
        for answer in answers:
            assert answer["status"] == 401, answer
            assert str(answer["challenge"]).startswith("Bearer")
            assert "4921" not in answer["body"] and "PIN" not in answer["body"]
        assert tried["token_read"] is False
    finally:
        server.terminate()
        server.wait(timeout=30)


@pytest.mark.parametrize(
    "dsn",
    [
        "postgresql://aria:s3cret-horse@127.0.0.1/aria",
        "host=127.0.0.1 password=s3cret-horse dbname=aria",
        "host=127.0.0.1 password=s3cret&horse dbname=aria",
        "host=127.0.0.1 password='s3cret horse' dbname=aria",
        r"host=127.0.0.1 password = 's3cret \' horse' dbname=aria",
        "postgresql://127.0.0.1/aria?password=s3cret-horse&sslmode=require",
    ],
)
def test_a_dsn_as_status_shows_it_keeps_no_part_of_the_password(dsn: str) -> None:
    """`status` and MCP's status tool show the DSN: a quoted password's tail was shown."""
    shown = redact(dsn)
    assert "s3cret" not in shown and "horse" not in shown and "***" in shown
    assert "127.0.0.1" in shown and ("dbname=aria" in shown or "/aria" in shown)
