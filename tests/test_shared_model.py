"""The in-process model is loaded once, by the process that owns the index, and lent to the
others over the index socket; a command that only reads never imports torch."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from aria_mem.adapters.embedders.local_model import SentenceTransformerEmbedder
from aria_mem.adapters.embedders.shared import SharedModelEmbedder
from aria_mem.adapters.index_sharing import MAX_TEXTS_PER_CALL, SharedEdgeIndex
from aria_mem.adapters.postgres import embedded
from aria_mem.errors import EmbedderError, VectorIndexError
from tests.conftest import ROOT, CliResult

Cli = Callable[..., CliResult]
IN_PROCESS = {
    "ARIA_MEM_EMBEDDER_PROVIDER": "sentence-transformers",
    "ARIA_MEM_RETRIEVAL_MIN_SIMILARITY": "0.25",
}


class CountingModel:
    """Stands in for a loaded model in the owner: records what it was asked to embed."""

    def __init__(self, name: str = "sentence-transformers/all-MiniLM-L6-v2") -> None:
        self.model_name = name
        self.calls: list[list[str]] = []
        self.fail = False

    def encode(self, texts: list[str]) -> list[list[float]]:
        if self.fail:
            raise EmbedderError("the model ran out of memory")
        self.calls.append(texts)
        return [[float(len(t)), 1.0, 0.0] for t in texts]


@pytest.fixture
def pair(tmp_path: Path) -> Iterator[tuple[SharedEdgeIndex, SharedEdgeIndex, CountingModel]]:
    """An owner that lends ``model`` and a client of it, in this process (a second open of
    the lock file is refused just as another process's would be)."""
    model = CountingModel()
    owner = SharedEdgeIndex(tmp_path / "index", model=model)
    owner.count("memories")  # takes ownership
    client = SharedEdgeIndex(tmp_path / "index")
    yield owner, client, model
    client.close()
    owner.close()


def test_a_client_gets_vectors_from_the_owners_model(
    pair: tuple[SharedEdgeIndex, SharedEdgeIndex, CountingModel],
) -> None:
    owner, client, model = pair
    got = client.embed_through_owner(model.model_name, ["abc", "hello"])
    assert got == [[3.0, 1.0, 0.0], [5.0, 1.0, 0.0]]
    assert model.calls == [["abc", "hello"]]
    assert owner.is_owner and not client.is_owner


def test_the_owner_itself_and_a_client_of_another_model_run_their_own(
    pair: tuple[SharedEdgeIndex, SharedEdgeIndex, CountingModel],
) -> None:
    owner, client, model = pair
    assert owner.embed_through_owner(model.model_name, ["x"]) is None
    assert client.embed_through_owner("sentence-transformers/other-model", ["x"]) is None
    assert model.calls == []


def test_an_owner_without_a_model_lends_none(tmp_path: Path) -> None:
    owner = SharedEdgeIndex(tmp_path / "index")
    owner.count("memories")
    client = SharedEdgeIndex(tmp_path / "index")
    try:
        assert client.embed_through_owner("sentence-transformers/all-MiniLM-L6-v2", ["x"]) is None
    finally:
        client.close()
        owner.close()


def test_embedding_requests_are_bounded_and_model_errors_come_back_as_such(
    pair: tuple[SharedEdgeIndex, SharedEdgeIndex, CountingModel],
) -> None:
    _owner, client, model = pair
    with pytest.raises(VectorIndexError, match=f"at most {MAX_TEXTS_PER_CALL} texts"):
        client.embed_through_owner(model.model_name, ["x"] * (MAX_TEXTS_PER_CALL + 1))
    model.fail = True
    with pytest.raises(EmbedderError, match="ran out of memory"):
        client.embed_through_owner(model.model_name, ["x"])
    assert model.calls == []


def _owner_process(root: Path) -> subprocess.Popen[str]:
    owner = subprocess.Popen(
        [sys.executable, "-m", "tests.fakes.index_child", str(root), "x", "0", "hold", "model"],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert owner.stdout is not None
    assert owner.stdout.readline().startswith("owner=True")
    return owner


def test_the_real_model_is_lent_and_gives_the_vectors_it_would_give_here(tmp_path: Path) -> None:
    owner = _owner_process(tmp_path / "index")
    client = SharedEdgeIndex(tmp_path / "index")
    local = SentenceTransformerEmbedder()
    try:
        shared = SharedModelEmbedder(local, lambda: client)
        remote = shared.embed_query("Any ideas for dinner tonight?")
        assert shared.served_by_owner == 1
        assert not local.loaded  # the client never loaded the model
        here = local.embed_query("Any ideas for dinner tonight?")
        assert len(remote) == len(here) == 384
        assert max(abs(a - b) for a, b in zip(remote, here, strict=True)) < 1e-5
        assert math.isclose(sum(v * v for v in remote), 1.0, rel_tol=1e-4)
    finally:
        client.close()
        owner.communicate("", timeout=60)
    assert owner.returncode == 0


def test_when_the_owner_goes_away_the_client_runs_the_model_itself(tmp_path: Path) -> None:
    owner = _owner_process(tmp_path / "index")
    client = SharedEdgeIndex(tmp_path / "index")
    local = SentenceTransformerEmbedder()
    shared = SharedModelEmbedder(local, lambda: client)
    try:
        shared.embed(["The user swims."])
        assert shared.served_by_owner == 1 and not local.loaded
        owner.communicate("", timeout=60)
        shared.embed(["The user cycles."])
        assert client.is_owner and local.loaded and shared.served_by_owner == 1
    finally:
        client.close()
        if owner.poll() is None:
            owner.kill()


@pytest.fixture
def home_pg(isolated_env: Path) -> Iterator[Path]:
    pgdata = isolated_env / "data" / "postgres"
    yield pgdata
    embedded.stop(pgdata)


def _imported(stderr: str) -> set[str]:
    """Module names from ``-X importtime`` lines (``import time: self | cumulative | name``)."""
    return {
        line.rsplit("|", 1)[1].strip()
        for line in stderr.splitlines()
        if line.startswith("import time:") and "|" in line
    }


def test_commands_use_the_owners_model_and_reading_commands_never_import_torch(
    cli: Cli, home_pg: Path, isolated_env: Path
) -> None:
    owner = _owner_process(isolated_env / "data" / "index")
    timed = {**IN_PROCESS, "PYTHONPROFILEIMPORTTIME": "1"}
    try:
        made = cli("remember", "The user's sister Maya loves pottery.", "--json", env=timed)
        assert made.code == 0 and json.loads(made.stdout)["indexed"] is True, made.stderr
        found = cli("search", "What does my sister enjoy doing?", "--json", env=timed)
        assert found.code == 0, found.stderr
        result = json.loads(found.stdout)
        assert not result["degraded"]
        assert [m["text"] for m in result["memories"]] == ["The user's sister Maya loves pottery."]
        listed = cli("list", "--json", env=timed)
        assert listed.code == 0
        for run in (made, found, listed):
            modules = _imported(run.stderr)
            assert "aria_mem.cli.app" in modules  # the timing lines are there
            assert not {"torch", "sentence_transformers"} & modules
    finally:
        owner.communicate("", timeout=60)
