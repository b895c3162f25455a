"""When a memory may go into a prompt: one rule, written in Python and in SQL.

A memory is usable when it is active, has not expired, and is not held until a closer
relationship stage than the user and companion have reached. PostgreSQL applies the SQL form
(``USABLE_SQL``) where it filters rows; Python applies ``unusable_reason`` where it already
holds the memory. ``tests/test_usability.py`` proves over random memories that the two agree.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from aria_mem.domain.models import DropReason, Memory, MemoryStatus, NewMemory, Stage

STAGE_ORDER_SQL = "array_position(ARRAY['early','established','close'], {})"
"""A stage's rank in SQL, in the order ``Stage`` grows."""

USABLE_SQL = (
    "m.status = 'active' AND (m.expires_at IS NULL OR m.expires_at > {now})"
    " AND (m.held_until_stage IS NULL OR "
    + STAGE_ORDER_SQL.format("coalesce(r.stage, 'early')")
    + " >= "
    + STAGE_ORDER_SQL.format("m.held_until_stage")
    + ")"
)
"""The rule in SQL over ``memories m LEFT JOIN relationships r`` (a pair with no row is early);
``{now}`` is the clock: ``now()`` in every query, a parameter in the test that compares."""


def usable_sql(now: str = "now()") -> str:
    return USABLE_SQL.format(now=now)


def unusable_reason(memory: Memory, stage: Stage, now: datetime) -> DropReason | None:
    """Why the memory may not be used now, or None when it may."""
    if memory.status is MemoryStatus.SUPERSEDED:
        return DropReason.SUPERSEDED
    if memory.status is not MemoryStatus.ACTIVE:
        return DropReason.ARCHIVED
    if memory.expires_at is not None and memory.expires_at <= now:
        return DropReason.EXPIRED
    if not stage.allows(memory.held_until_stage):
        return DropReason.HELD
    return None


def is_usable(memory: Memory, stage: Stage, now: datetime) -> bool:
    return unusable_reason(memory, stage, now) is None


def used_differently(first: Memory | NewMemory, second: Memory | NewMemory) -> str | None:
    """Why one of two memories cannot stand for the other (None: as to when each may be
    used, it can): one is held until a stage of the relationship the other is not, or they
    expire more than ``SAME_END`` apart. A merge or a supersession keeps one of them, so it
    would hide a fact usable now, or bring held words into prompts early: a person is asked
    instead."""
    if first.held_until_stage != second.held_until_stage:
        return "one is held until a closer stage of the relationship than the other"
    ends = first.expires_at, second.expires_at
    if ends[0] is None or ends[1] is None:
        return None if ends[0] is ends[1] else "one expires and the other does not"
    return "they expire at different times" if abs(ends[0] - ends[1]) > SAME_END else None


def renewed_end(kept: datetime | None, said: datetime | None) -> datetime | None:
    """When a fact said again in the same words stops being usable: at the end it is said
    with now when that is later than the stored one, else at the stored one. Only the stored
    end left a fact said again with a new end after it had expired out of every prompt; a
    saying without an end (the chat's extraction can give none) or with a sooner one never
    changes it, so a week's trip mentioned again does not become a lasting fact."""
    return said if kept is not None and said is not None and said > kept else kept


LATER_END_SQL = "EXCLUDED.expires_at > memories.expires_at"
"""``renewed_end``'s test in an ``INSERT INTO memories ... ON CONFLICT DO UPDATE``: true only
when both ends are set and the new one is later."""


SAME_END = timedelta(days=1)
"""Two wordings of a fact that lasts "a week", said a few minutes apart, end together."""
