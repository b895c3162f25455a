"""A Qdrant server on this machine is used only when this person's account runs it (or root,
or a system account), or [index] trust_account names the account that does: should the
person's Qdrant stop, another person's program listening on its port would otherwise receive
every memory's vector, ids and owner, and the index's API key. The other person is a real
second account (tests/accounts.py) running a fake server that prints every request it gets."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable

import pytest

from aria_mem import config
from aria_mem.adapters.model_servers import server_address
from aria_mem.adapters.qdrant_server import QdrantServerIndex
from aria_mem.domain.models import IndexPoint, SearchScope
from aria_mem.errors import ConfigError, VectorIndexError
from tests import accounts, test_port_owners
from tests.accounts import Intruder
from tests.conftest import CliResult
from tests.fakes.ollama_server import FakeOllama
from tests.test_port_owners import Served

Cli = Callable[..., CliResult]
ServedBy = Callable[[Intruder | None], Served]

neighbour = accounts.neighbour  # the fixture: another person's account
served_by = test_port_owners.served_by  # the fixture: the recording fake run by an account


@pytest.fixture
def theirs(neighbour: Intruder, served_by: ServedBy) -> Served:
    return served_by(neighbour)


def _refusal(fake: Served, account: Intruder) -> tuple[str, str]:
    return (
        f"{fake.url} is served by account '{account.name}' (uid {account.uid}), not you — "
        "nothing sent (it would receive your memories' vectors and whose they are, and the "
        "index's API key)"
    ), f"set [index] trust_account = '{account.name}' if you trust that account"


def _with_index_at(server: Served, dsn: str, model: FakeOllama) -> dict[str, str]:
    """A command's settings: our PostgreSQL and model server, the index at ``server``."""
    return {
        "ARIA_MEM_POSTGRES_DSN": dsn,
        "ARIA_MEM_EMBEDDER_HOST": model.url,
        "ARIA_MEM_INDEX_URL": server.url,
    }


def _said(text: str) -> str:
    return " ".join(text.split())


def test_every_index_request_to_another_persons_server_is_refused_unsent(
    neighbour: Intruder, theirs: Served
) -> None:
    index = QdrantServerIndex(theirs.url, api_key="the-index-key")
    first, fix = _refusal(theirs, neighbour)
    scope = SearchScope("sam", "aria", "m")
    point = IndexPoint.__new__(IndexPoint)  # never built into a request: refused before
    calls: list[Callable[[], object]] = [
        lambda: index.collection_size("memories"),
        lambda: index.ensure_collection("memories", 3),
        lambda: index.search("memories", [1.0, 0.0, 0.0], scope, 5),
        lambda: index.count("memories"),
        lambda: index.upsert("memories", [point]),
        lambda: index.drop_collection("memories"),
    ]
    for call in calls:
        with pytest.raises(VectorIndexError) as refused:
            call()
        said = str(refused.value)
        assert first in said and fix in said and "\n" not in said
    index.close()
    assert theirs.requests() == []  # not a probe, a vector nor the key


def test_another_persons_server_is_used_when_index_trust_account_names_it(
    neighbour: Intruder, theirs: Served
) -> None:
    index = QdrantServerIndex(theirs.url, trust_account=str(neighbour.uid))
    with pytest.raises(VectorIndexError, match="failed to read collection") as failed:
        index.collection_size("memories")  # it is no Qdrant: its 404 page is not ours to show
    assert "\n" not in str(failed.value)
    index.close()
    assert any("/collections/memories" in r for r in theirs.requests())


def test_trust_in_one_account_is_not_trust_in_another(neighbour: Intruder, theirs: Served) -> None:
    index = QdrantServerIndex(theirs.url, trust_account="someone_else")
    with pytest.raises(VectorIndexError, match="trust_account = 'aria_neighbour'"):
        index.count("memories")
    index.close()
    assert theirs.requests() == []


def test_the_same_server_run_by_this_account_is_asked(served_by: ServedBy) -> None:
    ours = served_by(None)  # root: the tests' own account
    index = QdrantServerIndex(ours.url)
    with contextlib.suppress(Exception):
        index.collection_size("memories")
    index.close()
    assert any("/collections/memories" in r for r in ours.requests())


def test_a_url_without_a_port_is_checked_at_the_port_qdrant_client_uses() -> None:
    """qdrant-client connects to 6333 for a URL that names no port, with a scheme or not;
    the ollama client to the scheme's port. The check must look where the client goes."""
    assert server_address("http://127.0.0.1", 6333, scheme_port=False)[2] == 6333
    assert server_address("https://db.local", 6333, scheme_port=False)[2] == 6333
    assert server_address("127.0.0.1", 6333, scheme_port=False)[2] == 6333
    assert server_address("http://127.0.0.1:7000", 6333, scheme_port=False)[2] == 7000
    assert server_address("http://127.0.0.1", 11434)[2] == 80  # as the ollama client reads it
    index = QdrantServerIndex("http://127.0.0.1")
    assert index._guard is not None and index._guard.url == "http://127.0.0.1:6333"


def test_remember_keeps_the_memory_and_search_answers_when_the_index_server_is_another_persons(
    cli: Cli,
    embedded_dsn: str,
    neighbour: Intruder,
    theirs: Served,
    fake_ollama: FakeOllama,
) -> None:
    env = _with_index_at(theirs, embedded_dsn, fake_ollama)
    first, fix = _refusal(theirs, neighbour)
    written = cli(
        "remember", "The user is allergic to peanuts.", "-t", "ProfileFact", "-i", "0.9", "--json",
        env=env,
    )  # fmt: skip
    assert written.code == 0, written.stderr
    data = json.loads(written.stdout)
    assert data["index_state"] == "pending", data
    assert first in _said(data["problem"]) and fix in _said(data["problem"])
    found = cli("search", "dinner ideas?", "--json", env=env)
    assert found.code == 0, found.stderr
    result = json.loads(found.stdout)
    assert [m["text"] for m in result["memories"]] == ["The user is allergic to peanuts."]
    assert result["degraded"] and first in _said(result["degraded"][0])
    assert theirs.requests() == []


def test_index_trust_account_must_name_one_account(
    isolated_env: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ARIA_MEM_INDEX_TRUST_ACCOUNT", "bob; rm -rf /")
    with pytest.raises(ConfigError, match=r"\[index\] trust_account"):
        config.load()
    monkeypatch.setenv("ARIA_MEM_INDEX_TRUST_ACCOUNT", "bob")
    assert config.load().index.trust_account == "bob"


@pytest.mark.parametrize(
    "url", ["http://127.0.0.1:6333\\@10.0.0.1", "http://me:pw@127.0.0.1:6333", "https://a@b@host"]
)
def test_an_index_url_two_parsers_would_read_apart_is_refused(
    isolated_env: object, monkeypatch: pytest.MonkeyPatch, url: str
) -> None:
    """The port guard (urlsplit) and qdrant-client (urllib3) read a backslash or a user part
    differently: the guard could check one host while the client connects to another. The
    refusal does not repeat the URL, which may hold a password."""
    monkeypatch.setenv("ARIA_MEM_INDEX_URL", url)
    with pytest.raises(ConfigError, match=r"\[index\] url .* no \\ and no user@") as refused:
        config.load()
    assert "pw" not in str(refused.value) and "10.0.0.1" not in str(refused.value)


@pytest.mark.parametrize("url", ["http://127.0.0.1:99999", "http://[::1", "http://:6333"])
def test_an_index_url_without_a_host_and_port_is_refused(
    isolated_env: object, monkeypatch: pytest.MonkeyPatch, url: str
) -> None:
    """Refused when read, not later as a traceback from the check of its port."""
    monkeypatch.setenv("ARIA_MEM_INDEX_URL", url)
    with pytest.raises(ConfigError, match=r"a host and a port from 1 to 65535"):
        config.load()


@pytest.mark.parametrize(
    "url", ["https://x.cloud.qdrant.io:6333", "http://[::1]:6333", "https://db.local/qdrant@v1"]
)
def test_an_index_url_both_read_alike_is_taken(
    isolated_env: object, monkeypatch: pytest.MonkeyPatch, url: str
) -> None:
    monkeypatch.setenv("ARIA_MEM_INDEX_URL", url)
    assert config.load().index.url == url


def test_status_names_the_index_servers_account_and_sends_it_nothing(
    cli: Cli,
    embedded_dsn: str,
    neighbour: Intruder,
    theirs: Served,
    served_by: ServedBy,
    fake_ollama: FakeOllama,
) -> None:
    env = _with_index_at(theirs, embedded_dsn, fake_ollama)
    shown = _said(cli("status", env=env).stdout)
    assert f"warning: index server {theirs.url}: account '{neighbour.name}'" in shown, shown
    assert "nothing is sent to it; set [index] url to a server of your own, or [index] " in shown
    servers = json.loads(cli("status", "--json", env=env).stdout)["model_servers"]
    [index] = [s for s in servers if s["role"] == "index"]
    assert index["another_person"] and not index["trusted"] and index["url"] == theirs.url
    assert theirs.requests() == []  # the status of a server it refuses asks it nothing
    other = served_by(neighbour)
    trusting = {
        **env,
        "ARIA_MEM_INDEX_URL": other.url,
        "ARIA_MEM_INDEX_TRUST_ACCOUNT": neighbour.name,
    }
    servers = json.loads(cli("status", "--json", env=trusting).stdout)["model_servers"]
    assert [s["trusted"] for s in servers if s["role"] == "index"] == [True]
