"""The public API, as a program uses it: one object, typed results, errors from
aria_mem.errors, scoped to one user and companion, safe to share between threads. Here on the
in-memory store (no database) with a real Edge index and the ollama client against the fake
server; the CLI tests cover the same object on PostgreSQL."""

from __future__ import annotations

import io
import json
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

import aria_mem
from aria_mem import AriaMem, Turn
from aria_mem.adapters.in_memory.store import InMemoryStore
from aria_mem.adapters.qdrant_edge import EdgeIndex
from aria_mem.api import ReindexPlan
from aria_mem.config import Settings, load, with_overrides
from aria_mem.domain.models import DropReason, MemoryType, Stage
from aria_mem.errors import NotFoundError, UsageError, ValidationError
from tests.conftest import at_once
from tests.fakes.concepts import concept_embed
from tests.fakes.ollama_server import FakeOllama, FakeOllamaState


class Pages:
    """A DocumentReader with one page, so `learn` needs no network."""

    def read(self, location: str, *, public_only: bool = False) -> tuple[str, str, str]:
        if location != "https://example.org/pottery":
            raise UsageError(f"No page at {location}")
        return location, "Pottery", "A potter loves a good set of trimming tools."


@pytest.fixture
def server() -> Iterator[FakeOllama]:
    with FakeOllama(FakeOllamaState(dim=16, embed=concept_embed)) as fake:
        yield fake


@pytest.fixture
def settings(server: FakeOllama) -> Settings:
    return with_overrides(
        load(),
        embedder={"host": server.url},
        chat={"host": server.url},
        retrieval={"min_similarity": 0.3},
    )


@pytest.fixture
def memory(settings: Settings, tmp_path: Path) -> Iterator[AriaMem]:
    index = EdgeIndex(tmp_path / "index")
    with AriaMem(settings, store=InMemoryStore(), index=index, reader=Pages()) as mem:
        yield mem
    index.close()


@pytest.mark.parametrize("repeats", ["on", "off"])
def test_near_repeats_are_ranked_lower_unless_the_setting_says_off(
    settings: Settings, tmp_path: Path, repeats: str
) -> None:
    index = EdgeIndex(tmp_path / "index")
    ruled = with_overrides(settings, retrieval={"repeats": repeats})
    with AriaMem(ruled, store=InMemoryStore(), index=index) as mem:
        for day in ("Monday", "Tuesday"):
            mem.remember(f"The user's sister phoned on {day} to moan about work.", merge=False)
        answer = mem.remember(
            "The user's sister got a new job as a violin teacher.", merge=False
        ).memory  # its fake vector is 0.91 from the calls': past this model's merge bar
        result = mem.search("What does my sister do for work?")
    index.close()
    order = [r.memory.id for r in result.chosen]
    found = [e.repeat for e in result.evidence.values() if e.repeat is not None]
    if repeats == "on":
        assert order.index(answer.id) == 1 and len(found) == 1
    else:
        assert order.index(answer.id) == 2 and found == []


def test_the_package_exports_the_api_and_its_errors() -> None:
    assert aria_mem.AriaMem is AriaMem
    assert {"AriaMem", "SearchResult", "WriteResult", "AriaMemError", "Turn"} <= set(
        aria_mem.__all__
    )
    with pytest.raises(AttributeError):
        aria_mem.NoSuchThing  # noqa: B018


def test_remember_search_and_record_use(memory: AriaMem) -> None:
    sister = memory.remember("The user's sister loves pottery.", memory_type="RelationshipFact")
    assert sister.created and sister.indexed and sister.memory.type is MemoryType.RELATIONSHIP_FACT
    allergy = memory.remember(
        "The user is allergic to peanuts.", memory_type=MemoryType.PROFILE_FACT, importance=0.95
    )
    again = memory.remember("the user is allergic to peanuts")
    assert not again.created and again.memory.id == allergy.memory.id

    result = memory.search("I need to find a gift", previous="My sister's getting married")
    assert [r.memory.text for r in result.relevant] == ["The user's sister loves pottery."]
    assert [r.memory.text for r in result.profile] == ["The user is allergic to peanuts."]
    assert result.prompt.startswith("USER PROFILE DATA")
    assert result.timings.total is not None and not result.degraded
    assert memory.get(sister.memory.id).use_count == 0  # a search counts no use
    memory.record_use([r.memory.id for r in result.chosen])
    assert memory.get(sister.memory.id).use_count == 1

    why = memory.why(result, str(sister.memory.id)[:8])
    assert why.outcome == "selected #2 (relevant)"
    gone = memory.why(result, uuid.uuid4())
    assert gone.outcome == "dropped: does not exist"


def test_management_calls_by_id_or_prefix(memory: AriaMem) -> None:
    made = memory.remember("The user plays violin.").memory
    prefix = str(made.id)[:8]
    changed = memory.update(prefix, text="The user plays cello.")
    assert changed.memory.text == "The user plays cello."
    assert memory.update(prefix, pinned=True).memory.pinned
    assert not memory.update(made.id, pinned=False).memory.pinned
    assert memory.update(prefix, archived=True).memory.status.value == "archived"
    assert memory.list(status=aria_mem.MemoryStatus.ACTIVE) == []
    assert memory.update(prefix, archived=False).memory.status.value == "active"
    assert memory.confirm(prefix).memory.last_confirmed_at is not None
    assert memory.forget(prefix).memory.id == made.id
    with pytest.raises(NotFoundError):
        memory.get(made.id)


def test_every_call_is_scoped_to_one_user_and_companion(memory: AriaMem) -> None:
    memory.remember("The user's sister loves pottery.", user="sam")
    memory.remember("The user's sister loves pottery.", user="kim", companion="nova")
    assert [m.user_id for m in memory.list(user="sam")] == ["sam"]
    assert memory.list() == []  # the config's identity: me / aria
    assert len(memory.list(everyone=True)) == 2
    found = memory.search("my sister wants a gift", user="sam")
    assert {r.memory.user_id for r in found.chosen} == {"sam"}
    with pytest.raises(ValidationError, match="user must be a non-empty string"):
        memory.list(user="")


def test_bad_input_is_an_aria_mem_error_and_stores_nothing(memory: AriaMem) -> None:
    for call in (
        lambda: memory.remember(""),
        lambda: memory.remember("fact", importance=2.0),
        lambda: memory.remember("fact", memory_type="Gossip"),
        lambda: memory.remember("fact", hold_until="married"),
        lambda: memory.search("   "),
    ):
        with pytest.raises(aria_mem.UsageError):
            call()
    assert memory.list(everyone=True) == []


def test_stage_extract_learn_and_knowledge(memory: AriaMem, server: FakeOllama) -> None:
    held = memory.remember(
        "The user's father died last spring.", hold_until="established", importance=0.9
    )
    assert memory.relationship.stage() is Stage.EARLY
    dropped = memory.search("my dad died").dropped
    assert {d.reason for d in dropped if d.memory_id == held.memory.id} <= {DropReason.HELD}
    memory.relationship.set_stage("established")
    assert memory.relationship.stage() is Stage.ESTABLISHED
    assert [r.memory.id for r in memory.search("my dad died").chosen] == [held.memory.id]

    server.state.structured_reply = json.dumps(
        {
            "facts": [
                {
                    "type": "Goal",
                    "text": "The user wants to run a marathon.",
                    "importance": 0.6,
                    "emotional_significance": 0.2,
                    "confidence": 0.8,
                    "reason": "said so",
                    "sensitive": False,
                }
            ]
        }
    )
    conversation = [Turn("assistant", "What are you training for?"), Turn("user", "A marathon!")]
    only_facts = memory.extract(conversation, remember=False)
    assert [f.fact.text for f in only_facts] == ["The user wants to run a marathon."]
    assert only_facts[0].saved is None and len(memory.list()) == 1
    kept = memory.extract(conversation)
    assert kept[0].saved is not None and kept[0].saved.created and len(memory.list()) == 2

    learned = memory.knowledge.learn("https://example.org/pottery")
    assert learned.passages == 1 and learned.index.indexed == 1
    assert [s.title for s in memory.knowledge.list()] == ["Pottery"]
    assert memory.knowledge.forget(learned.source_id[:8]).source.passages == 1
    assert memory.knowledge.list() == []


def test_export_and_import_round_trip(memory: AriaMem, settings: Settings, tmp_path: Path) -> None:
    memory.remember("The user keeps bees.", reason="said at dinner")
    memory.remember("The user is allergic to peanuts.", memory_type="ProfileFact", importance=0.9)
    buffer = io.StringIO()
    assert memory.transfer.export(buffer).memories == 2
    path = tmp_path / "memories.jsonl"
    assert memory.transfer.export_file(path).memories == 2 and path.read_text() == buffer.getvalue()
    other_index = EdgeIndex(tmp_path / "other-index")
    with AriaMem(settings, store=InMemoryStore(), index=other_index) as other:
        seen: list[int] = []
        report = other.transfer.import_file(path, progress=seen.append)
        assert report.stored.inserted == 2 and report.index is not None
        assert report.index.indexed == 2 and sum(seen) == 2
        again = other.transfer.import_file(path)
        assert again.stored.unchanged == 2 and again.index is not None
        assert again.index.indexed == 0
    other_index.close()


def test_status_sync_and_reindex(memory: AriaMem) -> None:
    memory.remember("The user keeps bees.")
    report = memory.admin.status()
    assert report.ok, [c.error for c in report.checks if not c.ok]
    assert report.counts is not None and report.counts.with_vector == 1
    assert report.embedder.dimension == 16
    assert memory.admin.sync().indexed == 0
    seen: list[int] = []
    plans: list[ReindexPlan] = []
    outcome = memory.admin.reindex(on_start=plans.append, progress=seen.append)
    assert outcome.finished and outcome.done == 1 and sum(seen) == 1
    assert plans and plans[0].total == 1
    with pytest.raises(UsageError, match="give the model too"):
        memory.admin.reindex(provider="ollama")


def test_one_object_serves_many_threads(memory: AriaMem) -> None:
    def work(n: int) -> None:
        for i in range(5):
            memory.remember(f"The user's friend number {n}-{i} plays chess.")
            memory.search("who plays chess?")

    assert at_once(work, 4) == []
    assert len(memory.list()) == 20
    assert memory.admin.status().counts is not None


def test_a_search_with_postgresql_unreachable_is_degraded_not_an_error(
    settings: Settings, tmp_path: Path
) -> None:
    from tests.conftest import closed_port

    down = with_overrides(
        settings,
        postgres={
            "dsn": f"postgresql://postgres@127.0.0.1:{closed_port()}/x",
            "connect_timeout": 1,
        },
    )
    index = EdgeIndex(tmp_path / "index")
    with AriaMem(down, index=index) as mem:
        result = mem.search("Any ideas for dinner tonight?")
    index.close()
    assert result.chosen == [] and result.is_degraded
    assert "connection refused" in result.degraded[0]


def test_every_result_and_error_is_importable_from_aria_mem_alone() -> None:
    import aria_mem
    import aria_mem.api
    from aria_mem import errors

    for name in aria_mem.api.__all__:
        assert getattr(aria_mem, name) is getattr(aria_mem.api, name), name
    for name in dir(errors):
        value = getattr(errors, name)
        if (
            isinstance(value, type)
            and issubclass(value, Exception)
            and value.__module__ == errors.__name__
        ):
            assert name in aria_mem.__all__ and getattr(aria_mem, name) is value, name
    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        aria_mem.Nope  # noqa: B018


@pytest.mark.parametrize("bad", ["\x00", "\ud800"], ids=["nul", "lone-surrogate"])
def test_a_message_postgresql_cannot_hold_is_a_clear_error_in_search_and_relay(
    settings: Settings, dsn: str, tmp_path: Path, bad: str
) -> None:
    """Text PostgreSQL cannot take (a NUL, a lone surrogate from a JSON escape) is refused by
    name, as a memory's text is, not raised from the database driver mid-search."""
    index = EdgeIndex(tmp_path / "index")
    with AriaMem(with_overrides(settings, postgres={"dsn": dsn}), index=index) as mem:
        for message, previous in ((f"my sister {bad}", None), ("my sister", f"hi {bad}")):
            with pytest.raises(ValidationError, match="NUL|lone surrogate"):
                mem.search(message, previous=previous)
        with pytest.raises(ValidationError, match="NUL|lone surrogate"):
            aria_mem.relay(mem, [Turn("user", f"my sister {bad}")])
    index.close()
