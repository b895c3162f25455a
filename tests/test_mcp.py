"""`aria-mem mcp` driven by the MCP SDK's own client: over a real stdio pipe to the command
as a subprocess, and over streamable HTTP on loopback. The user's memories go in and come
back; another user's never appear; failures stay polite; bad arguments name the field."""

from __future__ import annotations

import io
import json
import os
import socket
import stat
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import anyio
import httpx
import httpx2
import pytest
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp_types import TextContent, TextResourceContents

from aria_mem import AriaMem, http_limits
from aria_mem.config import load, with_overrides
from aria_mem.mcp_server import build_server
from tests.accounts import SLOW_CLIENTS, Intruder
from tests.conftest import ROOT, CliResult, closed_port
from tests.fakes.ollama_server import FakeOllama

TOOLS = {
    "remember",
    "search_memory",
    "list_memories",
    "forget_memory",
    "confirm_memory",
    "update_memory",
    "memory_history",
    "learn",
    "status",
}


@pytest.fixture
def fake_ollama(concept_ollama: FakeOllama) -> FakeOllama:
    """The searches here need vectors that follow meaning."""
    return concept_ollama


@pytest.fixture
def extra_env(isolated_env: Path) -> dict[str, str]:
    """The servers here are started as processes of their own, with the whole environment."""
    home = {"ARIA_MEM_HOME": str(isolated_env)}
    return {**os.environ, **home, "ARIA_MEM_RETRIEVAL_MIN_SIMILARITY": "0.3"}


@pytest.fixture
def bobs_secret(env: dict[str, str]) -> str:
    """A memory of another user, stored before the server starts."""
    settings = with_overrides(load(environ=env), postgres={"dsn": env["ARIA_MEM_POSTGRES_DSN"]})
    with AriaMem(settings) as memory:
        made = memory.remember("The user's sister loves pottery and Bob's PIN is 4921.", user="bob")
    return str(made.memory.id)


def _structured(result: Any) -> Any:
    assert not result.is_error, result.content
    return result.structured_content


def _error(result: Any) -> str:
    """The message of a failed tool call."""
    assert result.is_error
    block = result.content[0]
    assert isinstance(block, TextContent)
    return block.text


def _run(session: Callable[[Client], Awaitable[None]], target: Any) -> None:
    async def main() -> None:
        async with Client(target) as client:
            await session(client)

    anyio.run(main)


def test_a_client_uses_the_memories_over_stdio(env: dict[str, str], bobs_secret: str) -> None:
    async def session(client: Client) -> None:
        listed = await client.list_tools()
        assert {t.name for t in listed.tools} == TOOLS
        schema = next(t for t in listed.tools if t.name == "remember").input_schema
        assert schema["properties"]["importance"]["maximum"] == 1.0

        made = _structured(
            await client.call_tool(
                "remember",
                {"text": "The user's sister loves pottery.", "type": "RelationshipFact"},
            )
        )
        assert made["created"] and made["indexed"]
        await client.call_tool(
            "remember",
            {"text": "The user is allergic to peanuts.", "type": "ProfileFact", "importance": 0.9},
        )
        found = _structured(
            await client.call_tool(
                "search_memory",
                {"message": "I need to find a gift", "previous": "My sister is getting married"},
            )
        )
        texts = {m["text"]: m["section"] for m in found["memories"]}
        assert texts == {
            "The user's sister loves pottery.": "relevant",
            "The user is allergic to peanuts.": "profile",
        }
        assert "USER PROFILE DATA" in found["prompt"] and "PIN" not in found["prompt"]
        assert found["degraded"] == []

        mine = _structured(await client.call_tool("list_memories", {}))
        assert "4921" not in json.dumps(mine) and len(mine["result"]) == 2

        stolen = await client.call_tool("forget_memory", {"memory_id": bobs_secret})
        assert stolen.is_error and "No memory with id" in _error(stolen)
        not_mine = await client.call_tool("confirm_memory", {"memory_id": bobs_secret[:8]})
        assert not_mine.is_error

        profile = await client.read_resource("aria-mem://profile")
        assert isinstance(profile.contents[0], TextResourceContents)
        assert "allergic to peanuts" in profile.contents[0].text

        bad = await client.call_tool("remember", {"text": "x", "importance": 2})
        assert bad.is_error and "importance" in _error(bad)
        unknown = await client.call_tool("remember", {"text": "x", "type": "Gossip"})
        assert unknown.is_error and "type" in _error(unknown)

        changed = _structured(
            await client.call_tool(
                "update_memory",
                {"memory_id": made["id"][:8], "text": "The user's sister now paints, not pottery."},
            )
        )
        assert changed["superseded"] == made["id"] and changed["created"]
        told = _structured(await client.call_tool("memory_history", {"memory_id": changed["id"]}))
        assert [v["status"] for v in told["versions"]] == ["superseded", "active"]
        assert any(" superseded " in e for e in told["events"])
        assert (await client.call_tool("memory_history", {"memory_id": bobs_secret})).is_error
        again = _structured(await client.call_tool("search_memory", {"message": "sister pottery"}))
        assert made["id"] not in {m["id"] for m in again["memories"]}

        gone = await client.call_tool("forget_memory", {"memory_id": changed["id"][:8]})
        assert not gone.is_error
        after = _structured(await client.call_tool("list_memories", {}))
        assert [m["text"] for m in after["result"]] == ["The user is allergic to peanuts."]

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "aria_mem", "mcp", "--user", "alice"],
        env=env,
        cwd=str(ROOT),
    )
    _run(session, params)
    with AriaMem(
        with_overrides(load(environ=env), postgres={"dsn": env["ARIA_MEM_POSTGRES_DSN"]})
    ) as m:
        assert [x.id for x in m.list(user="bob")] and m.get(bobs_secret, user="bob").text.endswith(
            "4921."
        )


def test_with_the_embedder_down_search_answers_with_the_profile(env: dict[str, str]) -> None:
    down = {**env, "ARIA_MEM_EMBEDDER_HOST": f"http://127.0.0.1:{closed_port()}"}

    async def session(client: Client) -> None:
        made = _structured(
            await client.call_tool(
                "remember",
                {
                    "text": "The user is allergic to peanuts.",
                    "type": "ProfileFact",
                    "importance": 0.9,
                },
            )
        )
        assert made["created"] and not made["indexed"] and "start Ollama" in made["problem"]
        found = _structured(await client.call_tool("search_memory", {"message": "dinner?"}))
        assert [m["text"] for m in found["memories"]] == ["The user is allergic to peanuts."]
        assert found["degraded"] and "semantic retrieval skipped" in found["degraded"][0]
        state = _structured(await client.call_tool("status", {}))
        assert state["ok"] is False
        assert {c["name"]: c["ok"] for c in state["checks"]}["embedder"] is False

    params = StdioServerParameters(
        command=sys.executable, args=["-m", "aria_mem", "mcp"], env=down, cwd=str(ROOT)
    )
    _run(session, params)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_for_port(port: int, proc: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 60
    while True:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        assert proc.poll() is None and time.monotonic() < deadline, proc.stderr
        time.sleep(0.1)


def _entry(env: dict[str, str], address: str, *more: str) -> dict[str, Any]:
    """`aria-mem mcp --print-config` for ``address``: its stdout must be the JSON alone."""
    done = subprocess.run(
        [sys.executable, "-m", "aria_mem", "mcp", "--print-config", "--http", address, *more],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    entry: dict[str, Any] = json.loads(done.stdout)["mcpServers"]["aria-mem"]
    return entry


def _start(env: dict[str, str], *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "aria_mem", *args],
        env=env,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def _stop(proc: subprocess.Popen[str]) -> int:
    proc.terminate()
    return proc.wait(timeout=30)


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "probe", "version": "0"},
    },
}
LIST_MEMORIES = {
    "jsonrpc": "2.0",
    "id": 2,
    "method": "tools/call",
    "params": {"name": "list_memories", "arguments": {}},
}


def _post(url: str, message: dict[str, Any], **headers: str) -> httpx.Response:
    """A plain JSON-RPC POST, as any local process could send one."""
    wanted = {"Accept": "application/json, text/event-stream", **headers}
    return httpx.post(url, json=message, headers=wanted, timeout=30)


def _open_session(url: str, bearer: str) -> dict[str, str]:
    """The headers of a live MCP session opened with the token (initialize, initialized)."""
    opened = _post(url, INITIALIZE, Authorization=bearer)
    assert opened.status_code == 200, opened.text
    session = {
        "mcp-session-id": opened.headers["mcp-session-id"],
        "mcp-protocol-version": INITIALIZE["params"]["protocolVersion"],  # type: ignore[index]
    }
    ready = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    assert _post(url, ready, Authorization=bearer, **session).status_code == 202
    return session


def _assert_refused(response: httpx.Response, *secrets: str) -> None:
    assert response.status_code == 401, response.text
    assert response.headers["www-authenticate"].startswith("Bearer")
    assert "--print-config" in response.json()["message"]
    assert not any(secret in response.text for secret in secrets)


def _with_headers(url: str, headers: dict[str, str]) -> Any:
    """The SDK's streamable HTTP transport, through an HTTP client that sends ``headers``."""

    @asynccontextmanager
    async def transport() -> AsyncIterator[Any]:
        async with (
            httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=300)) as http,
            streamable_http_client(url, http_client=http) as streams,
        ):
            yield streams

    return transport()


def test_a_client_uses_the_memories_over_http_with_the_token(
    env: dict[str, str], bobs_secret: str
) -> None:
    port = _free_port()
    entry = _entry(env, f"127.0.0.1:{port}")
    url = f"http://127.0.0.1:{port}/mcp"
    assert entry["url"] == url
    bearer = entry["headers"]["Authorization"]
    token = bearer.removeprefix("Bearer ")
    assert bearer.startswith("Bearer ") and len(token) >= 32
    token_file = Path(env["ARIA_MEM_HOME"]) / "mcp-token"
    assert token_file.read_text().strip() == token
    assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
    proc = _start(env, "mcp", "--http", f"127.0.0.1:{port}", "--user", "alice")
    try:
        _wait_for_port(port, proc)
        _assert_refused(_post(url, INITIALIZE), token)
        _assert_refused(_post(url, INITIALIZE, Authorization=f"Bearer {token[:-1]}x"), token)
        _assert_refused(_post(url, INITIALIZE, Authorization=token), token)  # no scheme
        assert _post(url, INITIALIZE, Authorization=bearer).status_code == 200
        # The SDK's own Host/Origin checks still stand behind the token.
        assert _post(url, INITIALIZE, Authorization=bearer, Host="evil.test").status_code == 421
        evil = _post(url, INITIALIZE, Authorization=bearer, Origin="http://evil.test")
        assert evil.status_code == 403

        async def session(client: Client) -> None:
            assert {t.name for t in (await client.list_tools()).tools} == TOOLS
            await client.call_tool("remember", {"text": "The user's sister loves pottery."})
            found = _structured(
                await client.call_tool("search_memory", {"message": "a gift for my sister"})
            )
            assert [m["text"] for m in found["memories"]] == ["The user's sister loves pottery."]
            stolen = await client.call_tool("forget_memory", {"memory_id": bobs_secret})
            assert stolen.is_error

        _run(session, _with_headers(url, {"Authorization": bearer}))

        # A live session's id is no key: without the token its calls are refused too.
        live = _open_session(url, bearer)
        _assert_refused(_post(url, LIST_MEMORIES, **live), "pottery")
        _assert_refused(_post(url, LIST_MEMORIES, Authorization="Bearer guess", **live), "pottery")
        listed = _post(url, LIST_MEMORIES, Authorization=bearer, **live)
        assert listed.status_code == 200 and "pottery" in listed.text
    finally:
        _stop(proc)
    assert token not in (proc.stderr.read() if proc.stderr else "")


def test_a_rotated_token_replaces_the_old_one(env: dict[str, str]) -> None:
    port = _free_port()
    address = f"127.0.0.1:{port}"
    url = f"http://{address}/mcp"
    old = _entry(env, address)["headers"]["Authorization"]
    rotated = subprocess.run(
        [sys.executable, "-m", "aria_mem", "mcp", "--rotate-token"],
        env={**env, "COLUMNS": "500"},
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    token_file = Path(env["ARIA_MEM_HOME"]) / "mcp-token"
    assert rotated.returncode == 0, rotated.stderr
    assert str(token_file) in rotated.stdout and "Restart" in rotated.stdout
    assert token_file.read_text().strip() not in rotated.stdout + rotated.stderr
    assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
    new = _entry(env, address)["headers"]["Authorization"]
    assert new != old and new == f"Bearer {token_file.read_text().strip()}"
    proc = _start(env, "mcp", "--http", address)
    try:
        _wait_for_port(port, proc)
        _assert_refused(_post(url, INITIALIZE, Authorization=old))
        assert _post(url, INITIALIZE, Authorization=new).status_code == 200
    finally:
        _stop(proc)


def test_slow_clients_of_another_account_do_not_shut_the_owner_out(
    env: dict[str, str], intruder: Intruder
) -> None:
    """Another account's forty connections that each send half a request: the owner's client
    is answered all the same, and the server closes them (a request must arrive whole within
    ``http_limits.HEAD_SECONDS``, and only a few wait per account). They stayed open for good,
    and enough of them took every file handle of the daemon that serves MCP beside the index."""
    port = _free_port()
    address = f"127.0.0.1:{port}"
    bearer = _entry(env, address)["headers"]["Authorization"]
    proc = _start(env, "mcp", "--http", address)
    slow: subprocess.Popen[str] | None = None
    try:
        _wait_for_port(port, proc)
        slow = intruder.start(SLOW_CLIENTS, str(port), "/mcp")
        assert slow.stdout is not None and slow.stdin is not None
        assert slow.stdout.readline().strip() == "ready", slow.stderr.read() if slow.stderr else ""
        assert _post(f"http://{address}/mcp", INITIALIZE, Authorization=bearer).status_code == 200
        slow.stdin.write("go\n")
        slow.stdin.flush()
        report = json.loads(slow.stdout.readline())
    finally:
        if slow is not None:
            slow.kill()
            slow.wait(timeout=30)
        _stop(proc)
    assert report["pushed_out"] >= 40 - http_limits.PER_CLIENT  # only a few of one account wait
    assert report["left_open"] == 0  # and those not for long


def test_print_config_says_nothing_but_the_entry(env: dict[str, str]) -> None:
    both = subprocess.run(
        [sys.executable, "-m", "aria_mem", "mcp", "--rotate-token", "--print-config",
         "--http", "[::1]:9000"],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )  # fmt: skip
    assert both.returncode == 0, both.stderr
    entry = json.loads(both.stdout)["mcpServers"]["aria-mem"]
    assert entry["url"] == "http://[::1]:9000/mcp"
    assert "new MCP token" in both.stderr  # the notice went to stderr, the JSON alone to stdout
    default = _entry(env, "127.0.0.1:8765")
    assert default["headers"] == entry["headers"]
    named = _entry(env, "localhost:8765")  # where it listens, not ::1 as well
    assert named["url"] == "http://127.0.0.1:8765/mcp"


def test_http_refuses_to_listen_beyond_loopback_unless_told(
    cli: Callable[..., CliResult],
) -> None:
    refused = cli("mcp", "--http", "0.0.0.0:8765")
    assert (
        refused.code == 2
        and "loopback only" in refused.stderr
        and "--allow-remote" in refused.stderr
    )
    malformed = cli("mcp", "--http", "8765")
    assert malformed.code == 2 and "HOST:PORT" in malformed.stderr


def test_the_daemon_can_host_the_http_server(env: dict[str, str]) -> None:
    port = _free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    bearer = _entry(env, f"127.0.0.1:{port}")["headers"]["Authorization"]
    daemon = _start(env, "daemon", "--interval", "0.5", "--mcp-http", f"127.0.0.1:{port}")
    try:
        _wait_for_port(port, daemon)
        _assert_refused(_post(url, INITIALIZE))
        _assert_refused(_post(url, INITIALIZE, Authorization=f"{bearer[:-1]}x"))

        async def session(client: Client) -> None:
            made = _structured(
                await client.call_tool("remember", {"text": "The user plays the cello."})
            )
            assert made["created"]
            state = _structured(await client.call_tool("status", {}))
            assert {c["name"] for c in state["checks"]} >= {"postgres", "index", "daemon"}

        _run(session, _with_headers(url, {"Authorization": bearer}))
    finally:
        assert _stop(daemon) == 0


@pytest.fixture
def memory(env: dict[str, str]) -> Iterator[AriaMem]:
    """The API the in-process server works over (the same database as the env's)."""
    settings = with_overrides(load(environ=env), postgres={"dsn": env["ARIA_MEM_POSTGRES_DSN"]})
    with AriaMem(settings) as opened:
        yield opened


@pytest.fixture
def page() -> Iterator[str]:
    """A web page on loopback: a local wiki the person may teach with the CLI, never a
    model over MCP."""

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            return

        def do_GET(self) -> None:
            body = b"<html><head><title>Kilns</title></head><body><p>Kilns fire clay.</p></body>"
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    site = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=site.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    yield f"http://127.0.0.1:{site.server_address[1]}/kilns"
    site.shutdown()
    site.server_close()


def test_learn_over_mcp_reads_web_pages_never_local_files(
    memory: AriaMem, page: str, tmp_path: Path
) -> None:
    diary = tmp_path / "diary.md"
    diary.write_text("# Diary\n\nThe safe's code is 4921.\n")
    refused = {
        str(diary): "is a local path",
        f"file://{diary}": "is a file:// URL",
        f"FILE:{diary}": "is a file:// URL",
        "~/diary.md": "is a local path",
        "ftp://example.com/diary.md": "is a ftp:// address",
        "http://[::1": "is not a valid web address",
        "http://localhost:99999/diary.md": "is not a valid web address",
        "http:///etc/passwd": "names no host",
        page: "127.0.0.1 is a loopback address",  # tests/test_learn_addresses.py: the rest
    }
    errors: dict[str, str] = {}

    async def session(client: Client) -> None:
        description = next(t for t in (await client.list_tools()).tools if t.name == "learn")
        assert "Local files" in (description.description or "")
        for location in refused:
            errors[location] = _error(
                await client.call_tool("learn", {"location": location, "title": "x"})
            )

    _run(session, build_server(memory, user="alice", companion="aria"))
    for location, problem in refused.items():
        assert problem in errors[location], errors[location]
        assert errors[location] != "Error executing tool learn"  # the SDK's word for a crash
        assert "4921" not in errors[location]
    assert "aria-mem learn PATH" in errors[str(diary)]
    assert memory.knowledge.list(companion="aria") == []


def test_another_users_memory_answers_exactly_as_no_memory(memory: AriaMem) -> None:
    mine = memory.remember("The user plays the cello.", user="alice").memory
    bobs = memory.remember("Bob's bank PIN is 4921.", user="bob").memory
    # A memory of Bob's whose id starts as Alice's does: her prefix must still find hers.
    twin = uuid.UUID(str(mine.id)[:9] + str(uuid.uuid4())[9:])
    stream = io.StringIO()
    memory.transfer.export(stream, user="alice")
    record = json.loads(stream.getvalue())
    record.update(id=str(twin), user_id="bob", text="Bob's locker code is 7730.")
    memory.transfer.import_file(io.BytesIO((json.dumps(record) + "\n").encode()))
    taken = [str(m.id) for m in memory.list(everyone=True)]
    unknown_prefix = next(p for p in (f"{n:08x}" for n in range(1000)) if not any(
        t.startswith(p) for t in taken
    ))  # fmt: skip
    answers: dict[str, str] = {}

    async def session(client: Client) -> None:
        for given in (str(bobs.id), str(uuid.uuid4()), str(bobs.id)[:8], unknown_prefix):
            for tool in ("forget_memory", "confirm_memory"):
                failed = _error(await client.call_tool(tool, {"memory_id": given}))
                said = failed.removeprefix(f"Error executing tool {tool}: ")
                answers[f"{tool} {given}"] = said.replace(given, "<id>")
        confirmed = _structured(
            await client.call_tool("confirm_memory", {"memory_id": str(mine.id)[:8]})
        )
        assert confirmed["id"] == str(mine.id)
        forgot = await client.call_tool("forget_memory", {"memory_id": str(mine.id)[:8]})
        assert not forgot.is_error and str(mine.id) in str(forgot.content[0])

    _run(session, build_server(memory, user="alice", companion="aria"))
    assert set(answers.values()) == {
        "No memory with id <id> for this user — list_memories shows them"
    }, answers
    assert memory.get(twin, user="bob").text == "Bob's locker code is 7730."
    assert memory.get(bobs.id, user="bob").text == "Bob's bank PIN is 4921."
    assert memory.list(user="alice") == []


def test_an_update_by_the_model_keeps_the_pin_and_the_hold_of_what_it_replaces(
    memory: AriaMem,
) -> None:
    """The model's replacement was unpinned and usable at once: a held fact, rephrased by the
    model once the stage let it see the fact, would have reached prompts without its hold."""
    pinned = memory.remember("The user is allergic to peanuts.", pinned=True, user="alice").memory
    held = memory.remember(
        "The user's father died last spring.", hold_until="close", user="alice"
    ).memory
    memory.relationship.set_stage("close", user="alice")
    replaced: dict[str, str] = {}

    async def session(client: Client) -> None:
        for old, text in (
            (pinned, "The user is allergic to peanuts and tree nuts."),
            (held, "The user's father died in April last year."),
        ):
            answer = await client.call_tool(
                "update_memory", {"memory_id": str(old.id), "text": text}
            )
            replaced[str(old.id)] = _structured(answer)["id"]

    _run(session, build_server(memory, user="alice", companion="aria"))
    assert memory.get(replaced[str(pinned.id)], user="alice").pinned
    assert memory.get(replaced[str(held.id)], user="alice").held_until_stage == "close"


def test_the_model_never_sees_a_memory_held_until_a_closer_stage(memory: AriaMem) -> None:
    """Held means stored, never retrieved, until the stage allows it: the model listed held
    memories, read their history, and confirmed, replaced or forgot them by id. Now each such
    id is answered as one that does not exist, nothing changes, and the stage releases them."""
    shown = memory.remember("The user plays the cello.", user="alice").memory
    held = memory.remember(
        "The user's father died last spring.", hold_until="close", pinned=True, user="alice"
    ).memory
    replaced = memory.remember(
        "The user's mother is in hospital.", hold_until="close", user="alice"
    ).memory
    newer = memory.remember(
        "The user's mother is home from hospital.", replaces=replaced.id, user="alice"
    ).memory
    seen: dict[str, Any] = {}

    async def session(client: Client) -> None:
        for status in ("active", "any"):
            listed = await client.call_tool("list_memories", {"status": status})
            seen[status] = [m["text"] for m in _structured(listed)["result"]]
        one = await client.call_tool("list_memories", {"status": "any", "limit": 2})
        seen["two"] = [m["text"] for m in _structured(one)["result"]]
        story = _structured(await client.call_tool("memory_history", {"memory_id": str(newer.id)}))
        seen["versions"] = [v["text"] for v in story["versions"]]
        seen["events"] = story["events"]
        for tool, extra in (
            ("memory_history", {}),
            ("confirm_memory", {}),
            ("update_memory", {"text": "The user's father died in April."}),
            ("forget_memory", {}),
        ):
            for given in (str(held.id), str(held.id)[:8]):
                failed = _error(await client.call_tool(tool, {"memory_id": given, **extra}))
                said = failed.removeprefix(f"Error executing tool {tool}: ")
                seen[f"{tool} {given}"] = said.replace(given, "<id>")
        profile = await client.read_resource("aria-mem://profile")
        block = profile.contents[0]
        assert isinstance(block, TextResourceContents)
        seen["profile"] = block.text

    before = memory.get(held.id, user="alice")
    _run(session, build_server(memory, user="alice", companion="aria"))
    texts = [shown.text, newer.text]
    assert seen["active"] == texts
    assert seen["any"] == [shown.text, newer.text]
    assert seen["two"] == texts
    assert seen["versions"] == [newer.text]
    assert not any(str(replaced.id) in e for e in seen["events"])
    refused = [v for k, v in seen.items() if k.split()[0] in TOOLS]
    assert len(refused) == 8, seen
    assert set(refused) == {"No memory with id <id> for this user — list_memories shows them"}
    assert "father" not in seen["profile"]
    after = memory.get(held.id, user="alice")
    assert after == before
    everything = [shown.text, held.text, replaced.text, newer.text]
    assert [m.text for m in memory.list(user="alice")] == everything

    memory.relationship.set_stage("close", user="alice")
    released: dict[str, Any] = {}

    async def later(client: Client) -> None:
        listed = await client.call_tool("list_memories", {"status": "any"})
        released["texts"] = [m["text"] for m in _structured(listed)["result"]]
        story = _structured(await client.call_tool("memory_history", {"memory_id": str(newer.id)}))
        released["versions"] = [v["text"] for v in story["versions"]]
        released["events"] = story["events"]

    _run(later, build_server(memory, user="alice", companion="aria"))
    assert released["texts"] == everything
    assert released["versions"] == [replaced.text, newer.text]
    assert any(str(replaced.id) in e for e in released["events"])


def test_a_memory_replaced_by_a_held_one_does_not_name_it_to_the_model(memory: AriaMem) -> None:
    """The visible old version's history named the held memory that replaced it by id (from a
    stranger's review); the stage releases the name with the memory."""
    job = memory.remember("The user works at the bakery.", user="alice").memory
    clinic = memory.remember(
        "The user works at the addiction clinic.", hold_until="close", replaces=job.id, user="alice"
    ).memory
    answers: list[Any] = []

    async def session(client: Client) -> None:
        story = await client.call_tool("memory_history", {"memory_id": str(job.id)})
        answers.append(_structured(story))

    _run(session, build_server(memory, user="alice", companion="aria"))
    memory.relationship.set_stage("close", user="alice")
    _run(session, build_server(memory, user="alice", companion="aria"))
    early, close = answers
    assert [(v["text"], v["superseded_by"]) for v in early["versions"]] == [(job.text, None)]
    assert str(clinic.id) not in json.dumps(early)
    assert [(v["text"], v["superseded_by"]) for v in close["versions"]] == [
        (job.text, str(clinic.id)),
        (clinic.text, None),
    ]
