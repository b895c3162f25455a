"""The time signal end to end: the date a memory's text names is read when it is written and
stored (every store, every way a text is written), and a message that names a date or a
period lifts the memories dated in it, counted from the clock the search is given; explain
and --json show it."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, date, datetime

import pytest

from aria_mem.adapters.embedders.ollama import OllamaEmbedder
from aria_mem.adapters.postgres.store import PostgresStore
from aria_mem.adapters.qdrant_edge import EdgeIndex
from aria_mem.domain.memory_line import memory_from_record, memory_to_record
from aria_mem.domain.models import NewMemory, Stage
from aria_mem.domain.records import MemoryChanges
from aria_mem.ports import Store
from aria_mem.services.retriever import Retriever
from tests.conftest import CliResult
from tests.fakes.ollama_server import FakeOllama
from tests.test_retriever import embedder, index, remember, retriever

__all__ = ["embedder", "index", "retriever"]  # fixtures shared

Cli = Callable[..., CliResult]
OCTOBER = datetime(2023, 10, 2, 12, 0, tzinfo=UTC)


def test_every_store_keeps_the_date_a_text_names(any_store: Store) -> None:
    said = any_store.memories.save(
        NewMemory(user_id="u1", companion_id="aria", text="We ran the marathon on 14 Aug 2023.")
    ).memory
    assert (said.event_from, said.event_until) == (date(2023, 8, 14), date(2023, 8, 14))
    assert any_store.memories.get(said.id).event_from == date(2023, 8, 14)
    plain = any_store.memories.save(
        NewMemory(user_id="u1", companion_id="aria", text="The user loves running.")
    ).memory
    assert (plain.event_from, plain.event_until) == (None, None)
    # An edit reads the new text again; a text that names no date clears it.
    edited = any_store.memories.edit(said.id, MemoryChanges(text="We ran it in July 2023."))
    assert (edited.event_from, edited.event_until) == (date(2023, 7, 1), date(2023, 7, 31))
    assert any_store.memories.get(said.id).event_until == date(2023, 7, 31)
    cleared = any_store.memories.edit(said.id, MemoryChanges(text="We ran it, once."))
    assert any_store.memories.get(said.id).event_from is None and cleared.event_from is None
    # Export leaves the date out; import reads it again, counted from when it was said.
    record = memory_to_record(any_store.memories.get(plain.id))
    assert "event_from" not in record and "event_until" not in record
    record |= {"text": "The user ran a race last Saturday.", "created_at": OCTOBER.isoformat()}
    any_store.memories.import_memories([memory_from_record(record)])
    imported = any_store.memories.get(plain.id)
    assert (imported.event_from, imported.event_until) == (date(2023, 9, 30), date(2023, 9, 30))


def test_a_message_naming_a_period_lifts_the_memories_dated_in_it(
    store: PostgresStore, index: EdgeIndex, embedder: OllamaEmbedder, retriever: Retriever
) -> None:
    store.relationships.set_stage("u1", "aria", Stage.ESTABLISHED)
    august = remember(store, index, embedder, "The user ran a marathon on 14 August 2023.")
    other = remember(store, index, embedder, "The user ran a marathon for charity.")
    result = retriever.retrieve("u1", "aria", "Which marathon did I run in August?", now=OCTOBER)
    assert result.asked is not None and result.asked.span is not None
    assert (result.asked.span.start, result.asked.span.end) == (
        date(2023, 8, 1),
        date(2023, 8, 31),
    )
    scores = {r.memory.id: r.score for r in result.relevant}
    lifted, plain = scores[august], scores[other]
    assert lifted is not None and plain is not None
    assert (lifted.time, plain.time) == (1.0, 0.0)
    assert lifted.contributions["time"] == pytest.approx(retriever._weights.time)
    assert lifted.total == pytest.approx(sum(lifted.contributions.values()))
    assert result.relevant[0].memory.id == august
    # As of a later clock, "August" is another August: nothing is lifted.
    later = datetime(2024, 9, 2, tzinfo=UTC)
    again = retriever.retrieve("u1", "aria", "Which marathon did I run in August?", now=later)
    assert all(r.score is None or r.score.time == 0.0 for r in again.relevant)
    # A message that names no date asks nothing of time.
    plain_result = retriever.retrieve("u1", "aria", "Which marathon did I run?", now=OCTOBER)
    assert plain_result.asked is None


@pytest.fixture
def fake_ollama(concept_ollama: FakeOllama) -> FakeOllama:
    """The searches here need vectors that follow meaning."""
    return concept_ollama


def test_search_json_and_explain_show_the_time_signal(cli: Cli, env: dict[str, str]) -> None:
    two_years_ago = datetime.now(UTC).year - 2
    for text in ("The user ran a marathon two years ago.", "The user loves running."):
        made = cli("remember", text, "--json", env=env)
        assert made.code == 0, made.stderr
    assert cli("stage", "established", env=env).code == 0
    result = cli("search", "Which marathon did I run two years ago?", "--json", env=env)
    assert result.code == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["time"] == {
        "from": f"{two_years_ago}-01-01",
        "until": f"{two_years_ago}-12-31",
        "asks_when": False,
    }
    by_text = {m["text"]: m for m in data["memories"]}
    dated = by_text["The user ran a marathon two years ago."]
    assert dated["time"] == 1.0 and dated["contributions"]["time"] > 0
    assert dated["event"] == {"from": f"{two_years_ago}-01-01", "until": f"{two_years_ago}-12-31"}
    assert dated["score"] == pytest.approx(sum(dated["contributions"].values()))
    undated = by_text["The user loves running."]
    assert undated["time"] == 0.0 and undated["event"] is None
    shown = cli("search", "Which marathon did I run two years ago?", "--explain", env=env)
    assert shown.code == 0, shown.stderr
    assert f"time: the message names {two_years_ago}-01-01 to {two_years_ago}-12-31:" in (
        shown.stdout.replace("\n", " ")
    )
    plain = json.loads(cli("search", "Which marathon did I run?", "--json", env=env).stdout)
    assert plain["time"] is None
