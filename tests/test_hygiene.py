"""Memory over months on the real stores (PostgreSQL and the in-memory twin), a real Edge index
and the ollama client against a fake server: repeats merged, opposites kept apart, changed
facts superseded (by hand and by a scripted chat model's judgement), history, restore,
retirement and its undo, the review queue, export and import, and forget taking the history."""

from __future__ import annotations

import io
import json
import re
import threading
import uuid
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from aria_mem.adapters.chat.ollama import OllamaChat
from aria_mem.adapters.embedders.ollama import OllamaEmbedder
from aria_mem.adapters.in_memory.store import InMemoryStore
from aria_mem.adapters.postgres.store import PostgresStore
from aria_mem.adapters.qdrant_edge import EdgeIndex
from aria_mem.domain.archive import event_line
from aria_mem.domain.denial import denial
from aria_mem.domain.hygiene import (
    EventKind,
    HygieneRule,
    MemoryEvent,
    Retire,
    RetirementRule,
    ReviewItem,
    ReviewKind,
    asked_in_order,
    different_content,
    rule_for,
    to_judge,
)
from aria_mem.domain.joining import both_wordings, clash, keeps_both, says_both
from aria_mem.domain.memory_line import memory_from_record, memory_to_record
from aria_mem.domain.models import (
    MEMORIES_COLLECTION,
    DropReason,
    IndexPoint,
    IndexState,
    Memory,
    MemoryStatus,
    MemoryType,
    NewMemory,
    SearchScope,
    Stage,
)
from aria_mem.domain.payload import memory_payload
from aria_mem.domain.records import MemoryChanges
from aria_mem.domain.usability import is_usable
from aria_mem.errors import ValidationError
from aria_mem.ports import Store
from aria_mem.services.consolidator import Consolidator
from aria_mem.services.curator import Curator
from aria_mem.services.indexer import Indexer
from aria_mem.services.pass_undo import undo_action
from aria_mem.services.retriever import Retriever
from aria_mem.services.review import Review, history
from aria_mem.services.transfer import import_memories
from aria_mem.services.upkeep import Upkeep
from aria_mem.services.writer import MemoryWriter
from tests.fakes.ollama_server import FakeOllama, FakeOllamaState

AXES = {
    "tea": 0,
    "coffee": 1,
    "sister": 2,
    "pottery": 3,
    "ceramics": 3,
    "berlin": 4,
    "lisbon": 4,
    "lives": 4,
    "moved": 4,
    "sandwich": 5,
    "violin": 6,
}


def meaning(text: str, dim: int) -> list[float]:
    """Words name axes (synonyms share one); the rest only a faint common axis. Exact, so
    each test knows which memories are near: a model's job, made predictable."""
    vector = [0.0] * dim
    vector[7] = 0.05
    for word in re.findall(r"[a-z]+", text.lower()):
        if word in AXES:
            vector[AXES[word]] += 1.0
    norm = sum(v * v for v in vector) ** 0.5
    return [v / norm for v in vector]


MODEL = "mxbai-embed-large"
SCOPE = SearchScope("u1", "aria", f"ollama/{MODEL}")
RULE = HygieneRule(merge_similarity=0.9, conflict_similarity=0.75)


@pytest.fixture
def server() -> Iterator[FakeOllama]:
    with FakeOllama(FakeOllamaState(dim=16, embed=meaning)) as fake:
        yield fake


@pytest.fixture
def index(tmp_path: Path) -> Iterator[EdgeIndex]:
    built = EdgeIndex(tmp_path / "index")
    yield built
    built.close()


@pytest.fixture
def curator(any_store: Store, index: EdgeIndex, server: FakeOllama) -> Curator:
    embedder = OllamaEmbedder(MODEL, host=server.url, timeout=5)
    return Curator(any_store.memories, any_store.hygiene, index, embedder, RULE)


@pytest.fixture
def writer(
    any_store: Store, index: EdgeIndex, server: FakeOllama, curator: Curator
) -> MemoryWriter:
    embedder = OllamaEmbedder(MODEL, host=server.url, timeout=5)
    store = any_store
    indexer = Indexer(store.queue, index, embedder)
    return MemoryWriter(
        store.memories, store.relationships, indexer, hygiene=store.hygiene, curator=curator
    )


@pytest.fixture
def tidy(any_store: Store, writer: MemoryWriter, curator: Curator) -> Consolidator:
    """A consolidation pass without a chat model: the rule decides."""
    return Consolidator(any_store.memories, any_store.hygiene, curator, writer, None)


def _new(text: str, memory_type: MemoryType = MemoryType.PREFERENCE, **kw: object) -> NewMemory:
    return NewMemory(user_id="u1", companion_id="aria", text=text, type=memory_type, **kw)  # type: ignore[arg-type]


def _active(store: Store) -> list[str]:
    listed = store.memories.list_memories(
        user_id="u1", companion_id="aria", status=MemoryStatus.ACTIVE
    )
    return sorted(m.text for m in listed)


def _in_index(index: EdgeIndex, memory_id: uuid.UUID) -> bool:
    hits = index.search(MEMORIES_COLLECTION, meaning("x", 16), SCOPE, 50, [memory_id])
    return bool(hits)


def test_a_repeat_in_other_words_is_merged_into_the_memory_it_repeats(
    any_store: Store, writer: MemoryWriter
) -> None:
    first = writer.remember(_new("The user's sister loves pottery.", importance=0.4))
    again = writer.remember(
        _new("The user's sister is really into her weekly pottery classes.", importance=0.8)
    )
    assert again.merged and not again.created and again.memory.id == first.memory.id
    assert _active(any_store) == ["The user's sister is really into her weekly pottery classes."]
    kept = any_store.memories.get(first.memory.id)
    assert kept.importance == pytest.approx(0.8) and kept.last_confirmed_at is not None
    events = history(any_store.memories, any_store.hygiene, kept).events
    assert [e.kind for e in events] == [EventKind.MERGED, EventKind.EDITED]
    assert events[1].text == "The user's sister loves pottery."  # the wording before
    assert again.indexed  # the fuller wording was embedded again


def test_opposites_are_never_merged_and_a_likely_conflict_waits_for_review(
    any_store: Store, writer: MemoryWriter, tidy: Consolidator
) -> None:
    likes = writer.remember(_new("The user likes tea."))
    dislikes = writer.remember(_new("The user dislikes tea."))
    assert dislikes.created and not dislikes.merged
    assert tidy.run().queued == 1
    assert _active(any_store) == ["The user dislikes tea.", "The user likes tea."]
    [item] = any_store.hygiene.reviews("u1", "aria")
    assert item.kind is ReviewKind.CONFLICT and item.memory_id == likes.memory.id
    assert item.other_id == dislikes.memory.id and "likes what the other dislikes" in item.reason
    as_given = writer.remember(_new("The user is into ceramics, like the user's sister."))
    merged_off = writer.remember(_new("The user's sister: ceramics."), merge=False)
    assert as_given.created and merged_off.created and not merged_off.merged


def test_a_change_supersedes_by_hand_and_the_history_shows_the_chain(
    any_store: Store, writer: MemoryWriter, index: EdgeIndex
) -> None:
    berlin = writer.remember(_new("The user lives in Berlin.", MemoryType.PROFILE_FACT))
    lisbon = writer.remember(
        _new("The user moved to Lisbon.", MemoryType.PROFILE_FACT), replaces=berlin.memory.id
    )
    assert lisbon.superseded is not None and lisbon.superseded.id == berlin.memory.id
    old = any_store.memories.get(berlin.memory.id)
    assert old.status is MemoryStatus.SUPERSEDED and old.superseded_by == lisbon.memory.id
    assert old.text == "The user lives in Berlin." and not _in_index(index, old.id)
    chain = history(any_store.memories, any_store.hygiene, old)
    assert [m.id for m in chain.chain] == [berlin.memory.id, lisbon.memory.id]
    assert {e.kind for e in chain.events} == {EventKind.SUPERSEDED, EventKind.REPLACES}

    back = writer.restore(old.id, "restored as asked")
    assert back.memory.status is MemoryStatus.ACTIVE and back.memory.superseded_by is None
    assert back.indexed and _in_index(index, old.id)


def test_a_chat_models_judgement_supersedes_what_changed(
    any_store: Store, writer: MemoryWriter, curator: Curator, server: FakeOllama
) -> None:
    berlin = writer.remember(_new("The user lives in Berlin.", MemoryType.PROFILE_FACT))
    server.state.structured_reply = json.dumps(
        {"verdict": "updates", "memory": 1, "confidence": 0.9, "reason": "the user moved"}
    )
    judge = OllamaChat("llama3.2", host=server.url, timeout=5)
    moved = writer.remember(_new("The user moved to Lisbon.", MemoryType.PROFILE_FACT))
    assert moved.created and moved.superseded is None  # judged by a pass, not on the write
    passes = Consolidator(any_store.memories, any_store.hygiene, curator, writer, judge)
    [action] = passes.run().actions
    assert action.other_id == berlin.memory.id and action.memory_id == moved.memory.id
    assert "judged updates (0.90): the user moved" in action.reason
    asked = server.state.chat_requests[-1]["messages"][-1]["content"]
    assert "The user moved to Lisbon." in asked and "The user lives in Berlin." in asked
    assert _active(any_store) == ["The user moved to Lisbon."]

    server.state.structured_reply = "not json"  # a malformed answer: nothing changes
    kept = writer.remember(_new("The user lives in Porto now.", MemoryType.PROFILE_FACT))
    assert passes.run().unsure == 1
    assert any_store.memories.get(kept.memory.id).status is MemoryStatus.ACTIVE


def test_without_a_judgement_nothing_is_superseded_silently(
    any_store: Store, writer: MemoryWriter, tidy: Consolidator
) -> None:
    writer.remember(_new("The user lives in Berlin.", MemoryType.PROFILE_FACT))
    moved = writer.remember(_new("The user moved to Lisbon.", MemoryType.PROFILE_FACT))
    assert moved.superseded is None and tidy.run().queued == 1
    assert len(_active(any_store)) == 2
    [item] = any_store.hygiene.reviews("u1", "aria")
    assert "different people or places" in item.reason


def test_review_accept_supersedes_and_reject_keeps_both(
    any_store: Store, writer: MemoryWriter, tidy: Consolidator
) -> None:
    berlin = writer.remember(_new("The user lives in Berlin.", MemoryType.PROFILE_FACT))
    lisbon = writer.remember(_new("The user moved to Lisbon.", MemoryType.PROFILE_FACT))
    tidy.run()
    review = Review(any_store.memories, any_store.hygiene, writer)
    [item] = any_store.hygiene.reviews("u1", "aria")
    review.accept(item)
    assert any_store.memories.get(berlin.memory.id).superseded_by == lisbon.memory.id
    assert any_store.hygiene.reviews(None, None) == []

    writer.remember(_new("The user likes tea."))
    writer.remember(_new("The user dislikes tea."))
    tidy.run()
    [item] = any_store.hygiene.reviews("u1", "aria")
    assert not review.reject(item).accepted
    assert "The user likes tea." in _active(any_store) and "The user dislikes tea." in _active(
        any_store
    )
    assert any_store.hygiene.reviews("u1", "aria") == []


def test_a_question_follows_its_memory_when_that_one_is_merged_away(
    any_store: Store, writer: MemoryWriter, tidy: Consolidator
) -> None:
    """A review item never waits on a memory that is no longer active: merged into another,
    the question is asked about that one (the older first, so accepting a change lets the
    newer win); merged into the item's other memory, the question is answered and goes."""
    berlin = writer.remember(_new("The user lives in Berlin.", MemoryType.PROFILE_FACT)).memory
    lisbon = writer.remember(_new("The user moved to Lisbon.", MemoryType.PROFILE_FACT)).memory
    tidy.run()
    [asked] = any_store.hygiene.reviews("u1", "aria")
    assert (asked.memory_id, asked.other_id) == (berlin.id, lisbon.id)
    fuller = writer.remember(_new("The user lives in Berlin, in Kreuzberg.")).memory
    any_store.hygiene.fold(berlin.id, fuller.id, "the fuller wording says all it does")
    [moved] = any_store.hygiene.reviews("u1", "aria")
    assert (moved.id, moved.kind) == (asked.id, asked.kind)
    assert (moved.memory_id, moved.other_id) == (lisbon.id, fuller.id)
    assert (
        moved.reason
        == f"asked first about a memory since merged into {str(fuller.id)[:8]}: "
        + (
            "a change?"
            if moved.kind is ReviewKind.CONFLICT
            else "the same fact, or a change of it?"
        )
    )
    assert {m.id for m in any_store.hygiene.review_memories([moved.id], "u1", "aria")} == {
        lisbon.id,
        fuller.id,
    }
    any_store.hygiene.supersede(lisbon.id, fuller.id, "moved back")
    assert any_store.hygiene.reviews("u1", "aria") == []  # the two are one now: nothing to ask


def test_a_question_is_queued_about_its_memories_as_they_stand_when_it_is_queued(
    any_store: Store, writer: MemoryWriter
) -> None:
    """A pass thinks of a question, and before it is queued a person merges one of its
    memories away, replaces, retires or forgets one: the question is asked about the memory
    that now stands for the one merged or replaced, and not at all about one retired or
    forgotten, or a pair that is now one memory. It stayed on the memory no longer active."""
    berlin = writer.remember(_new("The user lives in Berlin.", MemoryType.PROFILE_FACT)).memory
    fuller = writer.remember(_new("The user lives in Berlin, in Kreuzberg.")).memory
    lisbon = writer.remember(_new("The user moved to Lisbon.", MemoryType.PROFILE_FACT)).memory
    any_store.hygiene.fold(berlin.id, fuller.id, "the fuller wording says all it does")

    def asked(kind: ReviewKind, first: Memory, second: Memory) -> bool:
        item = ReviewItem(
            uuid.uuid4(), "u1", "aria", kind, first.id, second.id, "Berlin?", first.created_at
        )
        return any_store.hygiene.propose(item)

    assert asked(ReviewKind.CONFLICT, berlin, lisbon)
    [moved] = any_store.hygiene.reviews("u1", "aria")
    assert moved.kind is ReviewKind.CONFLICT
    # Lisbon was said last: Berlin, older than Kreuzberg, confirmed nothing by its merge
    assert (moved.memory_id, moved.other_id) == (fuller.id, lisbon.id)
    assert (
        moved.reason
        == f"asked first about a memory since merged into {str(fuller.id)[:8]}: a change?"
    )
    assert not asked(ReviewKind.MERGE, berlin, fuller)  # the two are one now

    porto = writer.remember(_new("The user moved to Porto.", MemoryType.PROFILE_FACT)).memory
    again = writer.remember(_new("The user lives in Berlin, in Kreuzberg.")).memory  # said again
    assert again.id == fuller.id and again.last_confirmed_at is not None
    assert asked(ReviewKind.CONFLICT, berlin, porto)
    restated = next(
        r for r in any_store.hygiene.reviews("u1", "aria") if porto.id in (r.memory_id, r.other_id)
    )
    assert (restated.memory_id, restated.other_id) == (porto.id, fuller.id)  # said last now

    tea = writer.remember(_new("The user likes tea.")).memory
    matcha = writer.remember(_new("The user drinks matcha now.")).memory
    coffee = writer.remember(_new("The user likes coffee.")).memory
    assert len({tea.id, matcha.id, coffee.id}) == 3
    any_store.hygiene.supersede(tea.id, matcha.id, "a change, by hand")
    assert asked(ReviewKind.MERGE, tea, coffee)  # a repeat of a fact since replaced: a change?
    moved = next(
        r for r in any_store.hygiene.reviews("u1", "aria") if coffee.id in (r.memory_id, r.other_id)
    )
    assert (moved.kind, {moved.memory_id, moved.other_id}) == (
        ReviewKind.CONFLICT,
        {matcha.id, coffee.id},
    )
    assert "replaced by" in moved.reason

    before = any_store.hygiene.reviews("u1", "aria")
    any_store.hygiene.retire(coffee.id, "stale")
    assert not asked(ReviewKind.MERGE, coffee, lisbon)
    writer.forget(lisbon.id)
    assert not asked(ReviewKind.MERGE, matcha, lisbon)
    assert {r.id for r in any_store.hygiene.reviews("u1", "aria")} <= {r.id for r in before}


def _ask(store: Store, kind: ReviewKind, first: Memory, second: Memory, why: str) -> None:
    item = ReviewItem(uuid.uuid4(), "u1", "aria", kind, first.id, second.id, why, second.created_at)
    assert store.hygiene.propose(item)


def _accept_the_change(store: Store, writer: MemoryWriter, older: Memory, newer: Memory) -> None:
    """The one open question is whether ``newer`` changes ``older``; accepting it says yes."""
    [asked] = store.hygiene.reviews("u1", "aria")
    assert (asked.kind, asked.memory_id, asked.other_id) == (
        ReviewKind.CONFLICT,
        older.id,
        newer.id,
    )
    _accepted(store, writer, asked, replaced=older.id, kept=newer.id)


def _accepted(
    store: Store, writer: MemoryWriter, item: ReviewItem, *, replaced: uuid.UUID, kept: uuid.UUID
) -> None:
    """Accepting ``item`` supersedes ``replaced`` by ``kept``, which stays active."""
    Review(store.memories, store.hygiene, writer).accept(item)
    assert store.memories.get(replaced).superseded_by == kept
    assert store.memories.get(kept).status is MemoryStatus.ACTIVE


@pytest.mark.parametrize(
    "said_again",
    ["a repeat merged in, asked about", "a repeat merged in", "the same words", "confirmed"],
)
def test_a_change_asked_lets_the_fact_stated_last_win(
    any_store: Store, writer: MemoryWriter, said_again: str
) -> None:
    """A likely change is kept with the memory stated last second, so accepting it keeps the
    latest statement: Lagos said again after Abuja wins, however it was said again ("back in
    Lagos" merged into the first Lagos memory, the question on it moved or the question on
    the first put in order; the same words again; a confirmation)."""
    lagos = writer.remember(_new("The user lives in Lagos.", MemoryType.PROFILE_FACT)).memory
    abuja = writer.remember(_new("The user lives in Abuja.", MemoryType.PROFILE_FACT)).memory
    back = writer.remember(_new("The user is back in Lagos since May.")).memory
    if said_again == "a repeat merged in, asked about":
        _ask(any_store, ReviewKind.CONFLICT, abuja, back, "?")
    else:
        _ask(any_store, ReviewKind.CONFLICT, lagos, abuja, "?")
    if said_again.startswith("a repeat merged in"):
        any_store.hygiene.fold(back.id, lagos.id, "the same fact")
    elif said_again == "the same words":
        assert not writer.remember(
            _new("The user lives in Lagos.", MemoryType.PROFILE_FACT)
        ).created
    else:
        writer.confirm(lagos.id)
    _accept_the_change(any_store, writer, abuja, lagos)


def test_a_repeat_asked_about_a_memory_merged_away_keeps_what_it_went_into(
    any_store: Store, writer: MemoryWriter
) -> None:
    """ "Has a beagle called Bo" was asked about as a repeat of "owns a dog", then merged into
    "has a dog named Rex" (which now says both): accepted, the moved question merges "owns a
    dog" into that memory, never that memory into "owns a dog" (Rex and Bo would be gone)."""
    rex = writer.remember(_new("The user has a dog named Rex.")).memory
    dog = writer.remember(_new("The user owns a dog.")).memory
    bo = writer.remember(_new("The user has a beagle called Bo.")).memory
    _ask(any_store, ReviewKind.MERGE, dog, bo, "?")
    any_store.hygiene.fold(bo.id, rex.id, "the same dog")
    [moved] = any_store.hygiene.reviews("u1", "aria")
    assert (moved.kind, moved.memory_id, moved.other_id) == (ReviewKind.MERGE, rex.id, dog.id)
    _accepted(any_store, writer, moved, replaced=dog.id, kept=rex.id)


def test_a_person_s_merge_or_edit_moves_the_other_questions_as_a_merge_does(
    any_store: Store, writer: MemoryWriter
) -> None:
    """Accepting a repeat keeps the other repeat questions about it repeat questions; an edit
    is a statement made now, so a change asked about the memory folded into the edited one
    lets the edit win."""
    acme = writer.remember(_new("The user works at Acme.", MemoryType.PROFILE_FACT)).memory
    initech = writer.remember(_new("The user works at Initech.", MemoryType.PROFILE_FACT)).memory
    globex = writer.remember(_new("The user works at Globex.", MemoryType.PROFILE_FACT)).memory
    review = Review(any_store.memories, any_store.hygiene, writer)
    _ask(any_store, ReviewKind.MERGE, acme, initech, "?")
    _ask(any_store, ReviewKind.MERGE, initech, globex, "?")
    first = next(r for r in any_store.hygiene.reviews("u1", "aria") if r.other_id == initech.id)
    review.accept(first)  # Initech merged into Acme
    [second] = any_store.hygiene.reviews("u1", "aria")
    assert second.kind is ReviewKind.MERGE  # the one saying more first: here the longer
    assert (second.memory_id, second.other_id) == (globex.id, acme.id)
    assert "since merged into" in second.reason
    any_store.hygiene.close_review(second.id)

    hooli = writer.remember(_new("The user works at Hooli.", MemoryType.PROFILE_FACT)).memory
    _ask(any_store, ReviewKind.CONFLICT, acme, hooli, "?")
    _ask(any_store, ReviewKind.CONFLICT, hooli, globex, "?")
    edited = next(r for r in any_store.hygiene.reviews("u1", "aria") if r.memory_id == acme.id)
    review.edit(edited, "The user works at Umbrella since this week.")  # Hooli folded in
    _accept_the_change(any_store, writer, globex, acme)


def _said(writer: MemoryWriter, *texts: str) -> list[Memory]:
    """Memories said one after another, stored as given (no merge on the way in)."""
    return [writer.remember(_new(text), merge=False).memory for text in texts]


def test_a_person_s_yes_to_a_repeat_is_no_new_statement_of_it(
    any_store: Store, writer: MemoryWriter
) -> None:
    """Accepting "is the dog Rex" as a repeat of "a dog named Rex" does not make that fact
    newer than "the dog is Bo now", said after both: Bo still wins the change asked."""
    rex, again, bo = _said(writer, "The user has a dog named Rex.", "Dog: Rex.", "Dog: Bo now.")
    _ask(any_store, ReviewKind.MERGE, rex, again, "?")
    _ask(any_store, ReviewKind.CONFLICT, again, bo, "?")
    merge = next(r for r in any_store.hygiene.reviews("u1", "aria") if r.kind is ReviewKind.MERGE)
    Review(any_store.memories, any_store.hygiene, writer).accept(merge)
    _accept_the_change(any_store, writer, rex, bo)


def test_a_pass_that_merges_late_does_not_make_the_repeat_newer_than_it_was_said(
    any_store: Store, writer: MemoryWriter
) -> None:
    """A pass that folds "has a dog called Rex" into "the dog is Rex" after "the dog is Bo
    now" was said counts the repeat as said when it was, not when the pass ran."""
    rex, repeat, bo = _said(writer, "Dog: Rex.", "The user has a dog called Rex.", "Dog: Bo now.")
    _ask(any_store, ReviewKind.CONFLICT, rex, bo, "?")
    any_store.hygiene.fold(repeat.id, rex.id, "the same fact")
    _accept_the_change(any_store, writer, rex, bo)


def test_a_repeat_moved_across_a_merge_keeps_the_memory_that_says_more(
    any_store: Store, writer: MemoryWriter
) -> None:
    """Moved, a repeat question keeps first (and accepted, keeps) whichever of the two says
    more, the memory merged into or the other."""
    dog, beagle, owns = _said(
        writer, "The user has a dog.", "The user has a beagle called Bo, three years old.",
        "The user owns a dog.",
    )  # fmt: skip
    _ask(any_store, ReviewKind.MERGE, beagle, owns, "?")
    any_store.hygiene.fold(owns.id, dog.id, "the same fact")
    [moved] = any_store.hygiene.reviews("u1", "aria")
    assert (moved.kind, moved.memory_id, moved.other_id) == (ReviewKind.MERGE, beagle.id, dog.id)
    _accepted(any_store, writer, moved, replaced=dog.id, kept=beagle.id)


def test_a_new_change_is_asked_with_the_memory_stated_last_second() -> None:
    """A pass asks about a change with the memory stated last second, even when the older
    memory was said again after the new one was written."""
    at = datetime(2026, 1, 1, tzinfo=UTC)
    base = Memory(
        uuid.uuid4(), "u1", "aria", MemoryType.PROFILE_FACT, "The user lives in Lagos.", 0.5,
        0.0, 0.9, "", False, MemoryStatus.ACTIVE, None, None, at, at, None, None, 0,
        IndexState.INDEXED, MODEL, 0, None, None, None, None,
    )  # fmt: skip
    abuja = replace(
        base, id=uuid.uuid4(), text="The user lives in Abuja.", created_at=at + timedelta(days=1)
    )
    lagos = replace(base, last_confirmed_at=at + timedelta(days=2))
    assert asked_in_order(ReviewKind.CONFLICT, lagos, abuja) == (abuja, lagos)
    assert asked_in_order(ReviewKind.CONFLICT, base, abuja) == (base, abuja)
    assert asked_in_order(ReviewKind.MERGE, lagos, abuja) == (lagos, abuja)


def test_a_likely_repeat_of_a_replaced_fact_is_asked_as_a_change_and_quotes_nothing_gone(
    any_store: Store, writer: MemoryWriter
) -> None:
    """ "Acme Corp" was asked about as a repeat of "Acme"; Acme is replaced by Globex: the
    question becomes whether Globex changes Acme Corp (never whether Globex repeats it, which
    accepted would take the current job out of every prompt). Its reason quotes nothing of the
    memory gone, so forgetting that one leaves nothing of it in the queue."""
    acme = writer.remember(_new("The user works at Acme.", MemoryType.PROFILE_FACT)).memory
    corp = writer.remember(_new("The user works at Acme Corp.", MemoryType.PROFILE_FACT)).memory
    _ask(any_store, ReviewKind.MERGE, acme, corp, 'nearly the same ("acme", "corp" in only one)')
    globex = writer.remember(_new("The user works at Globex.", MemoryType.PROFILE_FACT)).memory
    any_store.hygiene.supersede(acme.id, globex.id, "a new job")
    [moved] = any_store.hygiene.reviews("u1", "aria")
    assert (moved.kind, moved.memory_id, moved.other_id) == (
        ReviewKind.CONFLICT,
        corp.id,
        globex.id,
    )
    assert (
        moved.reason
        == f"asked first about a memory since replaced by {str(globex.id)[:8]}: a change?"
    )
    writer.forget(acme.id)
    [kept] = any_store.hygiene.reviews("u1", "aria")
    assert kept == moved and "acme" not in kept.reason.lower()
    _accepted(any_store, writer, kept, replaced=corp.id, kept=globex.id)


def test_a_question_left_on_a_memory_no_longer_active_cannot_take_the_other_away(
    any_store: Store, writer: MemoryWriter
) -> None:
    """An item that names a superseded memory (asked before questions followed their
    memories) is refused whole: accepting it would hand the other memory to one no prompt
    shows."""
    tea = writer.remember(_new("The user likes tea.")).memory
    violin = writer.remember(_new("The user plays the violin.")).memory
    coffee = writer.remember(_new("The user likes coffee.")).memory
    stale = ReviewItem(
        uuid.uuid4(), "u1", "aria", ReviewKind.MERGE, tea.id, coffee.id, "old", tea.created_at
    )
    assert any_store.hygiene.propose(stale)
    # superseded as the store's import writes it, which (unlike a merge) leaves its questions
    # as they are (the import command then puts them right: the next test)
    gone = replace(tea, status=MemoryStatus.SUPERSEDED, superseded_by=violin.id)
    any_store.memories.import_memories([gone])
    review = Review(any_store.memories, any_store.hygiene, writer)
    with pytest.raises(ValidationError, match="is superseded, so nothing can be merged into it"):
        review.accept(stale)
    with pytest.raises(ValidationError, match="is superseded, so nothing can be merged into it"):
        review.edit(stale, "The user likes black tea.")  # refused before any text is written
    assert any_store.memories.get(tea.id).text == "The user likes tea."
    assert any_store.memories.get(coffee.id).status is MemoryStatus.ACTIVE
    assert [r.id for r in any_store.hygiene.reviews("u1", "aria")] == [stale.id]


def test_a_pass_s_merge_confirms_the_kept_memory_when_the_repeat_was_said(
    any_store: Store, writer: MemoryWriter
) -> None:
    """A repeat merged in by a pass confirms the memory it is merged into as of when the
    repeat was said, not when the pass ran (a pass over an import of last year's memories
    made them all "confirmed today", and a question moved later counted them said then); an
    older repeat confirms nothing."""
    kept = writer.remember(_new("The user lives in Nice."), merge=False).memory
    repeat = writer.remember(_new("The user lives in Nice, France."), merge=False).memory
    folded = any_store.hygiene.fold(repeat.id, kept.id, "a pass's merge")
    assert folded.last_confirmed_at == repeat.created_at
    older = writer.remember(_new("The user swims in the sea."), merge=False).memory
    newer = writer.remember(_new("The user swims in the sea every day."), merge=False).memory
    assert any_store.hygiene.fold(older.id, newer.id, "a pass's merge").last_confirmed_at is None


def test_a_question_about_a_memory_whose_merge_was_undone_reads_its_replacement_as_one(
    any_store: Store, writer: MemoryWriter
) -> None:
    """A pass's merge undone (the memory restored; the merge stays in the history), then the
    memory replaced by hand: a question about it queued afterwards is asked as about a
    replacement, not a merge. It read the old merge event as this supersession's."""
    kept = writer.remember(_new("The user lives in Nice.")).memory
    gone = writer.remember(_new("The user lives in Nice, France.")).memory
    other = writer.remember(_new("The user swims in the sea.")).memory
    any_store.hygiene.fold(gone.id, kept.id, "a pass's merge")
    any_store.hygiene.restore(gone.id, "a pass's merge undone")
    any_store.hygiene.supersede(gone.id, kept.id, "a change, by hand")
    _ask(any_store, ReviewKind.MERGE, gone, other, "the same?")
    [asked] = any_store.hygiene.reviews("u1", "aria")
    assert asked.kind is ReviewKind.CONFLICT
    assert asked.reason.startswith(
        f"asked first about a memory since replaced by {str(kept.id)[:8]}"
    )


def test_an_import_that_supersedes_a_memory_moves_its_questions_and_leaves_a_retired_one_s(
    any_store: Store, writer: MemoryWriter
) -> None:
    """An import writes a memory superseded (an export's chain) without the merge that moves
    its open questions: after it, each is asked about the memory that stands for it. They
    stayed on it, where accepting them is refused. A question on a memory the file says is
    retired stays, as retiring leaves it, and importing the same file again changes
    nothing (it closed that question)."""
    tea = writer.remember(_new("The user likes tea.")).memory
    violin = writer.remember(_new("The user plays the violin.")).memory
    coffee = writer.remember(_new("The user likes coffee.")).memory
    stamps = writer.remember(_new("The user collects stamps from Peru.")).memory
    assert len({tea.id, violin.id, coffee.id, stamps.id}) == 4
    _ask(any_store, ReviewKind.MERGE, tea, coffee, "tea?")
    _ask(any_store, ReviewKind.MERGE, stamps, coffee, "stamps?")
    lines = [
        replace(tea, status=MemoryStatus.SUPERSEDED, superseded_by=violin.id),
        replace(stamps, status=MemoryStatus.ARCHIVED),
    ]
    exported = "".join(json.dumps(memory_to_record(m)) + "\n" for m in lines).encode()
    import_memories(io.BytesIO(exported), any_store, None, skip_invalid=False)
    assert any_store.memories.get(tea.id).status is MemoryStatus.SUPERSEDED
    assert any_store.memories.get(stamps.id).status is MemoryStatus.ARCHIVED
    asked = {r.reason: r for r in any_store.hygiene.reviews("u1", "aria")}
    moved = next(r for reason, r in asked.items() if reason != "stamps?")
    assert moved.kind is ReviewKind.CONFLICT  # a repeat of a fact since replaced: a change?
    assert {moved.memory_id, moved.other_id} == {violin.id, coffee.id}
    assert moved.reason.startswith(
        f"asked first about a memory since replaced by {str(violin.id)[:8]}"
    )
    assert (asked["stamps?"].memory_id, asked["stamps?"].other_id) == (stamps.id, coffee.id)
    before = any_store.hygiene.reviews("u1", "aria")
    import_memories(io.BytesIO(exported), any_store, None, skip_invalid=False)
    assert any_store.hygiene.reviews("u1", "aria") == before


def test_an_import_refuses_a_chain_to_another_pair_s_memory(
    any_store: Store, writer: MemoryWriter
) -> None:
    """A line whose ``superseded_by`` names another user's memory (stored, or in the file) is
    refused: nothing is imported without skip_invalid, and with it that line alone is left
    out and said. No export writes such a chain; it would link two pairs' memories."""
    mine = writer.remember(_new("The user lives in Nice.")).memory
    theirs = writer.remember(
        NewMemory(user_id="u2", companion_id="aria", text="Bob's secret: he lives in Oslo.")
    ).memory
    crossed = replace(mine, status=MemoryStatus.SUPERSEDED, superseded_by=theirs.id)
    fine = replace(mine, id=uuid.uuid4(), text="The user swims in the sea.")
    exported = "".join(json.dumps(memory_to_record(m)) + "\n" for m in (fine, crossed)).encode()
    with pytest.raises(ValidationError, match="line 2: superseded_by names a memory of another"):
        import_memories(io.BytesIO(exported), any_store, None, skip_invalid=False)
    assert any_store.memories.get(mine.id).status is MemoryStatus.ACTIVE
    assert "The user swims in the sea." not in _active(any_store)
    done = import_memories(io.BytesIO(exported), any_store, None, skip_invalid=True)
    assert [p[:7] for p in done.problems] == ["line 2:"]
    assert any_store.memories.get(mine.id).status is MemoryStatus.ACTIVE
    assert "The user swims in the sea." in _active(any_store)


def test_a_history_never_follows_an_imported_chain_to_another_pair_s_memory(
    any_store: Store, writer: MemoryWriter
) -> None:
    """An import can say a memory was superseded by another user's: the history of either
    shows neither the other's text nor its events. It showed the other user's memory."""
    mine = writer.remember(_new("The user lives in Nice.")).memory
    theirs = writer.remember(
        NewMemory(user_id="u2", companion_id="aria", text="Bob's secret: he lives in Oslo.")
    ).memory
    gone = replace(mine, status=MemoryStatus.SUPERSEDED, superseded_by=theirs.id)
    any_store.memories.import_memories([gone])
    chain = history(any_store.memories, any_store.hygiene, any_store.memories.get(mine.id))
    assert [m.id for m in chain.chain] == [mine.id]
    chain = history(any_store.memories, any_store.hygiene, any_store.memories.get(theirs.id))
    assert [m.id for m in chain.chain] == [theirs.id]


def test_an_edit_keeps_the_old_text_and_forget_takes_the_history(
    any_store: Store, writer: MemoryWriter
) -> None:
    made = writer.remember(_new("The user plays violin."))
    writer.update(made.memory.id, MemoryChanges(text="The user plays violin in a quartet."))
    events = any_store.hygiene.events([made.memory.id])
    assert [(e.kind, e.text) for e in events] == [(EventKind.EDITED, "The user plays violin.")]
    newer = writer.remember(_new("The user plays viola now."), replaces=made.memory.id)
    writer.forget(made.memory.id)
    assert any_store.hygiene.events([made.memory.id]) == []
    assert any_store.hygiene.events([newer.memory.id]) == []  # nor its id in another's
    writer.forget(newer.memory.id)
    assert any_store.hygiene.events([newer.memory.id]) == []


def _old(store: Store, text: str, days: int, **fields: object) -> uuid.UUID:
    """A memory said ``days`` ago (through import, which keeps the dates it is given)."""
    at = (datetime.now(UTC) - timedelta(days=days)).isoformat()
    record = memory_to_record(store.memories.save(_new(text)).memory)
    store.memories.delete(uuid.UUID(record["id"]))
    record.update(id=str(uuid.uuid4()), created_at=at, updated_at=at, **fields)
    store.memories.import_memories([memory_from_record(record)])
    return uuid.UUID(record["id"])


def test_stale_memories_are_proposed_or_retired_and_retirement_is_undone(
    any_store: Store, index: EdgeIndex, server: FakeOllama, writer: MemoryWriter
) -> None:
    embedder = OllamaEmbedder(MODEL, host=server.url, timeout=5)
    stale = _old(any_store, "The user had a sandwich for lunch.", 400, importance=0.1)
    _old(any_store, "The user is vegetarian.", 400, importance=0.1, type="ProfileFact")
    _old(any_store, "The user had soup.", 400, importance=0.1, pinned=True)
    _old(any_store, "The user is learning the violin.", 400, importance=0.9)
    _old(any_store, "The user had toast.", 20, importance=0.1)
    rule = RetirementRule(older_than=timedelta(days=180))
    proposing = Upkeep(any_store, index, embedder, retire=Retire.PROPOSE, retirement=rule)
    assert proposing.retire_stale(datetime.now(UTC)) == (0, 1)
    assert proposing.retire_stale(datetime.now(UTC)) == (0, 0)  # asked once
    [item] = any_store.hygiene.reviews("u1", "aria")
    assert item.kind is ReviewKind.RETIRE and item.memory_id == stale
    assert "never used" in item.reason
    Review(any_store.memories, any_store.hygiene, writer).reject(item)
    assert proposing.retire_stale(datetime.now(UTC)) == (0, 0)  # kept: not asked again

    other = _old(any_store, "The user had a sandwich at the station.", 400, importance=0.2)
    applying = Upkeep(any_store, index, embedder, retire=Retire.APPLY, retirement=rule)
    assert applying.retire_stale(datetime.now(UTC)) == (1, 0)
    assert any_store.memories.get(other).status is MemoryStatus.ARCHIVED
    report = applying.run_pass(lambda: False)
    assert report.retired == 0 and report.retirements_proposed == 0
    back = writer.restore(other, "brought back")
    assert back.memory.status is MemoryStatus.ACTIVE
    kinds = [e.kind for e in any_store.hygiene.events([other])]
    assert kinds == [EventKind.RETIRED, EventKind.RESTORED]


def test_a_superseded_memory_is_never_retrieved_even_with_a_stale_vector(
    any_store: Store, writer: MemoryWriter, index: EdgeIndex, server: FakeOllama
) -> None:
    berlin = writer.remember(_new("The user lives in Berlin.", MemoryType.PROFILE_FACT))
    writer.remember(
        _new("The user moved to Lisbon.", MemoryType.PROFILE_FACT), replaces=berlin.memory.id
    )
    old = any_store.memories.get(berlin.memory.id)
    index.upsert(  # a vector a crash left behind
        MEMORIES_COLLECTION,
        [IndexPoint(old.id, meaning(old.text, 16), memory_payload(old, SCOPE.embedding_model))],
    )
    embedder = OllamaEmbedder(MODEL, host=server.url, timeout=5)
    retriever = Retriever(any_store.reads, index, embedder, timeout=5, min_similarity=0.1)
    try:
        found = retriever.retrieve("u1", "aria", "where does the user live? berlin")
    finally:
        retriever.close()
    texts = [r.memory.text for r in found.chosen]
    assert "The user lives in Berlin." not in texts and "The user moved to Lisbon." in texts
    assert "The user lives in Berlin." not in found.prompt
    reasons = {d.memory_id: d.reason for d in found.dropped}
    if old.id in reasons:  # the index may rank it out before PostgreSQL sees it
        assert reasons[old.id] in (DropReason.SUPERSEDED, DropReason.ARCHIVED)


def test_export_and_import_carry_the_supersession(any_store: Store, writer: MemoryWriter) -> None:
    berlin = writer.remember(_new("The user lives in Berlin.", MemoryType.PROFILE_FACT))
    lisbon = writer.remember(
        _new("The user moved to Lisbon.", MemoryType.PROFILE_FACT), replaces=berlin.memory.id
    )
    lines = io.StringIO()
    for memory in any_store.memories.iter_all():
        lines.write(json.dumps(memory_to_record(memory)) + "\n")
    records = [json.loads(line) for line in lines.getvalue().splitlines()]
    old = next(r for r in records if r["id"] == str(berlin.memory.id))
    assert old["status"] == "superseded" and old["superseded_by"] == str(lisbon.memory.id)
    for memory_id in (berlin.memory.id, lisbon.memory.id):
        any_store.memories.delete(memory_id)
    any_store.memories.import_memories([memory_from_record(r) for r in records])
    back = any_store.memories.get(berlin.memory.id)
    assert back.status is MemoryStatus.SUPERSEDED and back.superseded_by == lisbon.memory.id


@pytest.mark.parametrize(
    ("first", "second", "apart"),
    [
        ("The user likes tea.", "The user dislikes tea.", True),
        ("Sam lives in Berlin near the river.", "Sam lives in Lisbon near the river.", True),
        ("The user's sister loves pottery.", "The user's brother loves pottery.", True),
        ("The user has 2 cats.", "The user has 3 cats.", True),
        (
            "The user's sister Maya loves pottery.",
            "Maya, the user's sister, is into pottery.",
            False,
        ),
        ("Sam moved to Berlin.", "Sam lives in Berlin.", False),
        ("Sam moved to Berlin.", "Sam lives in Berlin with Tom now.", True),  # Tom: one side
        ("Visits Anna every weekend.", "The user visits Anna every weekend.", False),
        ("The user has two cats.", "The user has three cats.", True),
        ("The user's flight is on Monday.", "The user's flight is on Friday.", True),
        # a negation each, but one denies what the other states
        (
            "The user does not eat meat and never drinks.",
            "The user eats meat and never drinks.",
            True,
        ),
    ],
)
def test_the_words_keep_different_facts_apart(first: str, second: str, apart: bool) -> None:
    assert (different_content(first, second) is not None) is apart
    assert (different_content(second, first) is not None) is apart


def test_the_judge_is_shown_what_shares_a_name_first_and_a_joined_wording_must_say_both() -> None:
    known = [f"The user likes note {n}." for n in range(10)] + ["Inês called the user."]
    shown = to_judge("The user is seeing Inês.", known, limit=4)
    assert shown == [0, 1, 2, 10]  # Inês shares a name: shown though the furthest
    assert to_judge("Nothing shared.", known[:3]) == [0, 1, 2]
    first, second = "The user's dad lives in Gdańsk.", "The user's dad lives in Poland."
    assert says_both("The user's dad lives in Gdańsk, Poland.", first, second)
    assert not says_both("The user's dad lives in Poland.", first, second)
    assert not says_both("The user's dad lives in Gdańsk, Poland, since 2001.", first, second)
    two, three = "The user has two cats.", "The user has three cats."
    assert not says_both("The user has two cats; the user has three cats.", two, three)


def test_the_ask_bar_is_the_models_or_the_conflict_bar() -> None:
    assert rule_for("all-MiniLM-L6-v2").ask_similarity == 0.4
    assert rule_for("mxbai-embed-large").ask_similarity == 0.75
    assert rule_for("mxbai-embed-large", 0.9, 0.6).ask_similarity == 0.6
    assert rule_for("all-MiniLM-L6-v2").kind_similarity == 0.2
    given = rule_for("all-MiniLM-L6-v2", ask_similarity=0.15)  # [hygiene] ask_similarity
    assert (given.ask_similarity, given.kind_similarity) == (0.15, 0.15)
    assert rule_for("mxbai-embed-large").kind_similarity == 0.75


@pytest.mark.parametrize(
    ("first", "second", "denied"),
    [
        ("The user's flight is on Monday.", "The user's flight is not on Monday.", "mon"),
        ("The user eats meat.", "The user no longer eats meat.", "eat"),
        ("The user stopped eating meat.", "The user eats meat happily.", "eat"),
        ("The user loves dogs.", "The user doesn't like dogs.", "likes"),
        ("The user has two cats.", "The user has no cats.", "cat"),
        ("The user calls her mum.", "The user never calls her mother.", "call"),
        # a negation about what the other does not mention is a way of saying it
        ("The user phones her dad every Sunday.", "She never misses the Sunday call.", None),
        ("The user can't stand traffic jams.", "Traffic jams drive the user up the wall.", None),
        ("The user never misses a game.", "The user never skips a game.", None),
        # what it denies may come after a word that only qualifies the negation
        ("The user doesn't actually have a dog.", "The user has a dog.", "dog"),
        ("The user doesn't currently drink coffee.", "The user drinks 3 coffees a day.", "drink"),
        ("The user isn't able to drive anymore.", "The user drives to work.", "driv"),
        ("The user doesn't always eat breakfast.", "The user eats breakfast every day.", "eat"),
        ("The user does not really like jazz at all.", "The user loves jazz.", "likes"),
        # an irregular verb form is its verb; "be", "have", "do" only carry the negation
        ("The user never went back to Lagos.", "The user goes back to Lagos every year.", "go"),
        ("The user hasn't had a drink in years.", "The user had a drink at the party.", "drink"),
        ("The user hasn't had a drink in a year.", "The user has been sober for a year.", None),
        # "nobody's X", "no one's X": what is said of X is denied, not X
        (
            "The user says his mum makes the best jollof rice he has ever tasted.",
            "Nobody's jollof comes close to his mother's, according to the user.",
            None,
        ),
        ("The user's mum makes the best jollof.", "No one\u2019s jollof beats his mum's.", None),
        ("Nobody's jollof comes close to his mum's.", "The user's jollof comes close.", "com"),
        ("The user has no jollof left.", "The user has jollof left.", "jollof"),
    ],
)
def test_a_denial_is_a_negation_of_what_the_other_states(
    first: str, second: str, denied: str | None
) -> None:
    assert denial(first, second) == denial(second, first) == denied


def test_a_negation_on_one_side_only_keeps_both_wordings_unless_it_may_deny_the_other() -> None:
    """Both wordings whole: nothing is lost, and no wording of a judge's stands for them."""
    sunday, call = "The user phones her dad every Sunday", "She never misses the Sunday call."
    assert keeps_both(sunday, call) and keeps_both(call, sunday)
    assert not says_both(f"{sunday}. {call}", sunday, call)
    assert both_wordings(sunday, call) == f"{sunday}. {call}"
    assert both_wordings(f" {call}", f"{sunday}! ") == f"{call} {sunday}!"
    assert both_wordings('She said "never."', sunday) == f'She said "never." {sunday}'
    for first, second in [
        ("The user doesn't actually have a dog.", "The user has a dog."),  # a denial
        ("The user doesn't currently drink coffee.", "The user drinks 3 coffees a day."),
        ("The user phones her dad twice each Sunday.", "She never misses the 3 Sunday calls."),
        ("The user never misses a game.", "The user never skips a game."),  # both: not one-sided
        (sunday, "The user calls her dad on Sundays."),  # no negation at all
    ]:
        assert not keeps_both(first, second) and not keeps_both(second, first), first


def test_a_joined_wording_never_joins_two_values_of_one_kind_but_may_join_two_kinds() -> None:
    """Two values that exclude each other stay a question; values of two kinds, or a value
    and one it contains, may be joined."""
    wednesday = "The user plays five-a-side every Wednesday."
    seven = "The user plays five-a-side at 7pm."
    assert not clash(wednesday, seven) and says_both(f"{wednesday} {seven}", wednesday, seven)
    never = "The user never skips his five-a-side game."  # a negation in one only: asked
    assert not clash(wednesday, never) and not says_both(f"{wednesday} {never}", wednesday, never)
    coffee, none = "The user drinks 3 coffees a day.", "The user doesn't currently drink coffee."
    assert not says_both(f"{none[:-1]}, 3 a day.", coffee, none)
    two, hours = "The user has two cats.", "The user sleeps 4 hours."  # a number and an amount
    assert clash(two, hours) and not says_both(f"{two} {hours}", two, hours)
    saturday, sunday = "The user sketches on Saturdays.", "The user sketches on Sundays."
    assert clash(saturday, sunday) and not says_both(f"{saturday} {sunday}", saturday, sunday)
    # a narrower day or household is as often a change: asked
    weekend = "The user sketches at weekends."
    assert clash(weekend, saturday) and not says_both(f"{weekend} {saturday}", weekend, saturday)
    parents, mother = "The user lives with her parents.", "The user lives with her mother."
    assert clash(parents, mother) and not says_both(f"{parents} {mother}", parents, mother)
    # a kin word and one it contains, of one person the two name alike: one fact
    daughter, child = "The user's daughter Lucía is a dentist.", "Lucía is the user's only child."
    assert not clash(daughter, child) and not clash(child, daughter)
    assert says_both(f"{daughter} {child}", daughter, child)
    assert not says_both(daughter, daughter, child)  # "only child" left out
    son = "The user's son Lucía is a dentist."
    assert clash(daughter, son) and not says_both(f"{daughter} {son}", daughter, son)


def test_a_replaced_fact_said_again_in_the_same_words_is_current_again_and_judged_anew(
    any_store: Store, writer: MemoryWriter, tidy: Consolidator, index: EdgeIndex
) -> None:
    berlin = writer.remember(_new("The user lives in Berlin.", MemoryType.PROFILE_FACT))
    lisbon = writer.remember(
        _new("The user moved to Lisbon.", MemoryType.PROFILE_FACT), replaces=berlin.memory.id
    )
    assert tidy.run().queued == 0
    again = writer.remember(_new("The user lives in Berlin.", MemoryType.PROFILE_FACT))
    assert again.memory.id == berlin.memory.id and not again.created
    assert again.memory.status is MemoryStatus.ACTIVE and again.memory.superseded_by is None
    assert "said again" in again.note and again.indexed and _in_index(index, berlin.memory.id)
    assert again.restored
    assert _active(any_store) == ["The user lives in Berlin.", "The user moved to Lisbon."]
    assert tidy.run().queued == 1  # without a judge, which one is current is asked
    [item] = any_store.hygiene.reviews("u1", "aria")
    assert {item.memory_id, item.other_id} == {berlin.memory.id, lisbon.memory.id}
    events = any_store.hygiene.events([berlin.memory.id])
    assert events[-1].kind is EventKind.RESTORED and "said again" in events[-1].detail


def test_replacing_a_fact_with_the_words_of_one_it_replaced_makes_no_loop(
    any_store: Store, writer: MemoryWriter
) -> None:
    berlin = writer.remember(_new("The user lives in Berlin.", MemoryType.PROFILE_FACT))
    lisbon = writer.remember(
        _new("The user moved to Lisbon.", MemoryType.PROFILE_FACT), replaces=berlin.memory.id
    )
    back = writer.remember(
        _new("The user lives in Berlin.", MemoryType.PROFILE_FACT), replaces=lisbon.memory.id
    )
    assert back.memory.id == berlin.memory.id and back.memory.status is MemoryStatus.ACTIVE
    assert back.restored and not lisbon.restored
    assert any_store.memories.get(lisbon.memory.id).superseded_by == berlin.memory.id
    assert _active(any_store) == ["The user lives in Berlin."]
    writer.retire(berlin.memory.id, "stale")
    retold = writer.remember(_new("The user lives in Berlin.", MemoryType.PROFILE_FACT))
    assert retold.memory.status is MemoryStatus.ACTIVE
    assert _active(any_store) == ["The user lives in Berlin."]


def _expire(store: Store, memory_id: uuid.UUID) -> None:
    """The end a memory was said with has passed (as a week's trip's does)."""
    past = datetime.now(UTC) - timedelta(hours=1)
    if isinstance(store, InMemoryStore):
        with store.state.lock:
            kept = store.state.memories[memory_id]
            store.state.memories[memory_id] = replace(kept, expires_at=past)
        return
    assert isinstance(store, PostgresStore)
    with store.db.connection() as conn:
        conn.execute("UPDATE memories SET expires_at = %s WHERE id = %s", (past, memory_id))


def test_a_fact_said_again_after_it_expired_lasts_as_it_is_said_now(
    any_store: Store, writer: MemoryWriter, index: EdgeIndex
) -> None:
    """The same words said again with a later end renew the one row of that fact: it is
    usable and indexed again (it stayed expired, out of every prompt, whatever it was said
    with). A saying that ends sooner never cuts it short, and one that names no end (as the
    chat's extraction says it) does not make a week's trip a lasting fact."""
    text = "The user is visiting Rome with her sister."
    week = datetime.now(UTC) + timedelta(days=7)
    trip = writer.remember(_new(text, MemoryType.EPISODIC_EVENT, expires_at=week))
    _expire(any_store, trip.memory.id)
    expired = writer.sync(any_store.memories.get(trip.memory.id))  # its vector goes
    assert not expired.indexed and not _in_index(index, trip.memory.id)
    fortnight = datetime.now(UTC) + timedelta(days=14)
    again = writer.remember(_new(text, MemoryType.EPISODIC_EVENT, expires_at=fortnight))
    assert again.memory.id == trip.memory.id and not again.created
    assert again.memory.expires_at is not None
    assert abs(again.memory.expires_at - fortnight) < timedelta(milliseconds=1)
    assert is_usable(again.memory, Stage.EARLY, datetime.now(UTC))
    assert again.indexed and _in_index(index, trip.memory.id)
    assert again.memory.updated_at > expired.memory.updated_at  # what a pass's mark compares
    sooner = writer.remember(
        _new(text, MemoryType.EPISODIC_EVENT, expires_at=datetime.now(UTC) + timedelta(days=1))
    )
    assert sooner.memory.expires_at == again.memory.expires_at
    unsaid = writer.remember(_new(text, MemoryType.EPISODIC_EVENT))
    assert unsaid.memory.expires_at == again.memory.expires_at
    lasting = writer.remember(_new("The user speaks Italian.", MemoryType.PROFILE_FACT))
    ends = writer.remember(_new("The user speaks Italian.", expires_at=fortnight))
    assert ends.memory.id == lasting.memory.id and ends.memory.expires_at is None
    with pytest.raises(ValidationError, match="already says"):  # refused, and nothing changed
        writer.remember(
            _new(text, expires_at=fortnight + timedelta(days=30)), replaces=trip.memory.id
        )
    assert any_store.memories.get(trip.memory.id).expires_at == again.memory.expires_at


def test_an_import_never_moves_a_memory_to_another_user_or_companion(
    any_store: Store, writer: MemoryWriter
) -> None:
    """A line with the id of another pair's memory would move that memory there, with its
    history and the questions about it: it is refused as an invalid line is."""
    mine = writer.remember(_new("The user lives in Nice.")).memory
    moved = replace(mine, companion_id="nova")
    fine = replace(mine, id=uuid.uuid4(), text="The user swims in the sea.")
    said = MemoryEvent(mine.id, EventKind.EDITED, datetime.now(UTC), text="Nova's old words")
    records = [memory_to_record(fine), memory_to_record(moved), event_line(said)]
    exported = "".join(json.dumps(r) + "\n" for r in records).encode()
    with pytest.raises(ValidationError, match="an import never moves a memory"):
        import_memories(io.BytesIO(exported), any_store, None, skip_invalid=False)
    assert any_store.memories.get(mine.id).companion_id == "aria"
    assert "The user swims in the sea." not in _active(any_store)
    done = import_memories(io.BytesIO(exported), any_store, None, skip_invalid=True)
    assert [p[:7] for p in done.problems] == ["line 2:"]
    assert any_store.memories.get(mine.id).companion_id == "aria"
    assert "The user swims in the sea." in _active(any_store)
    assert any_store.hygiene.events([mine.id]) == []  # nor does the refused line's history go


def test_a_joined_wording_another_memory_already_says_is_asked_and_the_pass_goes_on(
    any_store: Store, writer: MemoryWriter, curator: Curator, server: FakeOllama
) -> None:
    """A judge's wording for two memories can be the words of a third (one row per fact):
    the edit is refused, and the pair is asked instead. The refusal stopped the pass there,
    and every pass after it, as the memory stayed marked."""
    anna = writer.remember(_new("The user's sister Anna lives in Berlin.")).memory
    aged = writer.remember(_new("The user's sister is 34 and lives in Berlin.")).memory
    whole = writer.remember(_new("The user's sister Anna is 34 and lives in Berlin.")).memory
    server.state.structured_reply = json.dumps(
        {"verdict": "duplicate", "memory": 1, "confidence": 0.9, "merged": whole.text}
    )
    judge = OllamaChat("llama3.2", host=server.url, timeout=5)
    passes = Consolidator(any_store.memories, any_store.hygiene, curator, writer, judge)
    report = passes.run(limit=2)  # the first two: ``whole`` is newer than both
    assert report.looked == 2 and report.queued == 1 and report.merged == 0
    [item] = any_store.hygiene.reviews("u1", "aria")
    assert {item.memory_id, item.other_id} == {anna.id, aged.id}
    assert "another memory already says that wording" in item.reason
    assert len(_active(any_store)) == 3 and any_store.memories.get(anna.id).text == anna.text


def test_a_repeat_held_until_a_closer_stage_is_asked_not_merged_and_a_pin_stays(
    any_store: Store, writer: MemoryWriter, tidy: Consolidator
) -> None:
    """A merge keeps one row: a held repeat merged into a usable memory would bring its words
    into prompts early, and one kept over it would hide a fact usable now. So it is asked, on
    the write and by the pass. A pinned repeat merged into an unpinned memory kept no pin."""
    loves = writer.remember(_new("The user's sister loves pottery.")).memory
    said = "The user's sister is really into her weekly pottery classes."
    held = writer.remember(_new(said, held_until_stage=Stage.CLOSE))
    assert held.created and not held.merged and len(_active(any_store)) == 2
    assert tidy.run().merged == 0
    [item] = any_store.hygiene.reviews("u1", "aria")
    assert {item.memory_id, item.other_id} == {loves.id, held.memory.id}
    assert "held until a closer stage" in item.reason
    writer.forget(held.memory.id)
    pinned = writer.remember(_new(said, pinned=True))
    assert pinned.merged and pinned.memory.id == loves.id and pinned.memory.pinned
    assert any_store.memories.get(loves.id).pinned


def test_a_judged_duplicate_that_expires_at_another_time_is_asked(
    any_store: Store, writer: MemoryWriter, curator: Curator, server: FakeOllama
) -> None:
    lasting = writer.remember(_new("The user's sister loves pottery.")).memory
    until = datetime.now(UTC) + timedelta(days=3)
    passing = writer.remember(_new("The user's sister: ceramics.", expires_at=until), merge=False)
    server.state.structured_reply = json.dumps(
        {"verdict": "duplicate", "memory": 1, "confidence": 0.9, "reason": "the same"}
    )
    judge = OllamaChat("llama3.2", host=server.url, timeout=5)
    passes = Consolidator(any_store.memories, any_store.hygiene, curator, writer, judge)
    report = passes.run()
    assert report.merged == 0 and report.queued == 1 and len(_active(any_store)) == 2
    [item] = any_store.hygiene.reviews("u1", "aria")
    assert {item.memory_id, item.other_id} == {lasting.id, passing.memory.id}
    assert "one expires and the other does not" in item.reason


def test_a_pass_s_merge_keeps_the_pin_of_the_memory_merged_away(
    any_store: Store, writer: MemoryWriter, tidy: Consolidator
) -> None:
    loves = writer.remember(_new("The user's sister loves pottery.")).memory
    said = "The user's sister is really into her weekly pottery classes."
    writer.remember(_new(said, pinned=True), merge=False)
    assert tidy.run().merged == 1
    [kept] = any_store.memories.list_memories(
        user_id="u1", companion_id="aria", status=MemoryStatus.ACTIVE
    )
    assert kept.id == loves.id and kept.pinned


def test_a_pair_is_asked_about_once_either_way_round(
    any_store: Store, writer: MemoryWriter
) -> None:
    """A pass judges a memory against what was written before it was last said, so a memory
    said again after a newer one is judged against it, and that one against it in turn."""
    first = writer.remember(_new("The user likes tea.")).memory
    second = writer.remember(_new("The user is fond of a cup of tea."), merge=False).memory

    def asked(memory: Memory, other: Memory) -> bool:
        item = ReviewItem(
            uuid.uuid4(), "u1", "aria", ReviewKind.MERGE, memory.id, other.id, "the same?",
            datetime.now(UTC),
        )  # fmt: skip
        return any_store.hygiene.propose(item)

    assert asked(first, second) and not asked(second, first)
    assert len(any_store.hygiene.reviews("u1", "aria")) == 1


def test_a_pair_asked_about_both_ways_round_at_once_is_asked_once(
    any_store: Store, writer: MemoryWriter
) -> None:
    """Two passes at once (`tidy` beside the daemon), each judging one memory of a pair, ask
    about it each its own way round: one question, not two (each saw no question yet)."""
    pairs = [
        (
            writer.remember(_new(f"The user's cousin number {n} likes tea."), merge=False).memory,
            writer.remember(_new(f"Cousin number {n} drinks tea daily."), merge=False).memory,
        )
        for n in range(12)
    ]
    start = threading.Barrier(2)
    failed: list[BaseException] = []

    def ask(memory: Memory, other: Memory) -> None:
        item = ReviewItem(
            uuid.uuid4(), "u1", "aria", ReviewKind.MERGE, memory.id, other.id, "the same?",
            datetime.now(UTC),
        )  # fmt: skip
        start.wait(timeout=30)
        try:
            any_store.hygiene.propose(item)
        except BaseException as exc:  # a thread's error would be lost: the test says it
            failed.append(exc)

    for first, second in pairs:
        both = [
            threading.Thread(target=ask, args=(first, second)),
            threading.Thread(target=ask, args=(second, first)),
        ]
        for one in both:
            one.start()
        for one in both:
            one.join(timeout=60)
    assert failed == []
    asked = any_store.hygiene.reviews("u1", "aria")
    assert len(asked) == len(pairs), [(q.memory_id, q.other_id) for q in asked]


def test_undoing_a_join_whose_old_wording_is_another_memory_s_now_is_not_left_half_done(
    any_store: Store, writer: MemoryWriter, curator: Curator, server: FakeOllama
) -> None:
    """The undo restores the merged memory first; the older one's wording could then not be
    given back, and the undo raised with the merged memory restored and the action not
    marked undone (undoing it again restored nothing and failed the same way)."""
    anna = writer.remember(_new("The user's sister Anna lives in Berlin.")).memory
    writer.remember(_new("The user's sister is 34 and lives in Berlin."))
    joined = "The user's sister Anna is 34 and lives in Berlin."
    server.state.structured_reply = json.dumps(
        {"verdict": "duplicate", "memory": 1, "confidence": 0.9, "merged": joined}
    )
    judge = OllamaChat("llama3.2", host=server.url, timeout=5)
    passes = Consolidator(any_store.memories, any_store.hygiene, curator, writer, judge)
    [action] = passes.run().actions
    assert any_store.memories.get(anna.id).text == joined
    writer.remember(_new("The user's sister Anna lives in Berlin."), merge=False)
    said = undo_action(action, writer, any_store.hygiene)
    assert "now another memory's" in said
    assert len(_active(any_store)) == 3 and any_store.memories.get(anna.id).text == joined
    with pytest.raises(ValidationError, match="undone already"):
        undo_action(
            any_store.hygiene.find_consolidation(str(action.id), ("u1", "aria")),
            writer,
            any_store.hygiene,
        )


def test_a_person_s_merge_keeps_the_pin_of_the_memory_merged_away(
    any_store: Store, writer: MemoryWriter
) -> None:
    older = writer.remember(_new("The user likes tea.")).memory
    newer = writer.remember(_new("The user is fond of tea.", pinned=True), merge=False).memory
    asked = ReviewItem(
        uuid.uuid4(), "u1", "aria", ReviewKind.MERGE, older.id, newer.id, "the same?",
        datetime.now(UTC),
    )  # fmt: skip
    assert any_store.hygiene.propose(asked)
    [item] = any_store.hygiene.reviews("u1", "aria")
    Review(any_store.memories, any_store.hygiene, writer).accept(item)
    assert any_store.memories.get(newer.id).superseded_by == older.id
    assert any_store.memories.get(older.id).pinned


def test_the_same_words_said_again_confirm_their_memory_not_merge_into_a_near_one(
    any_store: Store, writer: MemoryWriter
) -> None:
    """The write compared the words with the nearest memories other than the one saying them,
    and merged them into a near one: that one was confirmed, and its history said it was said
    in words it never had, while the memory saying them was not confirmed."""
    architect = writer.remember(_new("The user is an architect at a large firm.")).memory
    left = writer.remember(_new("The user left the firm."), merge=False).memory
    again = writer.remember(_new("The user is an architect at a large firm."))
    assert not again.merged and again.memory.id == architect.id
    assert any_store.memories.get(architect.id).last_confirmed_at is not None
    assert any_store.hygiene.events([left.id]) == []
