"""Steps 5 and 6 of the trip read together (``RetrievalReads.opening``): the same stage, profile
and word matches as the two reads on their own, on one connection; a word search that fails
costs the words, never the profile."""

from __future__ import annotations

from typing import Any

import pytest

from aria_mem.adapters.postgres import reads
from aria_mem.adapters.postgres.store import PostgresStore
from aria_mem.domain.models import MemoryType, NewMemory, Stage
from aria_mem.ports import Store


def _new(text: str, **kw: Any) -> NewMemory:
    return NewMemory(user_id="u1", companion_id="aria", text=text, **kw)


def _fill(store: Store) -> None:
    store.memories.save(
        _new("The user is allergic to peanuts.", type=MemoryType.PROFILE_FACT, importance=0.9)
    )
    store.memories.save(_new("The user's sister Maya loves pottery."))
    store.memories.save(_new("The user plays chess with Maya on Sundays."))
    store.memories.save(_new("The user walks the dog every morning."))
    store.relationships.set_stage("u1", "aria", Stage.ESTABLISHED)


def test_the_opening_reads_what_the_two_reads_read(any_store: Store) -> None:
    _fill(any_store)
    opened = any_store.reads.opening("u1", "aria", "What would Maya like?", 30, timeout=5)
    stage, profile = any_store.reads.retrieval_context("u1", "aria", timeout=5)
    words = any_store.reads.lexical_candidates("u1", "aria", "What would Maya like?", 30, 5)
    assert (opened.stage, opened.profile, opened.words) == (stage, profile, words)
    assert stage is Stage.ESTABLISHED and len(profile) == 1 and len(words) == 2
    assert opened.words_skipped is None


def test_no_words_are_read_when_none_are_asked_for(any_store: Store) -> None:
    _fill(any_store)
    assert any_store.reads.opening("u1", "aria", "What would Maya like?", 0).words == []
    blank = any_store.reads.opening("u1", "aria", "   ", 30)
    assert blank.words == [] and len(blank.profile) == 1


def test_a_word_search_past_the_timeout_costs_the_words_not_the_profile(
    store: PostgresStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fill(store)
    slow = "SELECT pg_sleep(5), %(u)s::text, %(c)s::text, %(n)s::int"
    monkeypatch.setattr(reads, "LEXICAL_SQL", slow)
    opened = store.reads.opening("u1", "aria", "What would Maya like?", 30, timeout=1)
    assert opened.stage is Stage.ESTABLISHED and len(opened.profile) == 1
    assert opened.words == []
    assert opened.words_skipped == "PostgreSQL took longer than 1s"
    # The connection goes back to the pool usable.
    again = store.reads.opening("u1", "aria", "", 30, timeout=1)
    assert len(again.profile) == 1
