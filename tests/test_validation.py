"""The domain's checks and normalisation: pure functions, no services."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from aria_mem.domain import memory_line, validation
from aria_mem.domain.models import MemoryType, NewMemory, Stage
from aria_mem.errors import ValidationError


def test_normalize_ignores_case_spacing_width_and_final_stop() -> None:
    assert validation.normalize_text("  The user  is ALLERGIC\tto peanuts. ") == (
        validation.normalize_text("the user is allergic to peanuts")
    )
    assert validation.normalize_text("\uff26\uff55\uff4c\uff4c width") == "full width"


def test_normalize_keeps_different_facts_apart() -> None:
    assert validation.normalize_text("The user likes tea") != (
        validation.normalize_text("The user likes coffee")
    )


@given(st.text())
def test_normalize_is_idempotent(text: str) -> None:
    once = validation.normalize_text(text)
    assert validation.normalize_text(once) == once


@pytest.mark.parametrize("text", ["", "   ", "\n\t"])
def test_empty_text_is_rejected(text: str) -> None:
    with pytest.raises(ValidationError, match="empty"):
        validation.clean_text(text)


def test_text_at_the_limit_is_accepted_and_over_it_rejected() -> None:
    assert len(validation.clean_text("x" * validation.MAX_TEXT_CHARS)) == 2000
    with pytest.raises(ValidationError, match="2001 characters; the limit is 2000"):
        validation.clean_text("x" * (validation.MAX_TEXT_CHARS + 1))


@pytest.mark.parametrize("value", [-0.01, 1.01, float("nan"), "0.5", True, None])
def test_scores_outside_the_unit_interval_are_rejected(value: object) -> None:
    with pytest.raises(ValidationError, match="importance"):
        validation.unit_interval("importance", value)


@pytest.mark.parametrize("value", [0, 0.0, 0.5, 1, 1.0])
def test_scores_inside_the_unit_interval_pass(value: float) -> None:
    assert validation.unit_interval("importance", value) == float(value)


def test_memory_type_is_case_insensitive_and_unknown_types_list_the_known() -> None:
    assert validation.memory_type("profilefact") is MemoryType.PROFILE_FACT
    with pytest.raises(ValidationError, match="Unknown memory type 'Gossip'.*ProfileFact"):
        validation.memory_type("Gossip")


def test_stage_order_and_holds() -> None:
    assert Stage.EARLY.allows(None)
    assert not Stage.EARLY.allows(Stage.ESTABLISHED)
    assert Stage.ESTABLISHED.allows(Stage.ESTABLISHED)
    assert Stage.CLOSE.allows(Stage.ESTABLISHED)
    assert not Stage.ESTABLISHED.allows(Stage.CLOSE)


def test_new_memory_is_cleaned() -> None:
    checked = validation.new_memory(
        NewMemory(user_id=" u ", companion_id="c", text="  hello  ", reason=" r ")
    )
    assert (checked.user_id, checked.text, checked.reason) == ("u", "hello", "r")


def _record(**overrides: object) -> dict[str, object]:
    base: dict[str, object] = {
        "id": str(uuid.uuid4()),
        "user_id": "u",
        "companion_id": "c",
        "type": "ProfileFact",
        "text": "The user is allergic to peanuts.",
        "importance": 0.9,
        "created_at": "2026-01-01T00:00:00+00:00",
    }
    base.update(overrides)
    return base


def test_record_round_trip_keeps_every_exported_field() -> None:
    memory = memory_line.memory_from_record(
        _record(
            pinned=True,
            status="archived",
            held_until_stage="close",
            use_count=3,
            expires_at="2027-01-01T00:00:00+00:00",
            last_used_at="2026-02-01T00:00:00+00:00",
        )
    )
    again = memory_line.memory_to_record(memory)
    assert set(again) == set(memory_line.EXPORT_FIELDS)
    assert memory_line.memory_from_record(again) == memory
    assert memory.expires_at == datetime(2027, 1, 1, tzinfo=UTC)


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"id": "not-a-uuid"}, "id is not a UUID"),
        ({"type": "Gossip"}, "Unknown memory type"),
        ({"importance": 2}, "importance must be between 0 and 1"),
        ({"text": ""}, "empty"),
        ({"text": 5}, "empty"),
        ({"status": "deleted"}, "status must be"),
        ({"created_at": "yesterday"}, "not an ISO 8601"),
        ({"created_at": "2026-01-01T00:00:00"}, "needs a time zone"),
        ({"use_count": -1}, "use_count"),
        ({"pinned": "yes"}, "pinned must be true or false"),
        ({"colour": "red"}, "unknown field"),
        ({"held_until_stage": "married"}, "Unknown relationship stage"),
    ],
)
def test_bad_records_name_the_problem(overrides: dict[str, object], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        memory_line.memory_from_record(_record(**overrides))


def test_missing_fields_are_named() -> None:
    record = _record()
    del record["text"]
    del record["user_id"]
    with pytest.raises(ValidationError, match="missing field\\(s\\): user_id, text"):
        memory_line.memory_from_record(record)
