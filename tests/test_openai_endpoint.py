"""The OpenAI-compatible endpoint (`aria-mem serve`), with the official ``openai`` package as
the app, real PostgreSQL and Qdrant Edge, and the fake Ollama and LM Studio servers behind it
recording what the model receives: the memories of the right user and companion and never
another's, streaming in order and whole, the key, a model server that is down and comes
back, a memory failure, a fact that becomes a memory, and the bounds."""

from __future__ import annotations

import json
import os
import stat
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import lmstudio
import openai
import pytest
from openai.types.chat import ChatCompletionMessageParam

from aria_mem.adapters.postgres.store import PostgresStore
from aria_mem.adapters.qdrant_edge import EdgeIndex
from aria_mem.api import AriaMem
from aria_mem.config import Settings, load, with_overrides
from aria_mem.openai_server.protocol import Limits
from aria_mem.openai_server.serving import Server, bind, load_key
from tests.accounts import Intruder
from tests.conftest import CliResult, closed_port
from tests.fakes.concepts import concept_embed
from tests.fakes.lmstudio_server import FakeLMStudio, FakeLMStudioState
from tests.fakes.ollama_at_port import FakeOllamaAt
from tests.fakes.ollama_server import FakeOllama, FakeOllamaState
from tests.serve_process import serving_sam

APP_SYSTEM = "You are Aria, the app's own character."
SISTER: list[ChatCompletionMessageParam] = [
    {"role": "system", "content": APP_SYSTEM},
    {"role": "user", "content": "My sister's getting married in June"},
    {"role": "assistant", "content": "How lovely!"},
    {"role": "user", "content": "I need to find a gift"},
]


@pytest.fixture
def models() -> Iterator[FakeOllama]:
    """The embedding model (and, unless a test says otherwise, the chat model)."""
    with FakeOllama(FakeOllamaState(dim=16, embed=concept_embed)) as fake:
        yield fake


def _settings(models: FakeOllama, **chat: object) -> Settings:
    return with_overrides(
        load(),
        embedder={"host": models.url},
        chat={"host": models.url, **chat},
        retrieval={"min_similarity": 0.3},
    )


@pytest.fixture
def settings(models: FakeOllama) -> Settings:
    return _settings(models)


@pytest.fixture
def memory(settings: Settings, store: PostgresStore, tmp_path: Path) -> Iterator[AriaMem]:
    index = EdgeIndex(tmp_path / "index")
    with AriaMem(settings, store=store, index=index) as mem:
        yield mem
    index.close()


def _serve(memory: AriaMem, limits: Limits | None = None) -> Server:
    server = Server(memory, bind("127.0.0.1", 0), load_key(), "sam", "aria", limits or Limits())
    server.start()
    return server


@pytest.fixture
def endpoint(memory: AriaMem) -> Iterator[Server]:
    server = _serve(memory)
    yield server
    server.stop()


def _client(server: Server, key: str | None = None) -> openai.OpenAI:
    return openai.OpenAI(base_url=server.url, api_key=key or server.key, max_retries=0, timeout=20)


def _asked(models: FakeOllama) -> dict[str, Any]:
    """The last request for a reply (extraction's requests ask for JSON and are not)."""
    return [r for r in models.state.chat_requests if not r.get("format")][-1]


def _system(request: dict[str, object]) -> str:
    messages = request["messages"]
    assert isinstance(messages, list) and messages[0]["role"] == "system"
    return str(messages[0]["content"])


def _remember_two_people(memory: AriaMem) -> None:
    memory.remember(
        "The user is allergic to peanuts.", memory_type="ProfileFact", importance=0.9, user="sam"
    )
    memory.remember("The user's sister loves pottery.", memory_type="RelationshipFact", user="sam")
    memory.remember(
        "The user is a vegetarian.", memory_type="ProfileFact", importance=0.9, user="kim"
    )
    memory.remember("The user's sister collects vinyl.", memory_type="RelationshipFact", user="kim")
    memory.remember(
        "The user's sister paints murals.",
        memory_type="RelationshipFact",
        user="sam",
        companion="nova",
    )


def test_each_request_gets_the_memories_of_its_own_user_and_companion(
    memory: AriaMem, endpoint: Server, models: FakeOllama
) -> None:
    _remember_two_people(memory)
    client = _client(endpoint)
    seen: dict[str, str] = {}
    for who, ask in (
        ("sam", {"model": "aria-mem", "user": "sam"}),
        ("kim", {"model": "aria@llama3.2", "user": "kim"}),
        ("kim-by-header", {"model": "llama3.2", "extra_headers": {"X-Aria-Mem-User": "kim"}}),
        ("sam-with-nova", {"model": "nova@llama3.2"}),
        ("sam-by-default", {"model": "aria-mem"}),
    ):
        reply = client.chat.completions.create(messages=SISTER, **ask)
        assert reply.choices[0].message.content == "Hello from the fake model. "
        seen[who] = _system(_asked(models))
    for who in ("sam", "sam-by-default"):
        assert seen[who].startswith(APP_SYSTEM + "\n\n")  # the app's own, then the data
        assert "USER PROFILE DATA" in seen[who] and "RELEVANT MEMORY DATA" in seen[who]
        assert "allergic to peanuts" in seen[who] and "loves pottery" in seen[who]
        assert "vegetarian" not in seen[who] and "vinyl" not in seen[who]
        assert "murals" not in seen[who]
    for who in ("kim", "kim-by-header"):
        assert "vegetarian" in seen[who] and "collects vinyl" in seen[who]
        assert "peanuts" not in seen[who] and "pottery" not in seen[who]
        assert "murals" not in seen[who]
    assert "paints murals" in seen["sam-with-nova"]
    assert "peanuts" not in seen["sam-with-nova"] and "pottery" not in seen["sam-with-nova"]
    request = _asked(models)
    assert request["model"] == "llama3.2"
    assert [m["role"] for m in request["messages"]] == ["system", "user", "assistant", "user"]
    assert request["messages"][1:] == SISTER[1:]  # the app's conversation, unchanged


def test_without_a_system_message_the_memories_make_one(
    memory: AriaMem, endpoint: Server, models: FakeOllama
) -> None:
    _remember_two_people(memory)
    _client(endpoint).chat.completions.create(model="aria-mem", messages=SISTER[1:], user="sam")
    system = _system(_asked(models))
    assert system.startswith("USER PROFILE DATA") and "loves pottery" in system


def test_streaming_arrives_in_order_and_whole(endpoint: Server, models: FakeOllama) -> None:
    words = [f"w{n}" for n in range(40)]
    models.state.chat_reply = " ".join(words)
    stream = _client(endpoint).chat.completions.create(
        model="aria-mem", messages=SISTER, stream=True
    )
    chunks = list(stream)
    pieces = [c.choices[0].delta.content for c in chunks if c.choices[0].delta.content]
    assert pieces == [w + " " for w in words]  # each piece as the model gave it, in order
    assert chunks[0].choices[0].delta.role == "assistant"
    assert chunks[-1].choices[0].finish_reason == "stop"
    assert len({c.id for c in chunks}) == 1
    assert _asked(models)["stream"] is True  # not a background extraction's request

    counted = list(
        _client(endpoint).chat.completions.create(
            model="aria-mem", messages=SISTER, stream=True, stream_options={"include_usage": True}
        )
    )
    assert counted[-1].choices == [] and counted[-1].usage is not None
    assert counted[-1].usage.completion_tokens > 0
    assert [c.choices[0].delta.content for c in counted[1:-2]] == [w + " " for w in words]

    raw = httpx.post(
        f"{endpoint.url}/chat/completions",
        headers={"Authorization": f"Bearer {endpoint.key}"},
        json={"model": "aria-mem", "messages": SISTER, "stream": True},
        timeout=20,
    )
    assert raw.headers["content-type"].startswith("text/event-stream")
    assert raw.text.endswith("data: [DONE]\n\n") and raw.text.count("[DONE]") == 1


def test_an_app_that_hangs_up_mid_stream_stops_the_model_and_frees_its_place(
    memory: AriaMem, models: FakeOllama
) -> None:
    words = [f"w{n}" for n in range(30)]
    models.state.chat_reply = " ".join(words)
    models.state.chat_delay = 0.1
    server = _serve(memory, Limits(concurrent=1))
    try:
        with httpx.stream(
            "POST",
            f"{server.url}/chat/completions",
            headers={"Authorization": f"Bearer {server.key}"},
            json={"model": "aria-mem", "messages": SISTER, "stream": True, "user": "sam"},
            timeout=20,
        ) as answer:
            for line in answer.iter_lines():
                if '"w2 "' in line:
                    break  # the app goes away after three pieces
        models.state.chat_delay = 0.0
        again = _post(server, {"messages": SISTER})
        for _ in range(200):  # its place is given back once the server sees it went
            if again.status_code != 429:
                break
            time.sleep(0.05)
            again = _post(server, {"messages": SISTER})
        assert again.status_code == 200
        server.endpoint.wait()
    finally:
        server.stop()
    (kept,) = memory.conversations.list(user="sam")
    _, turns = memory.conversations.get(str(kept.id), user="sam")
    role, partial = turns[1]  # the first reply, cut short; then the second request's
    assert role == "assistant" and partial.startswith("w0 w1 w2")
    assert len(partial.split()) < len(words)  # what was given, not the whole reply


@pytest.mark.parametrize("key", [None, "wrong-key-" + "x" * 40])
def test_no_key_or_a_wrong_one_is_401_and_the_model_receives_nothing(
    memory: AriaMem, endpoint: Server, models: FakeOllama, key: str | None
) -> None:
    memory.remember("The user's sister loves pottery.", user="sam")
    embedded = len(models.state.embed_calls)
    headers = {} if key is None else {"Authorization": f"Bearer {key}"}
    for path, method in (("/chat/completions", "POST"), ("/models", "GET")):
        refused = httpx.request(
            method,
            endpoint.url + path,
            headers=headers,
            json={"model": "aria-mem", "messages": SISTER, "stream": True},
        )
        assert refused.status_code == 401
        error = refused.json()["error"]
        assert error["code"] == "invalid_api_key" and "--print-config" in error["message"]
    with pytest.raises(openai.AuthenticationError):
        _client(endpoint, key="x" * 43).chat.completions.create(model="aria-mem", messages=SISTER)
    assert models.state.chat_requests == []
    assert len(models.state.embed_calls) == embedded  # not even the memories were searched


def test_the_model_server_down_is_an_openai_error_and_it_serves_again_when_back(
    memory: AriaMem, models: FakeOllama, store: PostgresStore, tmp_path: Path
) -> None:
    port = closed_port()
    settings = with_overrides(_settings(models), chat={"host": f"http://127.0.0.1:{port}"})
    index = EdgeIndex(tmp_path / "index-2")
    with AriaMem(settings, store=store, index=index) as mem:
        server = _serve(mem)
        client = _client(server)
        try:
            for streamed in (False, True):
                with pytest.raises(openai.APIStatusError) as failed:
                    list(
                        client.chat.completions.create(
                            model="aria-mem", messages=SISTER, stream=streamed
                        )
                    ) if streamed else client.chat.completions.create(
                        model="aria-mem", messages=SISTER
                    )
                assert failed.value.status_code == 502
                error = failed.value.response.json()["error"]
                assert set(error) >= {"message", "type", "code"}
                assert error["code"] == "model_server_unavailable"
                assert "No chat model answered" in error["message"]
                assert "Traceback" not in failed.value.response.text
            with FakeOllamaAt(port, FakeOllamaState(dim=16, chat_reply="Back again.")) as back:
                reply = client.chat.completions.create(model="aria-mem", messages=SISTER)
                assert reply.choices[0].message.content == "Back again. "
                assert _asked(back)["messages"][-1] == SISTER[-1]
            with pytest.raises(openai.APIStatusError):  # down again: an error again
                client.chat.completions.create(model="aria-mem", messages=SISTER)
        finally:
            server.stop()
    index.close()


def test_a_failure_once_streaming_is_an_error_event_before_done(
    memory: AriaMem, models: FakeOllama
) -> None:
    models.state.chat_reply = "one two three four five six"
    models.state.chat_delay = 0.2
    server = _serve(memory, Limits(reply_seconds=0.3))
    try:
        raw = httpx.post(
            f"{server.url}/chat/completions",
            headers={"Authorization": f"Bearer {server.key}"},
            json={"model": "aria-mem", "messages": SISTER, "stream": True},
            timeout=20,
        )
        events = [e.removeprefix("data: ") for e in raw.text.strip().split("\n\n")]
        assert events[-1] == "[DONE]"
        assert json.loads(events[-2])["error"]["code"] == "timeout"
        assert json.loads(events[1])["choices"][0]["delta"]["content"] == "one "
        with pytest.raises(openai.APIError):
            list(
                _client(server).chat.completions.create(
                    model="aria-mem", messages=SISTER, stream=True
                )
            )
    finally:
        server.stop()


def test_a_memory_failure_is_a_reply_without_memories(
    models: FakeOllama, store: PostgresStore, tmp_path: Path
) -> None:
    index = EdgeIndex(tmp_path / "index")
    with AriaMem(_settings(models), store=store, index=index) as mem:
        mem.remember("The user's sister loves pottery.", user="sam")
    closed = f"http://127.0.0.1:{closed_port()}"
    no_embedder = with_overrides(_settings(models), embedder={"host": closed, "timeout": 2})
    down = f"postgresql://postgres@127.0.0.1:{closed_port()}/x"
    no_postgres = with_overrides(_settings(models), postgres={"dsn": down, "connect_timeout": 1})
    for settings, given in ((no_embedder, store), (no_postgres, None)):
        with AriaMem(settings, store=given, index=index) as mem:
            server = _serve(mem)
            try:
                reply = _client(server).chat.completions.create(
                    model="aria-mem", messages=SISTER, user="sam"
                )
            finally:
                server.stop()
        assert reply.choices[0].message.content == "Hello from the fake model. "
    # PostgreSQL down: not even the profile, and no error
    assert _system(_asked(models)) == APP_SYSTEM
    index.close()


def test_a_fact_stated_in_a_conversation_becomes_a_memory_and_the_turns_are_kept(
    memory: AriaMem, endpoint: Server, models: FakeOllama
) -> None:
    used = memory.remember("The user's sister loves pottery.", user="sam").memory
    models.state.structured_reply = json.dumps(
        {
            "facts": [
                {
                    "type": "EpisodicEvent",
                    "text": "The user has a cat named Miso.",
                    "importance": 0.7,
                    "emotional_significance": 0.6,
                    "confidence": 0.9,
                    "reason": "said so",
                    "sensitive": False,
                }
            ]
        }
    )
    conversation: list[ChatCompletionMessageParam] = [
        *SISTER[:3],
        {"role": "user", "content": "Also, I just adopted a cat named Miso!"},
    ]
    _client(endpoint).chat.completions.create(model="aria-mem", messages=conversation, user="sam")
    endpoint.endpoint.wait()
    texts = [m.text for m in memory.list(user="sam")]
    assert "The user has a cat named Miso." in texts
    assert memory.list(user="kim") == []
    assert memory.get(used.id, user="sam").use_count == 1
    (kept,) = memory.conversations.list(user="sam")
    _, turns = memory.conversations.get(str(kept.id), user="sam")
    said = "Also, I just adopted a cat named Miso!"
    assert turns == [("user", said), ("assistant", "Hello from the fake model.")]


def test_lm_studio_behind_the_endpoint(
    models: FakeOllama, store: PostgresStore, tmp_path: Path
) -> None:
    lmstudio.set_sync_api_timeout(5)
    with FakeLMStudio(FakeLMStudioState(chat_reply="Hi from LM Studio")) as lms:
        settings = _settings(
            models, provider="lmstudio", model="qwen2.5-7b-instruct", host=lms.host
        )
        index = EdgeIndex(tmp_path / "index")
        with AriaMem(
            with_overrides(settings, chat={"extract_memories": "off"}), store=store, index=index
        ) as mem:
            mem.remember("The user's sister loves pottery.", user="sam")
            server = _serve(mem)
            try:
                stream = _client(server).chat.completions.create(
                    model="aria-mem", messages=SISTER, stream=True, user="sam"
                )
                pieces = [c.choices[0].delta.content for c in stream if c.choices[0].delta.content]
                listed = [m.id for m in _client(server).models.list()]
            finally:
                server.stop()
        index.close()
    assert pieces == ["Hi ", "from ", "LM ", "Studio"]
    assert listed == ["aria-mem", "aria@qwen2.5-7b-instruct", "qwen2.5-7b-instruct"]
    history = json.dumps(lms.state.predictions[-1]["history"])
    assert "loves pottery" in history and APP_SYSTEM in history


def _post(server: Server, body: object, **headers: str) -> httpx.Response:
    return httpx.post(
        f"{server.url}/chat/completions",
        headers={"Authorization": f"Bearer {server.key}", **headers},
        content=body if isinstance(body, bytes) else json.dumps(body).encode(),
        timeout=20,
    )


def test_bad_requests_get_openai_shaped_4xx_naming_the_problem(
    memory: AriaMem, models: FakeOllama
) -> None:
    server = _serve(memory, Limits(max_body=20_000, max_messages=10, max_message_chars=5000))
    user = {"role": "user", "content": "hi"}
    try:
        for body, status, named in (
            (b"{not json", 400, "not JSON"),
            (b"[" * 19_000, 400, "nests too deep"),
            ({"model": "aria-mem"}, 400, "messages must be"),
            ({"messages": [{"role": "tool", "content": "x"}]}, 400, "'tool'"),
            (
                {"messages": [{"role": "user", "content": [{"type": "image_url"}]}]},
                400,
                "text only",
            ),
            ({"messages": [{"role": "user", "content": "x" * 6000}]}, 400, "5,000"),
            ({"messages": [user] * 11}, 400, "at most 10"),
            ({"messages": [{"role": "user", "content": "x" * 4000}] * 6}, 413, "20,000 bytes"),
            ({"messages": [{"role": "assistant", "content": "hello"}]}, 400, "no user message"),
            ({"messages": [user], "user": "bad\u0000id"}, 400, "user"),
            ({"messages": [user], "tools": [{"type": "function"}]}, 400, "tools"),
            ({"messages": [user], "model": "aria@no-such-model"}, 404, "ollama pull"),
        ):
            answer = _post(server, body)
            assert answer.status_code == status, (body, answer.text)
            error = answer.json()["error"]
            assert named in error["message"] and error["type"], (named, error)
        assert models.state.chat_requests == []
        wrong = httpx.get(
            server.url + "/nothing", headers={"Authorization": f"Bearer {server.key}"}
        )
        assert (
            wrong.status_code == 404 and "/v1/chat/completions" in wrong.json()["error"]["message"]
        )
        rebound = _post(server, {"messages": [user]}, Host="attacker.example")
        assert rebound.status_code == 421 and models.state.chat_requests == []
    finally:
        server.stop()


def test_requests_beyond_the_concurrent_limit_get_429(memory: AriaMem, models: FakeOllama) -> None:
    models.state.chat_reply = "a b c d e f g h"
    models.state.chat_delay = 0.1
    server = _serve(memory, Limits(concurrent=1))
    try:
        first: list[httpx.Response] = []
        slow = threading.Thread(
            target=lambda: first.append(_post(server, {"messages": SISTER, "stream": True}))
        )
        slow.start()
        while not models.state.chat_requests:
            time.sleep(0.01)
        busy = _post(server, {"messages": SISTER})
        slow.join()
        assert busy.status_code == 429 and busy.json()["error"]["type"] == "rate_limit_error"
        assert first[0].status_code == 200 and first[0].text.endswith("[DONE]\n\n")
        assert _post(server, {"messages": SISTER}).status_code == 200  # free again
    finally:
        server.stop()


def test_print_config_gives_the_base_url_and_a_private_key(
    cli: Callable[..., CliResult], isolated_env: Path
) -> None:
    port = closed_port()
    done = cli("serve", "--print-config", "--address", f"127.0.0.1:{port}")
    assert done.code == 0, done.stderr
    entry = json.loads(done.stdout)
    assert entry["base_url"] == f"http://127.0.0.1:{port}/v1"
    assert f"Nothing listens on 127.0.0.1:{port}" in done.stderr  # a free port: said
    named = json.loads(cli("serve", "--print-config", "--address", f"localhost:{port}").stdout)
    assert named["base_url"] == entry["base_url"]  # what it listens on, not ::1 as well
    with bind("127.0.0.1", 0) as held:  # held by this account: nothing to warn of
        ours = held.getsockname()[1]
        quiet = cli("serve", "--print-config", "--address", f"127.0.0.1:{ours}")
    assert quiet.code == 0 and quiet.stderr == "", quiet.stderr
    key_file = isolated_env / "openai-key"
    assert key_file.read_text().strip() == entry["api_key"] and len(entry["api_key"]) >= 32
    assert stat.S_IMODE(os.stat(key_file).st_mode) == 0o600
    assert json.loads(cli("serve", "--print-config").stdout)["api_key"] == entry["api_key"]
    rotated = cli("serve", "--rotate-key", "--print-config")
    assert json.loads(rotated.stdout)["api_key"] != entry["api_key"]
    remote = cli("serve", "--address", "0.0.0.0:9911")
    assert remote.code == 2 and "--allow-remote" in remote.stderr
    assert "OpenAI-compatible" in cli("serve", "--help").stdout


def test_the_command_serves_until_stopped_for_its_user(
    embedded_dsn: str, models: FakeOllama, tmp_path: Path
) -> None:
    """`aria-mem serve` in a child process, as a person starts it: the first request with the
    key is answered with the memories of its --user; SIGTERM stops it cleanly."""
    env = {
        **os.environ,
        "ARIA_MEM_POSTGRES_DSN": embedded_dsn,
        "ARIA_MEM_EMBEDDER_HOST": models.url,
        "ARIA_MEM_CHAT_HOST": models.url,
        "ARIA_MEM_CHAT_EXTRACT_MEMORIES": "off",
        "ARIA_MEM_RETRIEVAL_MIN_SIMILARITY": "0.3",
    }
    ours = with_overrides(load(), embedder={"host": models.url})
    with serving_sam(env, ours, embedded_dsn, tmp_path / "index") as url:
        key = load_key()
        reply = openai.OpenAI(base_url=url, api_key=key, max_retries=0).chat.completions.create(
            model="aria-mem", messages=SISTER
        )
        assert reply.choices[0].message.content == "Hello from the fake model. "
        assert "allergic to peanuts" in _system(_asked(models))


def test_the_apps_conversation_reaches_the_model_as_sent(
    endpoint: Server, models: FakeOllama
) -> None:
    """A developer message is the system one, text parts are joined, a conversation that ends
    with the companion's words (an app continuing a reply) ends so at the model too, and the
    endpoint answers on localhost as on 127.0.0.1."""
    body = {
        "messages": [
            {"role": "developer", "content": "Be brief."},
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "Tell me"},
                    {"type": "text", "text": "a story"},
                ],
            },
            {"role": "assistant", "content": "Once upon"},
        ]
    }
    answer = _post(endpoint, body, Host=f"localhost:{endpoint.port}")
    assert answer.status_code == 200, answer.text
    assert answer.json()["choices"][0]["message"]["content"] == "Hello from the fake model. "
    assert _asked(models)["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Tell me\na story"},
        {"role": "assistant", "content": "Once upon"},
    ]


def test_the_memories_are_fitted_into_the_models_window(
    models: FakeOllama, store: PostgresStore, tmp_path: Path
) -> None:
    """A small window: as in `chat`, the app's oldest turns, then the lowest-ranked memories
    give way; its system message and last message stay."""
    index = EdgeIndex(tmp_path / "index")
    roomy, small = (
        with_overrides(_settings(models), chat={"context_window": w, "reply_reserve": 100})
        for w in (4096, 330)
    )
    counts: list[int] = []
    turns: list[int] = []
    for settings in (roomy, small):
        with AriaMem(settings, store=store, index=index) as mem:
            if not counts:
                for n in range(8):
                    mem.remember(f"The user's sister made pottery bowl number {n}.", merge=False)
            server = _serve(mem)
            try:
                _client(server).chat.completions.create(
                    model="aria-mem", messages=SISTER, user=mem.settings.identity.user
                )
            finally:
                server.stop()
        asked = _asked(models)
        counts.append(_system(asked).count("pottery bowl"))
        assert _system(asked).startswith(APP_SYSTEM) and asked["messages"][-1] == SISTER[-1]
        turns.append(len(asked["messages"]))
    index.close()
    assert counts[0] > counts[1] > 0  # (the roomy one holds the relationship cap)
    assert turns == [len(SISTER), 2]


def test_closing_instructions_after_the_users_message_pass_and_it_is_kept(
    memory: AriaMem, endpoint: Server, models: FakeOllama
) -> None:
    """SillyTavern can end with a system message (post-history instructions): it reaches the
    model last, and the user's message before it is the one kept and searched with."""
    memory.remember("The user's sister loves pottery.", user="sam")
    closing: ChatCompletionMessageParam = {"role": "system", "content": "Stay in character."}
    _client(endpoint).chat.completions.create(
        model="aria-mem", messages=[*SISTER, closing], user="sam"
    )
    asked = _asked(models)
    assert asked["messages"][-1] == closing and asked["messages"][-2] == SISTER[-1]
    assert "loves pottery" in _system(asked)
    endpoint.endpoint.wait()
    (kept,) = memory.conversations.list(user="sam")
    _, turns = memory.conversations.get(str(kept.id), user="sam")
    assert turns[0] == ("user", "I need to find a gift")


_TRY_ENDPOINT = """
    import json, sys, urllib.error, urllib.request
    url = sys.argv[1]
    ask = {"model": "aria-mem", "user": "sam", "stream": True,
           "messages": [{"role": "user", "content": "I need to find a gift for my sister"}]}
    answers = []
    for auth in (None, "Bearer guess", "Bearer " + "A" * 43, "Basic c2FtOnNhbQ=="):
        for path, body in (("/chat/completions", json.dumps(ask).encode()), ("/models", None)):
            headers = {"Content-Type": "application/json"}
            if auth:
                headers["Authorization"] = auth
            request = urllib.request.Request(url + path, body, headers)
            try:
                with urllib.request.urlopen(request, timeout=10) as response:
                    status, text = response.status, response.read()
            except urllib.error.HTTPError as exc:
                status, text = exc.code, exc.read()
            answers.append({"status": status, "body": text.decode(errors="replace")})
    print(json.dumps({"answers": answers}))
"""


def test_a_second_account_gets_nothing_from_the_endpoint(
    intruder: Intruder, memory: AriaMem, endpoint: Server, models: FakeOllama
) -> None:
    """Loopback is every account's: another account's requests, without the key or with a
    guessed one, are 401 and reach neither the memories nor the model."""
    memory.remember("The user's sister loves pottery.", user="sam")
    embedded = len(models.state.embed_calls)
    tried = intruder.run(_TRY_ENDPOINT, endpoint.url)
    answers = tried["answers"]
    assert isinstance(answers, list) and len(answers) == 8
    for answer in answers:
        assert answer["status"] == 401, answer
        assert "pottery" not in answer["body"] and "llama3.2" not in answer["body"]
    assert models.state.chat_requests == []
    assert len(models.state.embed_calls) == embedded
