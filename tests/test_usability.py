"""The usability rule is written twice, in Python (domain.usability) and in SQL (what
PostgreSQL filters with): over random memories and relationship stages, they agree."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aria_mem.adapters.postgres.store import PostgresStore
from aria_mem.domain.models import MemoryStatus, NewMemory, Stage
from aria_mem.domain.records import MemoryChanges
from aria_mem.domain.usability import is_usable, unusable_reason

STAGES = st.sampled_from(list(Stage))
HOURS = st.one_of(st.none(), st.integers(min_value=-240, max_value=240).filter(lambda h: h != 0))
"""An expiry that many hours from now (never within the hour: the two clocks differ a little)."""


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    memories=st.lists(
        st.tuples(st.booleans(), HOURS, st.one_of(st.none(), STAGES)), min_size=1, max_size=6
    ),
    stage=st.one_of(st.none(), STAGES),
)
def test_python_and_sql_agree_on_which_memories_may_be_used(
    store: PostgresStore,
    memories: list[tuple[bool, int | None, Stage | None]],
    stage: Stage | None,
) -> None:
    user = f"u-{uuid.uuid4().hex[:8]}"
    now = datetime.now(UTC)
    if stage is not None:
        store.relationships.set_stage(user, "aria", stage)
    ids = []
    for n, (archived, hours, held) in enumerate(memories):
        expires = None if hours is None else now + timedelta(hours=hours)
        memory = store.memories.save(
            NewMemory(
                user_id=user,
                companion_id="aria",
                text=f"fact {n}",
                held_until_stage=held,
                expires_at=expires,
            )
        ).memory
        if archived:
            store.memories.edit(memory.id, MemoryChanges(status=MemoryStatus.ARCHIVED))
        ids.append(memory.id)
    judged = store.reads.fetch_with_usability(ids, timeout=5)
    effective = stage or Stage.EARLY
    for memory, sql_says in judged.values():
        python_says = is_usable(memory, effective, datetime.now(UTC))
        assert python_says == sql_says, (memory, effective, unusable_reason(memory, effective, now))
    profile_stage, _ = store.reads.retrieval_context(user, "aria", timeout=5)
    assert profile_stage is effective


def test_two_memories_stand_for_each_other_only_when_used_alike() -> None:
    """A merge keeps one row: its hold and its end must be the other's too (to the day, so two
    wordings of a fact that lasts a week, said minutes apart, still merge)."""
    from dataclasses import replace

    from aria_mem.domain.models import MemoryType
    from aria_mem.domain.usability import used_differently

    week = datetime.now(UTC) + timedelta(days=7)
    plain = NewMemory("u", "c", "The user is in Rome this week.", MemoryType.EPISODIC_EVENT)
    ending = replace(plain, expires_at=week)
    assert used_differently(plain, replace(plain, text="x")) is None
    assert used_differently(ending, replace(ending, expires_at=week + timedelta(minutes=3))) is None
    assert used_differently(plain, ending) == "one expires and the other does not"
    later = replace(ending, expires_at=week + timedelta(days=3))
    assert used_differently(ending, later) == "they expire at different times"
    held = replace(plain, held_until_stage=Stage.CLOSE)
    assert "held until a closer stage" in (used_differently(plain, held) or "")
