"""The OpenAI-compatible provider: the official ``openai`` client inside our adapters,
against a fake server speaking OpenAI's /v1 over a real socket. Embeddings and chat (streamed
in order and whole, a JSON schema passed on), each failure in our own error tree with a
message naming the fix, and `aria-mem serve` answering through it end to end."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import openai
import pytest
from openai.types.chat import ChatCompletionMessageParam

from aria_mem import providers, wiring
from aria_mem.adapters.chat.openai_compatible import OpenAICompatibleChat
from aria_mem.adapters.embedders.openai_compatible import OpenAICompatibleEmbedder
from aria_mem.adapters.openai_client import base_url
from aria_mem.adapters.postgres.store import PostgresStore
from aria_mem.adapters.qdrant_edge import EdgeIndex
from aria_mem.api import AriaMem
from aria_mem.api.initialise import init_config
from aria_mem.config import load, with_overrides
from aria_mem.errors import ChatModelError, ChatModelMissingError, ConfigError, EmbedderError
from aria_mem.openai_server.protocol import Limits
from aria_mem.openai_server.serving import Server, bind, load_key
from tests import accounts, test_port_owners
from tests.accounts import Intruder
from tests.conftest import closed_port
from tests.fakes import vectors
from tests.fakes.concepts import concept_embed
from tests.fakes.openai_server import FakeOpenAI, FakeOpenAIState
from tests.serve_process import serving_sam

neighbour = accounts.neighbour  # the fixture: another person's account
served_by = test_port_owners.served_by  # the fixture: a recording fake run by an account

MESSAGES = [
    {"role": "system", "content": "You are Aria."},
    {"role": "user", "content": "Hello there"},
]


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI(FakeOpenAIState(dim=16)) as server:
        yield server


def test_the_v1_root_is_taken_as_given_or_added_when_no_path_is_given() -> None:
    assert base_url("http://127.0.0.1:1234") == "http://127.0.0.1:1234/v1"
    assert base_url("127.0.0.1:1234/") == "http://127.0.0.1:1234/v1"
    assert base_url("https://models.lan/api/v1/") == "https://models.lan/api/v1"
    assert base_url("") == "http://127.0.0.1:11434/v1"


def test_embeddings_come_back_in_the_order_of_the_texts_in_batches(fake: FakeOpenAI) -> None:
    fake.state.reverse_embeddings = True  # the index field, not the order sent, decides
    embedder = OpenAICompatibleEmbedder("mxbai-embed-large", host=fake.url, batch_size=2)
    texts = ["one", "two", "three"]
    assert embedder.embed(texts) == [vectors.embed(t, 16) for t in texts]
    assert embedder.dimension() == 16
    assert embedder.model_name == "openai-compatible/mxbai-embed-large"
    sent = fake.state.bodies("/v1/embeddings")
    assert [b["input"] for b in sent] == [["one", "two"], ["three"]]
    assert {b["model"] for b in sent} == {"mxbai-embed-large"}
    assert {b["encoding_format"] for b in sent} == {"float"}


def test_the_constructors_send_nothing(fake: FakeOpenAI) -> None:
    OpenAICompatibleEmbedder("mxbai-embed-large", host=fake.url)
    OpenAICompatibleChat("llama3.2", host=fake.url)
    assert fake.state.requests == []


def test_no_key_from_the_environment_reaches_the_server(
    fake: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-the-persons-own-openai-key")
    OpenAICompatibleEmbedder("mxbai-embed-large", host=fake.url).embed(["x"])
    OpenAICompatibleChat("llama3.2", host=fake.url).complete(MESSAGES)
    sent = " ".join(json.dumps(h) for h in fake.state.headers)
    assert "sk-the-persons-own-openai-key" not in sent
    assert {h["authorization"] for h in fake.state.headers} == {"Bearer aria-mem"}


def test_a_vector_of_another_size_is_refused_naming_the_model(fake: FakeOpenAI) -> None:
    embedder = OpenAICompatibleEmbedder("mxbai-embed-large", host=fake.url)
    embedder.embed(["first"])
    fake.state.dim = 8
    with pytest.raises(EmbedderError, match=r"openai-compatible/mxbai-embed-large .*8-dim"):
        embedder.embed(["second"])


def test_embedding_failures_are_embedder_errors_that_name_the_fix(fake: FakeOpenAI) -> None:
    with pytest.raises(EmbedderError, match=r"no embedding model 'nope'.*\[embedder\] model"):
        OpenAICompatibleEmbedder("nope", host=fake.url).embed(["x"])
    fake.state.fail_with = 500
    with pytest.raises(EmbedderError, match=r"failed: HTTP 500"):
        OpenAICompatibleEmbedder("mxbai-embed-large", host=fake.url).embed(["x"])
    down = f"http://127.0.0.1:{closed_port()}/v1"
    with pytest.raises(EmbedderError, match=r"No embedding model answered at .*\[embedder\] host"):
        OpenAICompatibleEmbedder("mxbai-embed-large", host=down, timeout=2).embed(["x"])


def test_a_streamed_reply_arrives_in_order_and_whole(fake: FakeOpenAI) -> None:
    words = [f"w{n}" for n in range(30)]
    fake.state.chat_reply = " ".join(words)
    chat = OpenAICompatibleChat("llama3.2", host=fake.url)
    pieces = list(chat.stream(MESSAGES))
    assert "".join(pieces) == fake.state.chat_reply
    assert pieces == [w + " " for w in words[:-1]] + [words[-1]]
    sent = fake.state.bodies("/v1/chat/completions")[-1]
    assert sent["stream"] is True and sent["model"] == "llama3.2"
    assert sent["messages"] == MESSAGES


def test_a_whole_reply_with_a_json_schema_passes_the_schema_on(fake: FakeOpenAI) -> None:
    schema: dict[str, Any] = {
        "title": "Extracted facts",
        "type": "object",
        "properties": {"facts": {"type": "array", "items": {"type": "string"}}},
        "required": ["facts"],
    }
    fake.state.structured = lambda messages: json.dumps({"facts": [messages[-1]["content"]]})
    chat = OpenAICompatibleChat("llama3.2", host=fake.url)
    assert json.loads(chat.complete(MESSAGES, json_schema=schema)) == {"facts": ["Hello there"]}
    sent = fake.state.bodies("/v1/chat/completions")[-1]
    assert sent["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "Extracted_facts", "schema": schema},
    }
    assert not sent.get("stream")
    assert chat.complete(MESSAGES) == fake.state.chat_reply
    assert "response_format" not in fake.state.bodies("/v1/chat/completions")[-1]


def test_check_finds_the_model_among_those_listed_and_its_context_when_said(
    fake: FakeOpenAI,
) -> None:
    chat = OpenAICompatibleChat("llama3.2", host=fake.url)
    chat.check()
    assert chat.context_length() is None  # OpenAI's own /v1/models does not say it
    fake.state.model_extra = {"max_context_length": 8192}  # LM Studio's field
    said = OpenAICompatibleChat("llama3.2", host=fake.url)
    assert said.context_length() == 8192
    with pytest.raises(ChatModelMissingError, match=r"no chat model 'nope'.*llama3\.2.*\[chat\]"):
        OpenAICompatibleChat("nope", host=fake.url).check()


def test_chat_failures_are_chat_model_errors_that_name_the_fix(fake: FakeOpenAI) -> None:
    missing = OpenAICompatibleChat("nope", host=fake.url)
    with pytest.raises(ChatModelMissingError, match=r"no chat model 'nope'.*\[chat\] model"):
        missing.complete(MESSAGES)
    with pytest.raises(ChatModelMissingError):
        list(missing.stream(MESSAGES))
    fake.state.fail_with = 500
    chat = OpenAICompatibleChat("llama3.2", host=fake.url)
    attempts: list[Callable[[], object]] = [
        lambda: chat.complete(MESSAGES),
        lambda: list(chat.stream(MESSAGES)),
    ]
    for attempt in attempts:
        with pytest.raises(ChatModelError, match=r"failed: HTTP 500") as failed:
            attempt()
        assert not isinstance(failed.value, ChatModelMissingError)
    fake.state.fail_with = 401
    with pytest.raises(ChatModelError, match=r"asks for an API key"):
        chat.complete(MESSAGES)
    down = OpenAICompatibleChat("llama3.2", host=f"127.0.0.1:{closed_port()}", timeout=2)
    attempts = [lambda: down.complete(MESSAGES), lambda: list(down.stream(MESSAGES)), down.check]
    for attempt in attempts:
        with pytest.raises(ChatModelError, match=r"No chat model answered at .*\[chat\] host"):
            attempt()
    assert down.context_length() is None


def test_a_server_another_persons_account_runs_is_sent_nothing(
    neighbour: Intruder, served_by: Callable[[Intruder | None], test_port_owners.Served]
) -> None:
    theirs = served_by(neighbour)
    refusal = f"{theirs.url} is served by account '{neighbour.name}' (uid {neighbour.uid})"
    chat = OpenAICompatibleChat("llama3.2", host=f"{theirs.url}/v1")
    for attempt in (
        lambda: chat.complete(MESSAGES),
        lambda: list(chat.stream(MESSAGES)),
        chat.check,
    ):
        with pytest.raises(ChatModelError, match=r"set \[chat\] trust_account") as refused:
            attempt()
        assert refusal in str(refused.value)
    embedder = OpenAICompatibleEmbedder("m", host=theirs.url.removeprefix("http://"))
    with pytest.raises(EmbedderError, match=r"set \[embedder\] trust_account"):
        embedder.embed_query("my sister")
    trusted = OpenAICompatibleEmbedder("m", host=theirs.url, trust_account=neighbour.name)
    with pytest.raises(EmbedderError, match="without OpenAI's embeddings"):
        trusted.embed_query("my sister")  # sent this time: the recording fake is no /v1
    assert [r.split(" ")[:2] for r in theirs.requests()] == [["POST", "/v1/embeddings"]]


def test_a_server_without_a_v1_api_is_told_to_fix_the_host(
    fake: FakeOpenAI, served_by: Callable[[Intruder | None], test_port_owners.Served]
) -> None:
    with pytest.raises(ChatModelError, match=r"no OpenAI-compatible /models.*\[chat\] host"):
        OpenAICompatibleChat("llama3.2", host=f"{fake.host}/wrong").check()
    native = served_by(None)  # answers every GET with Ollama's shape of model list
    chat = OpenAICompatibleChat("llama3.2", host=native.url)
    with pytest.raises(ChatModelError, match=r"without OpenAI's model list.*\[chat\] host"):
        chat.check()


def test_the_config_and_the_wiring_build_it(fake: FakeOpenAI) -> None:
    settings = with_overrides(
        load(),
        embedder={"provider": "openai-compatible", "host": fake.host},
        chat={"provider": "openai-compatible", "host": fake.url},
    )
    embedder = wiring.build_embedder(settings)
    chat = wiring.build_chat_model(settings)
    assert isinstance(embedder, OpenAICompatibleEmbedder)
    assert isinstance(chat, OpenAICompatibleChat)
    assert embedder.model_name == "openai-compatible/mxbai-embed-large"
    assert chat.complete(MESSAGES) == fake.state.chat_reply
    with pytest.raises(ConfigError, match=r"\[chat\] provider .*openai-compatible"):
        with_overrides(load(), chat={"provider": "openai"})


def test_init_writes_it_when_asked_with_an_address(fake: FakeOpenAI, tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    done = init_config(path, provider="openai-compatible", host=fake.url)
    assert (done.provider, done.model, done.host) == (
        "openai-compatible",
        "mxbai-embed-large",
        fake.url,
    )
    written = load(path).embedder
    assert (written.provider, written.host) == ("openai-compatible", fake.url)
    assert wiring.build_embedder(load(path)).dimension() == 16
    assert not providers.EMBEDDING["openai-compatible"].detected  # it needs an address


def test_serve_answers_through_an_openai_compatible_model_server(
    store: PostgresStore, tmp_path: Path
) -> None:
    """Both ends OpenAI's protocol: the app asks `aria-mem serve`, which embeds and asks its
    chat model over another server's /v1, with the user's memories in the system message."""
    with FakeOpenAI(FakeOpenAIState(dim=16, embed=concept_embed)) as models:
        models.state.chat_reply = "Maybe a pottery class for her?"
        settings = with_overrides(
            load(),
            embedder={"provider": "openai-compatible", "host": models.url},
            chat={"provider": "openai-compatible", "host": models.url, "extract_memories": "off"},
            retrieval={"min_similarity": 0.3},
        )
        index = EdgeIndex(tmp_path / "index")
        with AriaMem(settings, store=store, index=index) as memory:
            memory.remember("The user's sister loves pottery.", user="sam")
            server = Server(memory, bind("127.0.0.1", 0), load_key(), "sam", "aria", Limits())
            server.start()
            try:
                client = openai.OpenAI(
                    base_url=server.url, api_key=server.key, max_retries=0, timeout=20
                )
                ask: list[ChatCompletionMessageParam] = [
                    {"role": "user", "content": "I need a gift for my sister"}
                ]
                reply = client.chat.completions.create(
                    model="aria-mem",
                    messages=ask,
                    user="sam",
                )
                assert reply.choices[0].message.content == models.state.chat_reply
                chunks = client.chat.completions.create(
                    model="aria-mem",
                    messages=ask,
                    user="sam",
                    stream=True,
                )
                streamed = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
                assert streamed == models.state.chat_reply
            finally:
                server.stop()
        index.close()
        asked = models.state.bodies("/v1/chat/completions")
        assert len(asked) == 2  # serve streams from its model either way
        for request in asked:
            assert request["model"] == "llama3.2"
            assert request["messages"][0]["role"] == "system"
            assert "loves pottery" in request["messages"][0]["content"]
            assert request["messages"][-1] == ask[-1]
        assert models.state.bodies("/v1/embeddings")


def test_the_serve_command_answers_through_it(embedded_dsn: str, tmp_path: Path) -> None:
    """`aria-mem serve` in a child process, as a person starts it, with both models behind
    an OpenAI-compatible server set by the environment."""
    with FakeOpenAI(FakeOpenAIState(dim=16, embed=concept_embed)) as models:
        env = {
            **os.environ,
            "ARIA_MEM_POSTGRES_DSN": embedded_dsn,
            "ARIA_MEM_EMBEDDER_PROVIDER": "openai-compatible",
            "ARIA_MEM_EMBEDDER_HOST": models.url,
            "ARIA_MEM_CHAT_PROVIDER": "openai-compatible",
            "ARIA_MEM_CHAT_HOST": models.host,  # /v1 is added
            "ARIA_MEM_CHAT_EXTRACT_MEMORIES": "off",
            "ARIA_MEM_RETRIEVAL_MIN_SIMILARITY": "0.3",
        }
        ours = with_overrides(
            load(), embedder={"provider": "openai-compatible", "host": models.url}
        )
        with serving_sam(env, ours, embedded_dsn, tmp_path / "index") as url:
            client = openai.OpenAI(base_url=url, api_key=load_key(), max_retries=0, timeout=60)
            reply = client.chat.completions.create(
                model="aria-mem", messages=[{"role": "user", "content": "What should I cook?"}]
            )
            assert reply.choices[0].message.content == models.state.chat_reply
        asked = models.state.bodies("/v1/chat/completions")[-1]
        assert asked["model"] == "llama3.2" and asked["stream"] is True
        assert "allergic to peanuts" in asked["messages"][0]["content"]
