"""`aria-mem mcp` driven by the MCP SDK's own client: over a real stdio pipe to the command
as a subprocess, and over streamable HTTP on loopback. The user's memories go in and come
back; another user's never appear; failures stay polite; bad arguments name the field."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp_types import TextContent, TextResourceContents

from aria_mem import AriaMem
from aria_mem.config import load, with_overrides
from tests.conftest import ROOT, CliResult, closed_port
from tests.fakes.concepts import concept_embed
from tests.fakes.ollama_server import FakeOllama, FakeOllamaState

TOOLS = {
    "remember",
    "search_memory",
    "list_memories",
    "forget_memory",
    "confirm_memory",
    "learn",
    "status",
}


@pytest.fixture
def server() -> Iterator[FakeOllama]:
    with FakeOllama(FakeOllamaState(dim=16, embed=concept_embed)) as fake:
        yield fake


@pytest.fixture
def env(embedded_dsn: str, server: FakeOllama, isolated_env: Path) -> dict[str, str]:
    return {
        **os.environ,
        "ARIA_MEM_HOME": str(isolated_env),
        "ARIA_MEM_POSTGRES_DSN": embedded_dsn,
        "ARIA_MEM_EMBEDDER_HOST": server.url,
        "ARIA_MEM_RETRIEVAL_MIN_SIMILARITY": "0.3",
    }


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

        gone = await client.call_tool("forget_memory", {"memory_id": made["id"][:8]})
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
        assert [x.id for x in m.list(user="bob")] and m.get(bobs_secret).text.endswith("4921.")


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


def test_a_client_uses_the_memories_over_http_on_loopback(
    env: dict[str, str], bobs_secret: str
) -> None:
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "aria_mem", "mcp", "--http", f"127.0.0.1:{port}", "--user", "alice"],
        env=env,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        _wait_for_port(port, proc)

        async def session(client: Client) -> None:
            assert {t.name for t in (await client.list_tools()).tools} == TOOLS
            await client.call_tool("remember", {"text": "The user's sister loves pottery."})
            found = _structured(
                await client.call_tool("search_memory", {"message": "a gift for my sister"})
            )
            assert [m["text"] for m in found["memories"]] == ["The user's sister loves pottery."]
            stolen = await client.call_tool("forget_memory", {"memory_id": bobs_secret})
            assert stolen.is_error

        _run(session, f"http://127.0.0.1:{port}/mcp")
    finally:
        proc.terminate()
        proc.wait(timeout=30)


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
    daemon = subprocess.Popen(
        [sys.executable, "-m", "aria_mem", "daemon", "--interval", "0.5",
         "--mcp-http", f"127.0.0.1:{port}"],
        env=env,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    try:
        _wait_for_port(port, daemon)

        async def session(client: Client) -> None:
            made = _structured(
                await client.call_tool("remember", {"text": "The user plays the cello."})
            )
            assert made["created"]
            state = _structured(await client.call_tool("status", {}))
            assert {c["name"] for c in state["checks"]} >= {"postgres", "index", "daemon"}

        _run(session, f"http://127.0.0.1:{port}/mcp")
    finally:
        daemon.terminate()
        assert daemon.wait(timeout=30) == 0
