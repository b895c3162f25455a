"""Everyday use checks who runs the model server (issue 33.2): before each request the
embedding and chat adapters ask which account holds the server's listening socket, and send
nothing to one another person's account holds unless [embedder] / [chat] trust_account names
it. The other person is a real second account (tests/accounts.py) running a fake Ollama that
prints every request it receives."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from aria_mem import config
from aria_mem.adapters.chat.lmstudio import LMStudioChat
from aria_mem.adapters.chat.ollama import OllamaChat
from aria_mem.adapters.embedders.lmstudio import LMStudioEmbedder
from aria_mem.adapters.embedders.ollama import OllamaEmbedder
from aria_mem.adapters.model_servers import ServerGuard
from aria_mem.api.initialise import init_config
from aria_mem.errors import ChatModelError, ConfigError, EmbedderError
from aria_mem.wiring import build_chat_model, build_embedder
from tests import accounts, test_port_owners
from tests.accounts import Intruder
from tests.conftest import ROOT, CliResult
from tests.fakes.ollama_server import FakeOllama
from tests.test_port_owners import FAKE_OLLAMA, Served

Cli = Callable[..., CliResult]
ServedBy = Callable[[Intruder | None], Served]

neighbour = accounts.neighbour  # the fixture: another person's account
served_by = test_port_owners.served_by  # the fixture: the recording fake run by an account


def _refusal(fake: Served, account: Intruder, section: str) -> tuple[str, str]:
    """The refusal's opening words and its fix."""
    return (
        f"{fake.url} is served by account '{account.name}' (uid {account.uid}), not you — "
        f"nothing sent"
    ), f"set [{section}] trust_account = '{account.name}' if you trust that account"


def _said(text: str) -> str:
    return " ".join(text.split())


@pytest.fixture
def theirs(neighbour: Intruder, served_by: ServedBy) -> Served:
    return served_by(neighbour)


# -- the CLI: remember, search -------------------------------------------------------------


def test_remember_keeps_the_memory_pending_and_sends_nothing_to_another_persons_server(
    cli: Cli,
    embedded_dsn: str,
    neighbour: Intruder,
    theirs: Served,
) -> None:
    env = {"ARIA_MEM_POSTGRES_DSN": embedded_dsn, "ARIA_MEM_EMBEDDER_HOST": theirs.url}
    first, fix = _refusal(theirs, neighbour, "embedder")
    done = cli(
        "remember", "The user is allergic to peanuts.", "-t", "ProfileFact", "-i", "0.9", env=env
    )
    assert done.code == 0, done.stderr
    assert "pending" in done.stdout and first in _said(done.stdout), done.stdout
    assert fix in _said(done.stdout) and "Traceback" not in done.stderr
    written = cli("remember", "The user swims on Tuesdays.", "--json", env=env)
    data = json.loads(written.stdout)
    assert data["index_state"] == "pending" and first in data["problem"] and fix in data["problem"]
    found = cli("search", "dinner ideas?", "--json", env=env)
    assert found.code == 0, found.stderr
    result = json.loads(found.stdout)
    assert [m["text"] for m in result["memories"]] == ["The user is allergic to peanuts."]
    assert result["degraded"] and first in result["degraded"][0] and fix in result["degraded"][0]
    assert theirs.requests() == []  # not one memory, query or probe reached it


def test_another_persons_server_is_used_when_trust_account_names_that_account(
    cli: Cli,
    embedded_dsn: str,
    neighbour: Intruder,
    theirs: Served,
) -> None:
    env = {
        "ARIA_MEM_POSTGRES_DSN": embedded_dsn,
        "ARIA_MEM_EMBEDDER_HOST": theirs.url,
        "ARIA_MEM_EMBEDDER_TRUST_ACCOUNT": neighbour.name,
    }
    written = cli("remember", "The user swims on Tuesdays.", "--json", env=env)
    assert json.loads(written.stdout)["index_state"] == "indexed", written.stdout
    assert any('"The user swims on Tuesdays."' in r for r in theirs.requests())


def test_trust_in_one_account_is_not_trust_in_another(
    neighbour: Intruder,
    theirs: Served,
) -> None:
    embedder = OllamaEmbedder("m", host=theirs.url, trust_account="someone_else")
    with pytest.raises(EmbedderError, match="trust_account = 'aria_neighbour'"):
        embedder.embed(["The user swims."])
    by_uid = OllamaEmbedder("m", host=theirs.url, trust_account=str(neighbour.uid))
    assert by_uid.embed(["The user swims."]) == [[1.0, 0.0, 0.0]]
    assert len(theirs.requests()) == 1


def test_the_same_server_run_by_this_account_is_used(
    cli: Cli,
    embedded_dsn: str,
    served_by: ServedBy,
) -> None:
    ours = served_by(None)  # root: the tests' own account
    env = {"ARIA_MEM_POSTGRES_DSN": embedded_dsn, "ARIA_MEM_EMBEDDER_HOST": ours.url}
    written = cli("remember", "The user swims on Tuesdays.", "--json", env=env)
    assert json.loads(written.stdout)["index_state"] == "indexed", written.stdout
    assert any("/api/embed" in r for r in ours.requests())


def test_status_says_nothing_is_sent_and_names_the_trust(
    cli: Cli, embedded_dsn: str, neighbour: Intruder, theirs: Served
) -> None:
    env = {"ARIA_MEM_POSTGRES_DSN": embedded_dsn, "ARIA_MEM_CHAT_HOST": theirs.url}
    shown = _said(cli("status", env=env).stdout)
    assert f"warning: chat server {theirs.url}: account '{neighbour.name}'" in shown, shown
    assert "nothing is sent to it; set [chat] host to a server of your own, or [chat] " in shown
    trusting = {**env, "ARIA_MEM_CHAT_TRUST_ACCOUNT": neighbour.name}
    servers = json.loads(cli("status", "--json", env=trusting).stdout)["model_servers"]
    assert [s["trusted"] for s in servers if s["role"] == "chat"] == [True]
    shown = _said(cli("status", env=trusting).stdout)
    assert (
        f"chat server {theirs.url}: account '{neighbour.name}' (uid {neighbour.uid}), "
        "trusted by [chat] trust_account" in shown
    ), shown
    assert theirs.requests() == []  # status asks the chat server nothing


def test_the_terminal_chat_says_why_and_keeps_the_message(
    embedded_dsn: str, neighbour: Intruder, theirs: Served, fake_ollama: FakeOllama
) -> None:
    env = {
        **os.environ,
        "ARIA_MEM_POSTGRES_DSN": embedded_dsn,
        "ARIA_MEM_EMBEDDER_HOST": fake_ollama.url,  # ours
        "ARIA_MEM_CHAT_HOST": theirs.url,
    }
    done = subprocess.run(
        [sys.executable, "-m", "aria_mem", "chat"],
        cwd=ROOT,
        env=env,
        input="Remember that my sister is called Mia.\n/quit\n",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    first, fix = _refusal(theirs, neighbour, "chat")
    start, _, after = _said(done.stdout).partition("you>")
    assert first in start and fix in start, done.stdout  # said at start ...
    assert "Your message is kept" in after  # ... and the session went on
    assert theirs.requests() == []


# -- the adapters themselves ------------------------------------------------------------------


def test_every_adapter_refuses_another_persons_server_with_its_own_error(
    neighbour: Intruder,
    theirs: Served,
) -> None:
    first, _ = _refusal(theirs, neighbour, "chat")
    address = theirs.url.removeprefix("http://")
    messages = [{"role": "user", "content": "What do you remember about me?"}]
    for chat in (OllamaChat("llama3.2", host=theirs.url), LMStudioChat("q", host=address)):
        for call in (
            lambda c=chat: c.complete(messages),
            lambda c=chat: list(c.stream(messages)),
            lambda c=chat: c.check(),
        ):
            with pytest.raises(ChatModelError) as refused:
                call()
            said = str(refused.value)
            assert first in said
            assert "set [chat] trust_account = 'aria_neighbour'" in said
            assert "\n" not in said
        assert chat.context_length() is None
    for embedder in (OllamaEmbedder("m", host=theirs.url), LMStudioEmbedder("m", host=address)):
        with pytest.raises(EmbedderError, match=r"set \[embedder\] trust_account"):
            embedder.embed_query("my sister")
    assert theirs.requests() == []


def test_the_chat_model_built_from_settings_follows_chat_trust_account(
    isolated_env: Path,
    neighbour: Intruder,
    theirs: Served,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ARIA_MEM_CHAT_HOST", theirs.url)
    monkeypatch.setenv("ARIA_MEM_EMBEDDER_HOST", theirs.url)
    monkeypatch.setenv("ARIA_MEM_EMBEDDER_TRUST_ACCOUNT", neighbour.name)
    settings = config.load()
    assert build_embedder(settings).embed(["The user swims."])  # trusted for embedding
    with pytest.raises(ChatModelError, match=r"set \[chat\] trust_account"):
        build_chat_model(settings).complete([{"role": "user", "content": "hello"}])
    monkeypatch.setenv("ARIA_MEM_CHAT_TRUST_ACCOUNT", neighbour.name)
    trusted = build_chat_model(config.load())
    with contextlib.suppress(ChatModelError, ValueError):  # the fake answers no real chat
        trusted.complete([{"role": "user", "content": "hello"}])
    paths = [r.split()[1] for r in theirs.requests()]
    assert paths[0] == "/api/embed" and len(paths) > 1  # then the trusted chat model's asks
    assert set(paths[1:]) <= {"/api/show", "/api/chat"}, paths


def test_our_own_chat_server_is_used(fake_ollama: FakeOllama) -> None:
    chat = OllamaChat("llama3.2", host=fake_ollama.url)
    assert chat.complete([{"role": "user", "content": "hello"}])


def test_a_server_that_stops_and_is_taken_by_another_person_gets_nothing(
    neighbour: Intruder,
) -> None:
    """The issue's case: the person's Ollama stops, another account takes its port. The
    failed request forgets the cached owner, so the next one looks again."""
    ours = _serve_on(None, 0)
    embedder = OllamaEmbedder("m", host=ours.url, timeout=5)
    assert embedder.embed(["The user swims."]) == [[1.0, 0.0, 0.0]]
    ours.requests()  # stops it
    with pytest.raises(EmbedderError, match="No embedding model answered"):
        embedder.embed(["The user swims."])
    taken = _serve_on(neighbour, ours.port)
    try:
        with pytest.raises(EmbedderError, match="account 'aria_neighbour'"):
            embedder.embed(["The user's sister is called Mia."])
    finally:
        assert taken.requests() == []


def test_addresses_of_other_machines_and_unknown_owners_are_not_refused() -> None:
    from aria_mem.adapters import model_servers

    for host in ("http://192.0.2.7:11434", "http://[2001:db8::1]:11434", "not a host:1"):
        ServerGuard("embedder", host, 11434).check(EmbedderError)
    assert ("192.0.2.7", 11434) in model_servers._cache  # not resolved again for 3 s


def test_trust_account_must_name_one_account(
    isolated_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ARIA_MEM_CHAT_TRUST_ACCOUNT", "bob, eve")
    with pytest.raises(ConfigError, match=r"\[chat\] trust_account \(from \$ARIA_MEM_CHAT_TRUST"):
        config.load()
    monkeypatch.setenv("ARIA_MEM_CHAT_TRUST_ACCOUNT", "bob")
    assert config.load().chat.trust_account == "bob"


# -- init keeps the trust ------------------------------------------------------------------


def test_init_trust_account_is_written_for_the_server_it_chose(
    isolated_env: Path,
    neighbour: Intruder,
    theirs: Served,
) -> None:
    path = isolated_env / "config.toml"
    done = init_config(path, host=theirs.url, trust_account=neighbour.name)
    assert done.trusted == ("embedder",)
    settings = config.load(path)
    assert settings.embedder.trust_account == neighbour.name
    assert settings.chat.trust_account == ""  # the chat model is asked elsewhere
    assert build_embedder(settings).embed(["The user swims."])
    assert sum("/api/embed" in r for r in theirs.requests()) == 2  # init's probe, then ours


def test_init_on_the_command_line_says_what_it_trusts(
    cli: Cli, embedded_dsn: str, neighbour: Intruder, theirs: Served
) -> None:
    done = cli(
        "init",
        "--host",
        theirs.url,
        "--trust-account",
        neighbour.name,
        env={"ARIA_MEM_POSTGRES_DSN": embedded_dsn},
    )
    assert done.code == 0, done.stderr
    said = _said(done.stdout)
    assert f"[embedder] trust_account = '{neighbour.name}': that account's server may be" in said
    assert "Embedding model ollama/mxbai-embed-large answers" in said  # the kept trust is used
    assert sum("/api/embed" in r for r in theirs.requests()) >= 2  # init's probe, then status


def test_init_trusts_the_chat_model_too_when_it_is_asked_at_the_same_server(
    isolated_env: Path,
    neighbour: Intruder,
    theirs: Served,
) -> None:
    path = isolated_env / "config.toml"
    config.save_keys(path, {"chat": {"host": theirs.url}})
    done = init_config(path, host=theirs.url, trust_account=neighbour.name)
    assert done.trusted == ("embedder", "chat")
    text = path.read_text()
    assert text.count(f'trust_account = "{neighbour.name}"') == 2, text


def test_init_keeps_no_trust_it_did_not_use(isolated_env: Path, served_by: ServedBy) -> None:
    ours = served_by(None)
    path = isolated_env / "config.toml"
    done = init_config(path, host=ours.url, trust_account="aria_neighbour")
    assert done.trusted == () and "trust_account" not in path.read_text()


# -- helpers ---------------------------------------------------------------------------------


def _serve_on(account: Intruder | None, port: int) -> Served:
    """The recording fake Ollama of test_port_owners on ``port`` (0: any), run by
    ``account`` (None: this test's own)."""
    code = textwrap.dedent(FAKE_OLLAMA).replace('("127.0.0.1", 0)', f'("127.0.0.1", {port})')
    assert str(port) in code
    as_other: dict[str, object] = (
        {"user": account.uid, "group": account.gid, "extra_groups": [], "cwd": "/"}
        if account is not None
        else {}
    )
    return Served(
        subprocess.Popen(  # type: ignore[call-overload]
            [account.python if account else sys.executable, "-c", code],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env={"PATH": os.environ.get("PATH", ""), "HOME": "/nonexistent"},
            **as_other,
        )
    )


@pytest.fixture(autouse=True)
def _no_cached_owners() -> Iterator[None]:
    """Each test looks its servers' owners up afresh (a port number may come back)."""
    from aria_mem.adapters import model_servers

    model_servers._cache.clear()
    yield
    model_servers._cache.clear()
