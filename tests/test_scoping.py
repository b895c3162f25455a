"""What one user or companion may reach of another's: nothing. Knowledge is forgotten only
within its companion (CLI and API), and MCP `status` counts only the memories of the user and
companion it serves. On PostgreSQL, with the real Edge index and the fake Ollama server."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import psycopg
import pytest
from mcp.client.client import Client

from aria_mem import AriaMem
from aria_mem.adapters.qdrant_edge import EdgeIndex
from aria_mem.config import Settings, load, with_overrides
from aria_mem.domain.models import MEMORIES_COLLECTION
from aria_mem.errors import NotFoundError
from aria_mem.mcp_server import build_server
from tests.conftest import CliResult
from tests.fakes.concepts import concept_embed
from tests.fakes.ollama_server import FakeOllama, FakeOllamaState


@pytest.fixture
def server() -> Iterator[FakeOllama]:
    with FakeOllama(FakeOllamaState(dim=16, embed=concept_embed)) as fake:
        yield fake


@pytest.fixture
def settings(server: FakeOllama, dsn: str) -> Settings:
    return with_overrides(
        load(), postgres={"dsn": dsn}, embedder={"host": server.url}, identity={"user": "alice"}
    )


@pytest.fixture
def index(tmp_path: Path) -> Iterator[EdgeIndex]:
    index = EdgeIndex(tmp_path / "index")
    yield index
    index.close()


@pytest.fixture
def memory(settings: Settings, index: EdgeIndex) -> Iterator[AriaMem]:
    with AriaMem(settings, index=index) as mem:
        yield mem


def _document(folder: Path, name: str, text: str) -> str:
    path = folder / name
    path.write_text(f"# {name}\n\n{text}\n")
    return str(path)


def test_knowledge_is_forgotten_only_within_its_companion(memory: AriaMem, tmp_path: Path) -> None:
    novas = memory.knowledge.learn(
        _document(tmp_path, "kilns.md", "Kilns fire clay."), companion="nova"
    )
    arias = memory.knowledge.learn(_document(tmp_path, "glazes.md", "Glazes melt."))
    with pytest.raises(NotFoundError, match="No knowledge source"):
        memory.knowledge.forget(novas.source_id[:8])  # the configured companion is aria
    assert [s.title for s in memory.knowledge.list(companion="nova")] == ["kilns.md"]
    assert memory.knowledge.forget(arias.source_id[:8]).source.passages == 1
    assert memory.knowledge.forget(novas.source_id, companion="nova").source.title == "kilns.md"
    assert memory.knowledge.list(everyone=True) == []


def test_the_cli_leaves_another_companions_knowledge_alone(
    cli: Callable[..., CliResult], server: FakeOllama, dsn: str, tmp_path: Path
) -> None:
    env = {"ARIA_MEM_POSTGRES_DSN": dsn, "ARIA_MEM_EMBEDDER_HOST": server.url}
    document = _document(tmp_path, "kilns.md", "Kilns fire clay.")
    learned = cli("learn", document, "--companion", "nova", "--json", env=env)
    assert learned.code == 0, learned.stderr
    source_id = json.loads(learned.stdout)["source_id"]
    refused = cli("knowledge", "forget", source_id, env=env)
    assert refused.code == 1 and "No knowledge source" in refused.stderr, refused
    listed = cli("knowledge", "list", "--companion", "nova", "--json", env=env)
    assert [s["id"] for s in json.loads(listed.stdout)] == [source_id]
    forgot = cli("knowledge", "forget", source_id, "--companion", "nova", env=env)
    assert forgot.code == 0, forgot.stderr
    emptied = cli("knowledge", "list", "--companion", "nova", "--json", env=env)
    assert json.loads(emptied.stdout) == []


def test_mcp_status_counts_only_the_memories_it_serves(memory: AriaMem) -> None:
    memory.remember("The user plays the cello.")
    memory.remember("The user is allergic to peanuts.", merge=False)
    memory.remember("The user collects stamps.", companion="nova")
    for text in ("Bob's bank PIN is 4921.", "Bob is afraid of spiders."):
        memory.remember(text, user="bob", merge=False)
    told: dict[str, Any] = {}

    async def main() -> None:
        async with Client(build_server(memory, user="alice", companion="aria")) as client:
            result = await client.call_tool("status", {})
            assert not result.is_error, result.content
            told.update(result.structured_content or {})

    anyio.run(main)
    assert told["memories"] == 2 and told["pending"] == 0
    assert memory.admin.counts(user="bob").total == 2
    everyone = memory.admin.status().counts
    assert everyone is not None and everyone.total == 5  # the owner's status counts everyone


def _mcp_status(memory: AriaMem) -> dict[str, Any]:
    told: dict[str, Any] = {}

    async def main() -> None:
        async with Client(build_server(memory, user="alice", companion="aria")) as client:
            result = await client.call_tool("status", {})
            assert not result.is_error, result.content
            told.update(result.structured_content or {})

    anyio.run(main)
    return told


def _unreadable_row(dsn: str, user: str) -> None:
    """A row an older aria-mem let in: its timestamp is outside the years Python reads."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(
            "INSERT INTO memories (id, user_id, companion_id, type, text, normalized_text,"
            " importance, emotional_significance, confidence, expires_at)"
            " VALUES (gen_random_uuid(), %s, 'aria', 'Goal', 'old row', 'old row', 0.5, 0, 0.8,"
            " '0001-01-01T00:00:00+14:00')",
            (user,),
        )


def test_mcp_status_tells_nothing_of_other_users_memories(
    memory: AriaMem, index: EdgeIndex, dsn: str
) -> None:
    memory.remember("The user plays the cello.")
    bobs = [memory.remember(t, user="bob", merge=False) for t in ("Bob keeps bees.", "Bob rows.")]
    index.delete(MEMORIES_COLLECTION, [bobs[0].memory.id])  # a vector lost behind PG's back
    _unreadable_row(dsn, "bob")
    owner = {c.name: c for c in memory.admin.status().checks}
    assert owner["vectors"].error and "1 of the 3 entries" in owner["vectors"].error
    assert owner["data"].error and owner["data"].error.startswith("1 memories")
    told = _mcp_status(memory)
    checks = {c["name"]: c for c in told["checks"]}
    assert "vectors" not in checks  # the id-by-id comparison is the owner's, not a poller's
    assert checks["data"]["ok"] is False
    assert "aria-mem status` says more" in checks["data"]["error"]
    assert all(not any(ch.isdigit() for ch in c["error"] or "") for c in checks.values()), checks
    assert told["memories"] == 1


def test_mcp_status_does_not_count_the_vectors_the_index_lost(
    memory: AriaMem, index: EdgeIndex
) -> None:
    memory.remember("The user plays the cello.")
    for text in ("Bob keeps bees.", "Bob rows."):
        memory.remember(text, user="bob", merge=False)
    index.delete(MEMORIES_COLLECTION, index.ids(MEMORIES_COLLECTION))
    owner = memory.admin.status().index
    assert owner.error and "PostgreSQL has 3 memories indexed" in owner.error
    checks = {c["name"]: c for c in _mcp_status(memory)["checks"]}
    assert checks["index"]["ok"] is False
    assert "aria-mem status` says more" in checks["index"]["error"]


def test_the_memories_of_a_review_item_are_read_only_for_its_own_pair(
    memory: AriaMem, dsn: str, cli: Callable[..., CliResult], server: FakeOllama
) -> None:
    """Another pair's review items, however a caller came by them, bring none of that pair's
    memories into a call that acts on alice and aria."""
    pin = memory.remember("Bob's bank PIN is 4921.", user="bob", merge=False).memory
    code = memory.remember("Bob's door code is 1357.", user="bob", merge=False).memory
    assert pin is not None and code is not None
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(
            "INSERT INTO review_items (id, user_id, companion_id, kind, memory_id, other_id,"
            " reason) VALUES (gen_random_uuid(), 'bob', 'aria', 'conflict', %s, %s, 'which?')",
            (pin.id, code.id),
        )
    theirs = memory.review.list(user="bob")
    assert memory.review.list() == [] and len(theirs) == 1
    assert memory.review.memories(theirs) == {}
    assert memory.review.memories(theirs, companion="nova", user="bob") == {}
    assert set(memory.review.memories(theirs, user="bob")) == {pin.id, code.id}
    assert set(memory.review.memories(theirs, everyone=True)) == {pin.id, code.id}
    env = {"ARIA_MEM_POSTGRES_DSN": dsn, "ARIA_MEM_EMBEDDER_HOST": server.url}
    for scope in (("--user", "bob"), ("--all",)):
        shown = cli("review", *scope, env=env)
        assert shown.code == 0 and "PIN is 4921" in shown.stdout, shown
        assert "forgotten since" not in shown.stdout
