"""Embedders through the real client libraries: ollama over HTTP and lmstudio over
websockets to fake servers, and the in-process sentence-transformers model."""

from __future__ import annotations

import math
import threading
import warnings
from collections.abc import Iterator

import lmstudio
import pytest

from aria_mem.adapters.embedders.base import PROBE_TEXT, BaseEmbedder
from aria_mem.adapters.embedders.lmstudio import LMStudioEmbedder, host_port
from aria_mem.adapters.embedders.local_model import SentenceTransformerEmbedder
from aria_mem.adapters.embedders.ollama import OllamaEmbedder
from aria_mem.errors import EmbedderError
from tests.conftest import closed_port
from tests.fakes.lmstudio_server import FakeLMStudio
from tests.fakes.ollama_server import FakeOllama
from tests.fakes.vectors import embed


@pytest.fixture(autouse=True)
def protocol_drift_is_an_error() -> Iterator[None]:
    with warnings.catch_warnings():
        warnings.simplefilter("error", lmstudio.LMStudioUnknownMessageWarning)
        yield


def test_ollama_embeds_in_batches_and_learns_the_dimension(fake_ollama: FakeOllama) -> None:
    embedder = OllamaEmbedder("mxbai-embed-large", host=fake_ollama.url, batch_size=3)
    texts = [f"text {i}" for i in range(7)]
    vectors = embedder.embed(texts)
    assert vectors == [embed(t, 64) for t in texts]
    assert [len(c) for c in fake_ollama.state.embed_calls] == [3, 3, 1]
    assert embedder.dimension() == 64
    assert embedder.model_name == "ollama/mxbai-embed-large"


def test_ollama_unknown_model_says_how_to_pull_it(fake_ollama: FakeOllama) -> None:
    with pytest.raises(EmbedderError, match="ollama pull all-minilm"):
        OllamaEmbedder("all-minilm", host=fake_ollama.url).dimension()


def test_ollama_not_running_says_start_ollama() -> None:
    with pytest.raises(EmbedderError, match="No embedding model answered at .* start Ollama"):
        OllamaEmbedder("m", host=f"http://127.0.0.1:{closed_port()}", timeout=2).embed(["x"])


def test_ollama_server_error_is_an_embedder_error(fake_ollama: FakeOllama) -> None:
    fake_ollama.state.fail_embed_with = 500
    with pytest.raises(EmbedderError, match="failed to embed: fake failure"):
        OllamaEmbedder("mxbai-embed-large", host=fake_ollama.url).embed(["x"])


def test_wrong_number_or_size_of_vectors_is_caught(fake_ollama: FakeOllama) -> None:
    embedder = OllamaEmbedder("mxbai-embed-large", host=fake_ollama.url)
    embedder.dimension()
    fake_ollama.state.dim = 32
    with pytest.raises(EmbedderError, match="32-dimensional vector after a 64-dimensional"):
        embedder.embed(["x"])
    fake_ollama.state.dim = 64
    fake_ollama.state.embed = lambda text, dim: [math.nan] * dim
    with pytest.raises(EmbedderError, match="NaN"):
        embedder.embed(["x"])


class _Replaced(BaseEmbedder):
    """A model server whose model was replaced by one of ``size`` dimensions; its answer to
    the dimension probe waits for ``answer``."""

    provider = "fake"

    def __init__(self) -> None:
        super().__init__("m")
        self.size = 8
        self.probing = threading.Event()
        self.answer = threading.Event()

    def _embed_batch(self, texts: list[str]) -> list[list[float]]:
        if texts == [PROBE_TEXT] and self.size != 8:  # the probe after the replacement
            self.probing.set()
            self.answer.wait(10)
        return [[1.0] * self.size for _ in texts]


def test_a_probe_says_the_new_size_and_leaves_the_guard_on_for_others() -> None:
    """`status` in the long-running service asks the model afresh (``probe``); meanwhile and
    after, another request's vector of another size is still refused (the guard against a
    model replaced mid-run stays on), and two probes at once both answer."""
    embedder = _Replaced()
    assert embedder.dimension() == 8
    embedder.size = 16
    sizes: list[int] = []
    probe = threading.Thread(target=lambda: sizes.append(embedder.probe()))
    probe.start()
    assert embedder.probing.wait(10)
    try:
        with pytest.raises(EmbedderError, match="16-dimensional vector after an? 8-dimensional"):
            embedder.embed(["a memory stored while status runs"])
    finally:
        embedder.answer.set()
        probe.join(10)
    assert sizes == [16] and embedder.probe() == 16
    with pytest.raises(EmbedderError, match="16-dimensional vector after an? 8-dimensional"):
        embedder.embed(["a memory stored after status"])


def test_lmstudio_embeds_through_the_sdk(fake_lmstudio: FakeLMStudio) -> None:
    embedder = LMStudioEmbedder(
        "text-embedding-nomic-embed-text-v1.5", host=f"http://{fake_lmstudio.host}/", timeout=5
    )
    vectors = embedder.embed(["sister pottery", "peanut allergy"])
    sent = ["search_document: sister pottery", "search_document: peanut allergy"]  # nomic
    assert vectors == [embed(text, 48) for text in sent]
    assert embedder.dimension() == 48
    assert fake_lmstudio.state.embedded == sent
    embedder.close()


def test_lmstudio_unknown_model_and_no_server(fake_lmstudio: FakeLMStudio) -> None:
    missing = LMStudioEmbedder("nope", host=fake_lmstudio.host, timeout=5)
    with pytest.raises(EmbedderError, match="no embedding model 'nope'"):
        missing.embed(["x"])
    missing.close()
    with pytest.raises(EmbedderError, match="start LM Studio"):
        LMStudioEmbedder("m", host=f"127.0.0.1:{closed_port()}", timeout=2).embed(["x"])


def test_host_port_strips_schemes() -> None:
    assert host_port("http://localhost:1234/") == "localhost:1234"
    assert host_port("") == "127.0.0.1:1234"


@pytest.mark.slow
def test_in_process_model_gives_real_semantic_vectors() -> None:
    pytest.importorskip("sentence_transformers")
    embedder = SentenceTransformerEmbedder()
    sister, gift, weather = embedder.embed(
        [
            "The user's sister loves pottery.",
            "I need to find a gift for my sister's wedding.",
            "The stock market closed lower today.",
        ]
    )
    assert embedder.dimension() == 384

    def cos(a: list[float], b: list[float]) -> float:
        return sum(x * y for x, y in zip(a, b, strict=True))

    assert cos(sister, gift) > cos(sister, weather)
    assert math.isclose(cos(sister, sister), 1.0, abs_tol=1e-5)


def test_in_process_model_missing_path_is_explained() -> None:
    with pytest.raises(EmbedderError, match="No sentence-transformers model at"):
        SentenceTransformerEmbedder("/no/such/model").embed(["x"])


def test_models_get_the_task_prefixes_their_cards_ask_for(
    fake_ollama: FakeOllama, fake_lmstudio: FakeLMStudio
) -> None:
    from aria_mem.domain.instructions import RETRIEVAL_INSTRUCTION, prefixes

    mxbai = OllamaEmbedder("mxbai-embed-large", host=fake_ollama.url)
    mxbai.embed(["The user's sister loves pottery."])
    mxbai.embed_query("gift for my sister")
    assert fake_ollama.state.embed_calls[-2:] == [
        ["The user's sister loves pottery."],
        [RETRIEVAL_INSTRUCTION + "gift for my sister"],
    ]
    nomic = LMStudioEmbedder(
        "text-embedding-nomic-embed-text-v1.5", host=fake_lmstudio.host, timeout=5
    )
    nomic.embed(["a memory"])
    nomic.embed_query("a question")
    assert fake_lmstudio.state.embedded[-2:] == [
        "search_document: a memory",
        "search_query: a question",
    ]
    nomic.close()
    assert prefixes("all-MiniLM-L6-v2") == ("", "")
    assert prefixes("nomic-embed-text:latest") == ("search_query: ", "search_document: ")
