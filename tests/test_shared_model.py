"""The in-process model is loaded once, by the aria-mem service, and every other process gets
its vectors over the service's socket; no command ever imports torch."""

from __future__ import annotations

import json
import math
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from aria_mem.adapters.embedders.local_model import BUNDLED, SentenceTransformerEmbedder
from aria_mem.adapters.embedders.shared import SharedModelEmbedder
from aria_mem.adapters.model_shelf import ModelShelf
from aria_mem.adapters.postgres import embedded
from aria_mem.adapters.service.client import ServiceClient
from aria_mem.adapters.service.protocol import MAX_TEXTS_PER_CALL
from aria_mem.adapters.service.server import IndexService
from aria_mem.errors import EmbedderError, VectorIndexError
from tests.conftest import CHILD, ROOT, CliResult

Cli = Callable[..., CliResult]
IN_PROCESS = {
    "ARIA_MEM_EMBEDDER_PROVIDER": "sentence-transformers",
    "ARIA_MEM_RETRIEVAL_MIN_SIMILARITY": "0.25",
}


class CountingModel:
    """Stands in for a model the service loaded: records what it was asked to embed."""

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
def served(tmp_path: Path) -> Iterator[tuple[ServiceClient, dict[str, CountingModel]]]:
    """A service in this process whose shelf loads CountingModels, and a client that reaches
    it over the socket as another process would."""
    loaded: dict[str, CountingModel] = {}

    def load(name: str) -> CountingModel:
        loaded[name] = CountingModel(name)
        return loaded[name]

    service = IndexService.take(tmp_path / "index", started="test", shelf=ModelShelf(load))
    assert service is not None
    client = ServiceClient(tmp_path / "index", in_place=False)
    yield client, loaded
    client.close()
    service.close()


def test_a_client_gets_vectors_from_the_services_model_loaded_once(
    served: tuple[ServiceClient, dict[str, CountingModel]],
) -> None:
    client, loaded = served
    embedder = SharedModelEmbedder(BUNDLED, lambda: client)
    assert embedder.embed(["abc", "hello"]) == [[3.0, 1.0, 0.0], [5.0, 1.0, 0.0]]
    embedder.embed(["again"])
    assert list(loaded) == [BUNDLED] and loaded[BUNDLED].calls == [["abc", "hello"], ["again"]]
    assert client.hello()["model"] == BUNDLED


def test_the_service_keeps_the_two_models_last_used(
    served: tuple[ServiceClient, dict[str, CountingModel]],
) -> None:
    client, loaded = served
    for name in ("first", "second", "first", "third"):
        client.call({"op": "embed", "model": name, "texts": ["x"]})
    assert client.hello()["model"] == "first, third"
    assert loaded["first"].calls == [["x"], ["x"]]  # kept, not loaded twice


def test_a_relative_model_path_reaches_the_service_as_an_absolute_one(
    served: tuple[ServiceClient, dict[str, CountingModel]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    client, loaded = served
    (tmp_path / "models" / "mine").mkdir(parents=True)
    monkeypatch.chdir(tmp_path)
    SharedModelEmbedder("models/mine", lambda: client).embed(["x"])
    assert list(loaded) == [str(tmp_path / "models" / "mine")]


def test_embedding_requests_are_bounded_and_model_errors_come_back_as_such(
    served: tuple[ServiceClient, dict[str, CountingModel]],
) -> None:
    client, loaded = served
    embedder = SharedModelEmbedder(BUNDLED, lambda: client)
    with pytest.raises(VectorIndexError, match=f"at most {MAX_TEXTS_PER_CALL} texts"):
        client.call({"op": "embed", "model": BUNDLED, "texts": ["x"] * (MAX_TEXTS_PER_CALL + 1)})
    embedder.embed(["x"])
    loaded[BUNDLED].fail = True
    with pytest.raises(EmbedderError, match="ran out of memory"):
        embedder.embed(["y"])
    assert loaded[BUNDLED].calls == [["x"]]


def _service_process(root: Path) -> subprocess.Popen[str]:
    service = subprocess.Popen(
        [*CHILD, str(root), "x", "0", "hold", "serve", "model"],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert service.stdout is not None
    assert service.stdout.readline().startswith("service=True")
    return service


@pytest.mark.slow
def test_the_real_model_gives_through_the_service_the_vectors_it_gives_here(
    tmp_path: Path,
) -> None:
    service = _service_process(tmp_path / "index")
    client = ServiceClient(tmp_path / "index")
    try:
        shared = SharedModelEmbedder(BUNDLED, lambda: client)
        remote = shared.embed_query("Any ideas for dinner tonight?")
        here = SentenceTransformerEmbedder().embed_query("Any ideas for dinner tonight?")
        assert len(remote) == len(here) == 384
        assert max(abs(a - b) for a, b in zip(remote, here, strict=True)) < 1e-5
        assert math.isclose(sum(v * v for v in remote), 1.0, rel_tol=1e-4)
    finally:
        client.close()
        service.communicate("", timeout=60)
    assert service.returncode == 0


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


def _service_pid(cli: Cli) -> int:
    owner = json.loads(cli("status", "--json", env=IN_PROCESS).stdout)["checks"]["index"]["owner"]
    assert owner["command"] == "on demand" and not owner["this_process"]
    return int(owner["pid"])


@pytest.mark.slow
def test_the_first_command_starts_the_service_once_and_no_command_loads_the_model(
    cli: Cli, home_pg: Path, isolated_env: Path
) -> None:
    """No service runs: the first command that embeds starts it (and says so, once); later
    commands are its clients; none of them imports torch, in the first run or after."""
    timed = {**IN_PROCESS, "PYTHONPROFILEIMPORTTIME": "1"}
    made = cli("remember", "The user's sister Maya loves pottery.", "--json", env=timed)
    assert made.code == 0 and json.loads(made.stdout)["indexed"] is True, made.stderr
    assert made.stderr.count("started the aria-mem service in the background") == 1
    assert "service.log" in made.stderr and "aria-mem stop" in made.stderr
    first = _service_pid(cli)
    runs = [made]
    for _ in range(2):
        found = cli("search", "What does my sister enjoy doing?", "--json", env=timed)
        assert found.code == 0, found.stderr
        assert "started the aria-mem service" not in found.stderr
        result = json.loads(found.stdout)
        assert not result["degraded"]
        assert [m["text"] for m in result["memories"]] == ["The user's sister Maya loves pottery."]
        runs.append(found)
    listed = cli("list", "--json", env=timed)
    assert listed.code == 0
    for run in [*runs, listed]:
        modules = _imported(run.stderr)
        assert "aria_mem.cli.app" in modules  # the timing lines are there
        assert not {"torch", "sentence_transformers"} & modules
    assert _service_pid(cli) == first
    stopped = cli("stop", "--json")
    assert json.loads(stopped.stdout)["index_owner_pid"] == first
    again = cli("search", "What does my sister enjoy doing?", "--json", env=IN_PROCESS)
    assert again.code == 0 and "started the aria-mem service" in again.stderr
    assert _service_pid(cli) != first


def test_an_unexpected_failure_in_the_service_comes_back_as_an_error_not_a_lost_service(
    served: tuple[ServiceClient, dict[str, CountingModel]],
) -> None:
    """A model (or a disk) can fail in ways no one foresaw: the client hears what happened,
    once, and the service goes on serving."""
    client, loaded = served
    embedder = SharedModelEmbedder(BUNDLED, lambda: client)
    embedder.embed(["x"])

    def broken(texts: list[str]) -> list[list[float]]:
        raise RuntimeError("CUDA out of memory")

    loaded[BUNDLED].encode = broken  # type: ignore[method-assign]
    with pytest.raises(EmbedderError, match="RuntimeError: CUDA out of memory"):
        embedder.embed(["y"])
    assert client.hello()["model"] == BUNDLED  # still serving, same connection
