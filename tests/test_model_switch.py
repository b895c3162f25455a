"""A switch of embedding model while a long-lived client holds ``AriaMem`` open, with real
processes: the client remembering in one, `aria-mem reindex --model` in another, `status`
and `sync` in more. Every memory the client was told was saved is found by its own text
under the new model afterwards, by the client itself; `status` compares the index with
PostgreSQL memory by memory; `sync` puts back vectors the index lost."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from aria_mem import AriaMem
from aria_mem.adapters.in_memory.store import InMemoryStore
from aria_mem.adapters.qdrant_server import QdrantServerIndex
from aria_mem.adapters.service.shared_index import SharedEdgeIndex
from aria_mem.config import load
from aria_mem.domain.models import MEMORIES_COLLECTION, Kind
from aria_mem.services.indexer import Indexer
from aria_mem.services.reconciler import Reconciler
from tests.conftest import ROOT, CliResult
from tests.fakes.ollama_server import FakeOllama, FakeOllamaState

Cli = Callable[..., CliResult]
OLD, NEW = "ollama/mxbai-embed-large", "ollama/nomic-embed-text"


class HeldClient:
    """``tests.held_client`` in a child process, its JSON lines collected as they come."""

    def __init__(self, folder: Path, env: dict[str, str]) -> None:
        self.folder = folder
        folder.mkdir()
        self.lines: list[dict[str, Any]] = []
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tests.held_client", str(folder)],
            cwd=ROOT,
            env={**os.environ, **env},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(json.loads(line))

    def events(self, kind: str) -> list[dict[str, Any]]:
        return [e for e in list(self.lines) if e["event"] == kind]

    def wait_for(self, kind: str, count: int = 1, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while len(self.events(kind)) < count:
            if self.proc.poll() is not None or time.monotonic() > deadline:
                assert self.proc.stderr is not None
                raise AssertionError(
                    f"the held client gave {len(self.events(kind))} {kind} lines: "
                    f"{self.lines[-3:]}\n{self.proc.stderr.read() if self.proc.poll() else ''}"
                )
            time.sleep(0.05)

    def signal(self, name: str) -> None:
        (self.folder / name).write_text("")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=30)


def _indexed(dsn: str) -> dict[str | None, int]:
    """Memories per index state and model, as PostgreSQL says."""
    with psycopg.connect(dsn) as conn:
        found = conn.execute(
            "SELECT index_state, indexed_model, count(*) FROM memories GROUP BY 1, 2"
        ).fetchall()
    return {f"{state}:{model}": int(n) for state, model, n in found}


def _write_memories(path: Path, count: int) -> None:
    lines = [
        json.dumps(
            {
                "id": f"00000000-0000-4000-8000-{i:012d}",
                "user_id": "me",
                "companion_id": "aria",
                "type": "Goal",
                "text": f"imported goal {i} tz{i}delta",
                "created_at": "2026-01-01T00:00:00+00:00",
            }
        )
        for i in range(count)
    ]
    path.write_text("\n".join(lines) + "\n")


@pytest.fixture(params=["same size, a chatty client", "new size, a busy client"])
def two_models(request: pytest.FixtureRequest) -> Iterator[tuple[FakeOllama, FakeOllamaState]]:
    """The old model 64-dimensional; the new one too (its vectors go into the same
    collection, beside the old ones), or 32 (the switch recreates the collection)."""
    sizes = {"nomic-embed-text": 32} if request.param.startswith("new size") else {}
    state = FakeOllamaState(dim=64, model_dims=sizes)
    with FakeOllama(state) as server:
        yield server, state


@pytest.fixture
def pause(two_models: tuple[FakeOllama, FakeOllamaState]) -> str:
    """Seconds between the held client's memories: a chat's pace (before this was fixed, the
    20 it saved during the switch were left indexed under the old model, their vectors swept
    away), or as fast as it can (the re-index must still end)."""
    _, state = two_models
    return "0.02" if state.model_dims else "0.3"


@pytest.fixture
def same_size() -> Iterator[FakeOllama]:
    with FakeOllama(FakeOllamaState(dim=64)) as server:
        yield server


@pytest.fixture
def fake_ollama(two_models: tuple[FakeOllama, FakeOllamaState]) -> FakeOllama:
    return two_models[0]


@pytest.fixture
def extra_env() -> dict[str, str]:
    return {
        "ARIA_MEM_EMBEDDER_BATCH_SIZE": "10",
        "ARIA_MEM_IDENTITY_USER": "me",
        "ARIA_MEM_IDENTITY_COMPANION": "aria",
    }


@pytest.mark.slow
def test_a_held_client_follows_a_switch_and_every_memory_it_saved_is_found(
    cli: Cli,
    env: dict[str, str],
    embedded_dsn: str,
    isolated_env: Path,
    tmp_path: Path,
    two_models: tuple[FakeOllama, FakeOllamaState],
    pause: str,
) -> None:
    _, state = two_models
    _write_memories(tmp_path / "in.jsonl", 150)
    assert cli("import", str(tmp_path / "in.jsonl"), env=env).code == 0
    client = HeldClient(tmp_path / "client", {**env, "HELD_CLIENT_PAUSE": pause})
    try:
        client.wait_for("remembered", 5)
        state.embed_delay = 0.05  # the re-index takes a while; the client writes throughout
        switched = cli("reindex", "--model", "nomic-embed-text", "--json", env=env)
        assert switched.code == 0, switched.stderr
        during = len(client.events("remembered"))
        state.embed_delay = 0.0
        client.wait_for("remembered", during + 5)  # and goes on after the switch
        client.signal("stop")
        time.sleep(0.5)
        client.signal("search")
        client.wait_for("done")
        remembered = client.events("remembered")
        searched = {e["id"]: e for e in client.events("searched")}
        last = client.events("done")[0]
    finally:
        client.stop()
    assert json.loads(switched.stdout)["finished"] is True
    assert remembered[0]["model"] == "mxbai-embed-large"
    assert last["model"] == "nomic-embed-text"  # the client followed the switch
    models_seen = {e["model"] for e in remembered}
    assert models_seen == {"mxbai-embed-large", "nomic-embed-text"}
    assert all(e["indexed"] for e in remembered), [e for e in remembered if not e["indexed"]]
    lost = [
        (e["text"], searched[e["id"]])
        for e in remembered
        if not (searched[e["id"]]["similarity"] or 0) > 0.8  # a vector of the new model
        or searched[e["id"]]["model"] != NEW
        or searched[e["id"]]["degraded"]
    ]
    assert not lost, f"{len(lost)} of {len(remembered)} saved memories not found: {lost[:3]}"
    total = 150 + len(remembered)
    assert _indexed(embedded_dsn) == {f"indexed:{NEW}": total}
    index = SharedEdgeIndex(isolated_env / "data" / "index")
    try:
        assert index.count(MEMORIES_COLLECTION, NEW) == total
        assert index.count(MEMORIES_COLLECTION) == total  # the old model's vectors are gone
    finally:
        index.close()
    status = cli("status", "--json", env=env)
    assert status.code == 0, status.stdout
    vectors = json.loads(status.stdout)["checks"]["vectors"]
    assert (vectors["ok"], vectors["model"]) == (True, NEW)
    assert (vectors["indexed"], vectors["present"], vectors["missing"]) == (total, total, 0)


def test_sync_puts_back_vectors_the_index_lost_and_status_says_so_until_then(
    cli: Cli, env: dict[str, str], embedded_dsn: str, isolated_env: Path, tmp_path: Path
) -> None:
    _write_memories(tmp_path / "in.jsonl", 60)
    assert cli("import", str(tmp_path / "in.jsonl"), env=env).code == 0
    assert cli("status", "--json", env=env).code == 0
    lost = [uuid.UUID(f"00000000-0000-4000-8000-{i:012d}") for i in range(0, 60, 4)]
    index = SharedEdgeIndex(isolated_env / "data" / "index")
    try:
        index.delete(MEMORIES_COLLECTION, lost)  # behind PostgreSQL's back
        assert index.count(MEMORIES_COLLECTION) == 45
    finally:
        index.close()

    broken = cli("status", "--json", env=env)
    report = json.loads(broken.stdout)
    vectors = report["checks"]["vectors"]
    assert broken.code == 1 and report["ok"] is False
    assert (vectors["indexed"], vectors["present"], vectors["missing"]) == (60, 45, 15)
    assert "15 of the 60" in vectors["error"] and "aria-mem sync" in vectors["error"]

    repaired = cli("sync", "--json", env=env)
    assert repaired.code == 0, repaired.stderr
    done = json.loads(repaired.stdout)
    assert (done["requeued"], done["indexed"]) == (15, 15)
    healthy = cli("status", "--json", env=env)
    assert healthy.code == 0, healthy.stdout
    vectors = json.loads(healthy.stdout)["checks"]["vectors"]
    assert (vectors["indexed"], vectors["present"], vectors["missing"]) == (60, 60, 0)
    index = SharedEdgeIndex(isolated_env / "data" / "index")
    try:
        assert set(lost) <= set(index.ids(MEMORIES_COLLECTION, OLD))
    finally:
        index.close()


def test_sync_reindexes_what_was_indexed_under_another_model(
    cli: Cli, env: dict[str, str], embedded_dsn: str, tmp_path: Path
) -> None:
    """What a client still wrote under the old model after a switch finished (PostgreSQL
    says indexed, under a model nobody searches): `status` says so, `sync` re-indexes it."""
    _write_memories(tmp_path / "in.jsonl", 20)
    assert cli("import", str(tmp_path / "in.jsonl"), env=env).code == 0
    assert cli("reindex", "--model", "nomic-embed-text", env=env).code == 0
    with psycopg.connect(embedded_dsn) as conn:
        conn.execute(
            "UPDATE memories SET indexed_model = %s WHERE text LIKE 'imported goal 1%%'", (OLD,)
        )
    broken = json.loads(cli("status", "--json", env=env).stdout)["checks"]["vectors"]
    assert broken["ok"] is False and broken["other_model"] == 11
    assert "indexed under another model" in broken["error"]
    done = json.loads(cli("sync", "--json", env=env).stdout)
    assert done["requeued"] == 11 and done["indexed"] == 11
    assert _indexed(embedded_dsn) == {f"indexed:{NEW}": 20}
    assert json.loads(cli("status", "--json", env=env).stdout)["checks"]["vectors"]["ok"]


# -- the pieces, in one process ------------------------------------------------------------


class SwitchingFollower:
    """A follower whose database switches models at a set moment (a re-index run recorded
    while an entry was being written)."""

    def __init__(self, store: InMemoryStore, new_model: str, embedder: Any) -> None:
        self._store, self._new, self._embedder = store, new_model, embedder

    def switched_from(self, model: str) -> str | None:
        latest = self._store.daemon.latest_reindex()
        return latest.model if latest is not None and latest.model != model else None

    def embedder_for(self, model: str) -> Any:
        assert model == self._new
        return self._embedder


def test_an_entry_written_under_the_old_model_during_a_switch_is_written_again(
    same_size: FakeOllama,
) -> None:
    from aria_mem.adapters.embedders.ollama import OllamaEmbedder
    from aria_mem.domain.models import NewMemory
    from aria_mem.domain.payload import memory_entry

    server = same_size
    store = InMemoryStore()
    index = QdrantServerIndex(":memory:")
    old = OllamaEmbedder("mxbai-embed-large", host=server.url, timeout=5)
    new = OllamaEmbedder("nomic-embed-text", host=server.url, timeout=5)
    saved = store.memories.save(NewMemory("me", "aria", "The user keeps bees.")).memory
    store.daemon.start_reindex(NEW, 1, background=False)  # the switch, recorded meanwhile
    follower = SwitchingFollower(store, NEW, new)
    indexer = Indexer(store.queue, index, old, follower=follower)
    report = indexer.sync([memory_entry(saved, True)])
    assert (report.indexed, report.failed) == (1, 0)
    assert store.queue.indexed_ids(Kind.MEMORY, NEW) == {saved.id}
    assert index.ids(MEMORIES_COLLECTION, NEW) == [saved.id]
    assert index.ids(MEMORIES_COLLECTION, OLD) == []


def test_the_sweep_keeps_the_vector_of_a_pending_entry_and_requeues_other_models(
    same_size: FakeOllama,
) -> None:
    from aria_mem.adapters.embedders.ollama import OllamaEmbedder
    from aria_mem.domain.models import NewMemory
    from aria_mem.domain.payload import memory_entry

    server = same_size
    store = InMemoryStore()
    index = QdrantServerIndex(":memory:")
    old = OllamaEmbedder("mxbai-embed-large", host=server.url, timeout=5)
    new = OllamaEmbedder("nomic-embed-text", host=server.url, timeout=5)
    late = store.memories.save(NewMemory("me", "aria", "Written under the old model.")).memory
    Indexer(store.queue, index, old).sync([memory_entry(late, True)])  # indexed(OLD)
    writing = store.memories.save(NewMemory("me", "aria", "Being written right now.")).memory
    Indexer(store.queue, index, old).sync([memory_entry(writing, True)])
    store.queue.mark_pending(Kind.MEMORY, [writing.id])  # its vector is there, not marked yet
    sweep = Reconciler(store.queue, index, new).sweep()
    assert sweep.other_model_requeued == 1  # the late one: pending, to get the new vector
    assert sweep.orphans_removed == 0  # both are pending: their vectors wait for the indexer
    assert set(index.ids(MEMORIES_COLLECTION)) == {late.id, writing.id}
    report = Reconciler(store.queue, index, new).sync()
    assert report.indexed == 2
    assert set(index.ids(MEMORIES_COLLECTION, NEW)) == {late.id, writing.id}


def test_an_entry_a_client_marks_under_the_old_model_during_the_sweep_is_requeued(
    same_size: FakeOllama,
) -> None:
    """A client writes under the old model after the sweep's first look for other models and
    before it compares the collections: its vector is removed as unwanted, so the entry must
    end up pending, never indexed under a model nobody searches with no vector."""
    from aria_mem.adapters.embedders.ollama import OllamaEmbedder
    from aria_mem.domain.models import NewMemory
    from aria_mem.domain.payload import memory_entry

    store = InMemoryStore()
    index = QdrantServerIndex(":memory:")
    old = OllamaEmbedder("mxbai-embed-large", host=same_size.url, timeout=5)
    new = OllamaEmbedder("nomic-embed-text", host=same_size.url, timeout=5)
    late = store.memories.save(NewMemory("me", "aria", "Written while the sweep ran.")).memory
    Indexer(store.queue, index, new).sync([])  # the new model's collection exists

    class WriteDuringTheSweep(QdrantServerIndex):
        written = False

        def ids(self, collection: str, model: str | None = None) -> list[uuid.UUID]:
            if not self.written and model is None:
                self.written = True
                Indexer(store.queue, index, old).sync([memory_entry(late, True)])
            return index.ids(collection, model)

    racing = WriteDuringTheSweep(":memory:")
    assert store.queue.indexed_ids(Kind.MEMORY, NEW) == set()
    sweep = Reconciler(store.queue, racing, new).sweep()
    assert racing.written and sweep.orphans_removed == 1
    assert late.id in {e.id for e in store.queue.pending(Kind.MEMORY, 10)}
    assert sweep.other_model_requeued == 1


def test_a_client_given_its_own_embedder_is_told_it_cannot_follow(
    same_size: FakeOllama, isolated_env: Path
) -> None:
    from aria_mem.adapters.embedders.ollama import OllamaEmbedder

    server = same_size
    store = InMemoryStore()
    index = QdrantServerIndex(":memory:")
    old = OllamaEmbedder("mxbai-embed-large", host=server.url, timeout=5)
    with AriaMem(load(), store=store, index=index, embedder=old) as mem:
        first = mem.remember("The user keeps bees.")
        assert first.indexed
        store.daemon.start_reindex(NEW, 1, background=False)  # another process switched
        time.sleep(1.1)  # the look before work that embeds is once a second
        found = mem.search("bees")
        second = mem.remember("The user sings in a choir.")
    assert any("changed to ollama/nomic-embed-text" in d for d in found.degraded)
    assert not second.indexed and second.problem is not None
    assert "reopen" in second.problem
    assert store.queue.pending_count() == 1  # left for the daemon or `aria-mem sync`


def test_a_client_opened_before_a_switch_follows_it_at_its_first_call(
    same_size: FakeOllama, isolated_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Opened with the old model, idle while another process switched: its first memory is
    indexed under the new model, not the one it was opened with."""
    monkeypatch.setenv("ARIA_MEM_EMBEDDER_HOST", same_size.url)
    store = InMemoryStore()
    with AriaMem(load(), store=store, index=QdrantServerIndex(":memory:")) as mem:
        assert mem.settings.embedder.effective_model == "mxbai-embed-large"
        store.daemon.start_reindex(NEW, 0, background=False)
        written = mem.remember("The user keeps bees.")
        found = mem.search("bees")
        assert mem.settings.embedder.effective_model == "nomic-embed-text"
    assert written.indexed
    assert store.queue.indexed_ids(Kind.MEMORY, NEW) == {written.memory.id}
    assert found.model == NEW and not found.degraded
