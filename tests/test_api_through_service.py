"""A program's ``AriaMem.search`` answered by the aria-mem service (issue 38): when the service
holds the embedded index, the whole search runs there in one request (the index search and
the look-up in the process that holds the index) and the result comes back whole, equal to the
in-process one; where no service can answer it (adapters of one's own, an index server,
PostgreSQL's own ``PG*`` variables, a service that answers no whole operations) it runs
in-process; a service that dies mid-search is replaced and the search still answers."""

from __future__ import annotations

import io
import json
import logging
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from aria_mem import config
from aria_mem.adapters.postgres.store import PostgresStore
from aria_mem.adapters.service.client import ServiceClient
from aria_mem.adapters.service.folder import LOCK_NAME, lock_held, log_path_for
from aria_mem.adapters.service.protocol import MAX_MESSAGE_BYTES, reply_bytes
from aria_mem.api import AriaMem, remote
from aria_mem.api.wire import result_from_wire, result_wire
from aria_mem.domain.fusion import Evidence
from aria_mem.domain.retrieval import SearchResult, Timings
from aria_mem.errors import ConfigError, VectorIndexError
from tests.conftest import ROOT
from tests.fakes.ollama_server import FakeOllama, FakeOllamaState
from tests.test_service_operations import HELD, QUESTION, Gate

NOW = datetime(2026, 12, 5, 12, 0, tzinfo=UTC)
RETRIEVER = "aria_mem.services.retriever"
"""The retriever's logger: its line for each search is logged by the process that ran it."""


@pytest.fixture
def gate() -> Gate:
    return Gate()


@pytest.fixture
def model(gate: Gate) -> Iterator[FakeOllama]:
    with FakeOllama(FakeOllamaState(dim=16, embed=gate.embed)) as server:
        yield server
        gate.released.set()


@pytest.fixture
def mem(embedded_dsn: str, model: FakeOllama) -> Iterator[AriaMem]:
    """A program's ``AriaMem`` on the embedded index, its settings given in code (the service
    has no config file to read them from), with two memories."""
    with AriaMem.open(
        None,
        postgres={"dsn": embedded_dsn},
        embedder={"host": model.url},
        retrieval={"timeout": 60.0},  # a busy machine: never a degraded search
    ) as opened:
        for text in ("The user's sister loves pottery.", "The user has a dog called Biscuit."):
            opened.remember(text)
        yield opened


def _service_pid(home: Path) -> int:
    return int((home / "data" / "index" / LOCK_NAME).read_text())


def _without_timings(result: SearchResult) -> SearchResult:
    return replace(result, timings=Timings())


def _retrieval_lines(home: Path) -> int:
    log = log_path_for(home / "data" / "index")
    text = log.read_text() if log.exists() else ""
    return sum(f"{RETRIEVER}: retrieval user=" in line for line in text.splitlines())


def test_search_is_answered_by_the_service_with_the_in_process_result(
    mem: AriaMem,
    embedded_dsn: str,
    isolated_env: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger=RETRIEVER)
    before = _retrieval_lines(isolated_env)
    served = mem.search(QUESTION, now=NOW)
    assert _retrieval_lines(isolated_env) == before + 1  # the service ran the trip
    assert not [r for r in caplog.records if r.name == RETRIEVER]  # this process did not
    assert isinstance(served, SearchResult) and not served.degraded
    assert "sister loves pottery" in served.prompt
    timings = dict(served.timings.items())
    assert {"profile", "embed", "search", "validate", "rank", "total"} <= set(timings)

    store = PostgresStore(embedded_dsn)
    try:
        with AriaMem(mem.settings, store=store) as alone:  # adapters of its own: in-process
            here = alone.search(QUESTION, now=NOW)
    finally:
        store.close()
    assert [r for r in caplog.records if r.name == RETRIEVER]
    assert _without_timings(served) == _without_timings(here)  # every field, every type
    assert served.evidence == here.evidence
    top = served.chosen[0].memory.id
    assert mem.why(served, top).outcome == mem.why(here, top).outcome


def test_each_user_and_companion_is_scoped_as_in_process(mem: AriaMem) -> None:
    other = mem.search(QUESTION, user="someone-else", now=NOW)
    assert other.user_id == "someone-else" and not other.chosen
    own = mem.search(QUESTION, now=NOW)
    assert own.user_id == mem.settings.identity.user and own.chosen


def test_with_postgresql_s_own_variables_the_search_runs_in_process(
    mem: AriaMem,
    isolated_env: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger=RETRIEVER)
    monkeypatch.setenv("PGAPPNAME", "elsewhere")  # read by libpq, harmless here
    before = _retrieval_lines(isolated_env)
    with pytest.raises(remote.NotServed, match="PGAPPNAME"):
        remote.check_served(mem.settings)
    result = mem.search(QUESTION, now=NOW)
    assert "sister loves pottery" in result.prompt
    assert [r for r in caplog.records if r.name == RETRIEVER]
    assert _retrieval_lines(isolated_env) == before


@pytest.fixture
def on_index_server(embedded_dsn: str, model: FakeOllama) -> Iterator[AriaMem]:
    """A program's ``AriaMem`` on an index of its own (no service holds it), with one memory."""
    with AriaMem.open(
        None,
        postgres={"dsn": embedded_dsn},
        embedder={"host": model.url},
        index={"url": ":memory:"},
    ) as mem:
        mem.remember("The user's sister loves pottery.")
        yield mem


def test_with_an_index_server_the_search_runs_in_process_and_starts_no_service(
    on_index_server: AriaMem, isolated_env: Path
) -> None:
    result = on_index_server.search(QUESTION, now=NOW)
    assert "sister loves pottery" in result.prompt
    assert not lock_held(isolated_env / "data" / "index")


def test_a_search_that_runs_in_process_never_makes_the_service_s_folder(
    on_index_server: AriaMem, isolated_env: Path
) -> None:
    """A program on an index server needs no service: a home another account could write
    (where the service's private folder is refused) costs its search nothing."""
    isolated_env.mkdir(parents=True, exist_ok=True)
    isolated_env.chmod(0o777)
    try:
        result = on_index_server.search(QUESTION, now=NOW)
    finally:
        isolated_env.chmod(0o700)
    assert "sister loves pottery" in result.prompt
    assert not (isolated_env / "data" / "index").exists()


def test_a_service_that_answers_no_whole_operations_is_used_for_the_index_only(
    embedded_dsn: str, model: FakeOllama, isolated_env: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A service of the index alone (another aria-mem's, or one run without the operations):
    the search runs here, through it for the index."""
    root = isolated_env / "data" / "index"
    root.mkdir(parents=True, mode=0o700)
    service = subprocess.Popen(
        [sys.executable, "-m", "aria_mem.adapters.service.server", str(root)],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while not (root / "index.sock").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        caplog.set_level(logging.INFO, logger=RETRIEVER)
        with AriaMem.open(
            None, postgres={"dsn": embedded_dsn}, embedder={"host": model.url}
        ) as mem:
            mem.remember("The user's sister loves pottery.")
            result = mem.search(QUESTION, now=NOW)
        assert "sister loves pottery" in result.prompt
        assert [r for r in caplog.records if r.name == RETRIEVER]  # run here
        assert _service_pid(isolated_env) == service.pid  # and that service held the index
    finally:
        service.send_signal(signal.SIGTERM)
        service.wait(60)


def test_a_service_that_dies_mid_search_is_replaced_and_the_search_answers(
    mem: AriaMem, gate: Gate, isolated_env: Path
) -> None:
    mem.search(QUESTION, now=NOW)  # the service runs and answers
    first = _service_pid(isolated_env)
    answered: list[SearchResult] = []
    search = threading.Thread(target=lambda: answered.append(mem.search(f"{QUESTION} {HELD}")))
    search.start()
    try:
        assert gate.entered.wait(60), "the search never reached the model"
        os.kill(first, signal.SIGKILL)
        search.join(120)
    finally:
        gate.released.set()
        search.join(60)
    assert answered, "the search raised or never answered"
    assert "sister loves pottery" in answered[0].prompt and not answered[0].degraded
    assert _service_pid(isolated_env) != first  # a new service answered it
    again = mem.search(QUESTION, now=NOW)
    assert "sister loves pottery" in again.prompt


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """Every request of a program's search sent to the service, as it was sent."""
    requests: list[dict[str, Any]] = []
    call = ServiceClient.call

    def spy(self: ServiceClient, request: dict[str, Any], **kwargs: Any) -> Any:
        if request.get("name") == remote.RETRIEVE:
            requests.append(request)
        return call(self, request, **kwargs)

    monkeypatch.setattr(ServiceClient, "call", spy)
    return requests


def test_the_settings_cross_once_then_by_their_digest(
    mem: AriaMem, sent: list[dict[str, Any]], isolated_env: Path
) -> None:
    before = _retrieval_lines(isolated_env)
    results = [mem.search(QUESTION, now=NOW) for _ in range(3)]
    assert all("sister loves pottery" in r.prompt for r in results)
    assert _retrieval_lines(isolated_env) == before + 3  # each run by the service, once
    assert len({r["settings_digest"] for r in sent}) == 1
    whole = [r for r in sent if "settings" in r]
    assert len(whole) == 1 and whole[0]["settings"] == remote.settings_wire(mem.settings)
    assert "settings" not in sent[-1] and "settings" not in sent[-2]


def test_a_program_with_other_settings_is_searched_with_its_own(
    mem: AriaMem,
    embedded_dsn: str,
    model: FakeOllama,
    sent: list[dict[str, Any]],
    isolated_env: Path,
) -> None:
    """The service keeps what it read by digest: settings changed in code are another digest,
    read whole, and each program's search runs with its own."""
    before = _retrieval_lines(isolated_env)
    ours = mem.search(QUESTION, now=NOW)
    with AriaMem.open(
        None,
        postgres={"dsn": embedded_dsn},
        embedder={"host": model.url},
        retrieval={"timeout": 60.0},
        ranking={"importance": 0.3},
    ) as other:
        theirs = other.search(QUESTION, now=NOW)
    again = mem.search(QUESTION, now=NOW)
    assert _retrieval_lines(isolated_env) == before + 3  # all three run by the service
    assert theirs.chosen[0].score is not None and ours.chosen[0].score is not None
    assert theirs.chosen[0].score.weights.importance == 0.3
    assert ours.chosen[0].score.weights.importance == mem.settings.ranking.importance != 0.3
    assert _without_timings(again) == _without_timings(ours)
    assert len({r["settings_digest"] for r in sent}) == 2
    assert [r["settings"]["ranking"]["importance"] for r in sent if "settings" in r] == [
        mem.settings.ranking.importance,
        0.3,
    ]


def test_the_service_reads_settings_named_by_a_digest_only_once_it_has_them_whole(
    isolated_env: Path,
) -> None:
    settings = config.load(None)
    root = settings.index_dir
    root.mkdir(parents=True, mode=0o700)
    digest, whole = remote.program_settings(settings)
    named = {"op": "operation", "name": remote.RETRIEVE, "settings_digest": digest}
    with pytest.raises(remote.SettingsUnknown):
        remote.settings_of(root, named)
    read = remote.settings_of(root, {**named, **whole})
    assert read == settings and remote.settings_of(root, named) is read
    elsewhere = isolated_env / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    with pytest.raises(remote.SettingsUnknown):  # what one folder's service read, not another's
        remote.settings_of(elsewhere, named)
    with pytest.raises(ConfigError, match="its own folder only"):
        remote.settings_of(elsewhere, {**named, **whole})


def test_a_frame_is_read_whole_and_a_bad_one_is_refused() -> None:
    result = SearchResult("u", "c", "a question", "model")
    line = reply_bytes({"ok": result_wire(result)})
    read = ServiceClient._read_reply(io.BytesIO(line))
    assert read == {"ok": result_wire(result)} and result_from_wire(read["ok"]) == result
    assert ServiceClient._read_reply(io.BytesIO(reply_bytes({"ok": [1]}))) == {"ok": [1]}
    assert ServiceClient._read_reply(io.BytesIO(line[:-1])) is None  # cut short: sent again
    for size in (-1, "3", 3.0, MAX_MESSAGE_BYTES + 1):
        with pytest.raises(ValueError, match="a frame of"):
            ServiceClient._read_reply(io.BytesIO(json.dumps({"frame": size}).encode() + b"\n"))
    with pytest.raises(VectorIndexError, match="not bytes"):  # protocol 5's base64 text
        result_from_wire(line.decode("latin-1"))


def test_the_result_s_reader_builds_nothing_but_aria_mem_s_domain_and_value_types() -> None:
    """The socket's other end is this account's service; even so, a pickle that names any
    other class or function is refused, not run (also once the names a result holds were
    read: what was allowed is remembered, nothing else)."""
    import pickle

    result = SearchResult("u", "c", "a question", "model")
    assert result_from_wire(result_wire(result)) == result

    for foreign in (os.system, subprocess.Popen):
        with pytest.raises(VectorIndexError, match=f"no {foreign.__module__}"):
            result_from_wire(pickle.dumps(foreign))

    # A dotted name walks attributes, through a domain module's own imports too.
    module, name = b"aria_mem.domain.extraction", b"json.codecs.builtins.type"
    dotted = b"\x80\x04\x8c" + bytes([len(module)]) + module
    dotted += b"\x8c" + bytes([len(name)]) + name + b"\x93."
    with pytest.raises(VectorIndexError, match="no aria_mem.domain.extraction.json"):
        result_from_wire(dotted)

    class Reaching:  # what a pickle says to reach further through an allowed type
        def __reduce__(self) -> tuple[object, tuple[object, ...]]:
            return getattr, (uuid.UUID, "__subclasses__")

    with pytest.raises(VectorIndexError, match="no member '__subclasses__'"):
        result_from_wire(pickle.dumps(Reaching()))

    class OutOfRange:  # a UUID's number past 128 bits, as only a forged pickle says
        def __reduce__(self) -> tuple[object, tuple[object, ...]]:
            from aria_mem.api import wire

            return wire._uuid_of, (1 << 128,)

    with pytest.raises(VectorIndexError, match="is no UUID's number"):
        result_from_wire(pickle.dumps(OutOfRange()))

    evidence = Evidence(0.5, 1, None, None, 0.5, 1)
    ids = {uuid.uuid4(): evidence, uuid.UUID(int=0): evidence}  # what a result is keyed by
    read = result_from_wire(result_wire(SearchResult("u", "c", "q", "m", fused=ids)))
    assert read.fused == ids and [str(k) for k in read.fused] == [str(k) for k in ids]
    assert all(type(k) is uuid.UUID and k.is_safe is uuid.SafeUUID.unknown for k in read.fused)
