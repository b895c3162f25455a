"""The rule that puts a question about memories as they stand when it is queued
(``domain.asking.as_it_stands``), on memories built in memory; the stores' side is in
tests/test_hygiene.py and tests/test_question_locks.py."""

from __future__ import annotations

import uuid
from dataclasses import replace
from datetime import datetime, timedelta

from aria_mem.domain.asking import MAX_MOVES, as_it_stands
from aria_mem.domain.hygiene import ReviewItem, ReviewKind
from aria_mem.domain.models import Memory, MemoryStatus
from tests.factories import NOW, make_memory


def _question(kind: ReviewKind, first: Memory, second: Memory | None) -> ReviewItem:
    other = None if second is None else second.id
    return ReviewItem(uuid.uuid4(), "u1", "aria", kind, first.id, other, "Q?", NOW)


def _at(hours: int) -> datetime:
    return NOW - timedelta(hours=100 - hours)


def _stands(
    item: ReviewItem,
    memories: list[Memory],
    merges: dict[tuple[uuid.UUID, uuid.UUID], datetime],
    *,
    retired_stand: bool = False,
) -> ReviewItem | None:
    known = {m.id: m for m in memories}
    return as_it_stands(
        item,
        known.get,
        lambda gone, holder: merges.get((gone.id, holder.id)),
        retired_stand=retired_stand,
    )


def test_a_question_about_active_memories_is_asked_as_it_is() -> None:
    first, second = make_memory("Lives in Nice."), make_memory("Lives in Lyon.")
    item = _question(ReviewKind.CONFLICT, first, second)
    assert _stands(item, [first, second], {}) is item


def test_a_merge_an_earlier_version_confirmed_at_its_own_time_does_not_count_as_said() -> None:
    """A pass's merge by an earlier aria-mem stamped the kept memory confirmed at the merge:
    while that is its last confirmation, it counts as said when written (or when the merged
    one was said), so a change said after both is asked second; a later confirmation (said
    again since) counts."""
    merged_at = _at(90)
    kept = make_memory("Lives in Nice.", created_at=_at(1), last_confirmed_at=merged_at)
    gone = make_memory(
        "Nice.", created_at=_at(2), status=MemoryStatus.SUPERSEDED, superseded_by=kept.id
    )
    change = make_memory("Moved to Lyon.", created_at=_at(3))
    item = _question(ReviewKind.CONFLICT, gone, change)
    merges = {(gone.id, kept.id): merged_at}
    asked = _stands(item, [kept, gone, change], merges)
    assert asked is not None and (asked.memory_id, asked.other_id) == (kept.id, change.id)
    assert asked.reason.startswith("asked first about a memory since merged into")

    said_again = replace(kept, last_confirmed_at=_at(95))  # not the merge's own time
    asked = _stands(item, [said_again, gone, change], merges)
    assert asked is not None and (asked.memory_id, asked.other_id) == (change.id, kept.id)


def test_a_chain_is_followed_and_a_retired_forgotten_or_joined_pair_is_not_asked() -> None:
    last = make_memory("Lives in Lyon.", created_at=_at(5))
    middle = make_memory(
        "Lives in Nice.", created_at=_at(1), status=MemoryStatus.SUPERSEDED, superseded_by=last.id
    )
    first = make_memory(
        "Nice.", created_at=_at(2), status=MemoryStatus.SUPERSEDED, superseded_by=middle.id
    )
    other = make_memory("Swims in the sea.", created_at=_at(3))
    item = _question(ReviewKind.MERGE, first, other)
    asked = _stands(item, [last, middle, first, other], {(first.id, middle.id): _at(4)})
    assert asked is not None and {asked.memory_id, asked.other_id} == {last.id, other.id}
    assert asked.kind is ReviewKind.CONFLICT  # the last step replaced: a likely change
    assert asked.reason.startswith(
        f"asked first about a memory since replaced by {str(last.id)[:8]}"
    )

    retired = replace(other, status=MemoryStatus.ARCHIVED)
    assert _stands(item, [last, middle, first, retired], {}) is None
    assert _stands(item, [last, middle, first], {}) is None  # the other forgotten
    joined = _question(ReviewKind.MERGE, first, last)
    assert _stands(joined, [last, middle, first], {}) is None  # the two are one now
    retire = _question(ReviewKind.RETIRE, first, None)
    assert _stands(retire, [last, middle, first], {}) is None


def test_a_loop_of_supersessions_ends() -> None:
    """A chain that comes back on itself (data no version writes) is followed at most
    ``MAX_MOVES`` times, then not asked."""
    one = make_memory("A.", status=MemoryStatus.SUPERSEDED)
    two = make_memory("B.", status=MemoryStatus.SUPERSEDED, superseded_by=one.id)
    one = replace(one, superseded_by=two.id)
    third = make_memory("C.")
    item = _question(ReviewKind.MERGE, one, third)
    assert _stands(item, [one, two, third], {}) is None
    assert MAX_MOVES >= 2


def test_a_question_never_follows_a_chain_to_another_pair_s_memory() -> None:
    """An imported chain may say a memory was superseded by another user's (or companion's):
    the question is then not asked, so one pair's review queue never shows another's
    memory."""
    elsewhere = make_memory("Lives in Oslo.", user_id="u2")
    gone = make_memory("Nice.", status=MemoryStatus.SUPERSEDED, superseded_by=elsewhere.id)
    other = make_memory("Swims in the sea.")
    item = _question(ReviewKind.MERGE, gone, other)
    assert _stands(item, [elsewhere, gone, other], {}) is None
    assert _stands(item, [replace(elsewhere, user_id="u1"), gone, other], {}) is not None


def test_settling_leaves_a_question_on_a_retired_memory_and_still_moves_one_superseded() -> None:
    """After an import, questions are moved off superseded memories as a merge moves them; one
    on a retired memory stays, as retiring leaves it (a new question about it is not asked)."""
    kept = make_memory("Lives in Lyon.")
    gone = make_memory("Nice.", status=MemoryStatus.SUPERSEDED, superseded_by=kept.id)
    retired = make_memory("Swims in the sea.", status=MemoryStatus.ARCHIVED)
    on_retired = _question(ReviewKind.MERGE, retired, kept)
    memories = [kept, gone, retired]
    assert _stands(on_retired, memories, {}, retired_stand=True) is on_retired
    assert _stands(on_retired, memories, {}) is None
    both = _question(ReviewKind.MERGE, gone, retired)
    moved = _stands(both, memories, {}, retired_stand=True)
    assert moved is not None and {moved.memory_id, moved.other_id} == {kept.id, retired.id}
