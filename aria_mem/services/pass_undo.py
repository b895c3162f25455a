"""Undoing what a consolidation pass did: a merge or a supersession restored, a question it
asked withdrawn, and a join's older memory given back its own wording."""

from __future__ import annotations

import uuid
from datetime import datetime

from aria_mem.domain.hygiene import Consolidation, EventKind, Outcome
from aria_mem.domain.records import MemoryChanges
from aria_mem.domain.unjoining import JOINED, KEPT_BOTH
from aria_mem.errors import SaidElsewhereError, ValidationError
from aria_mem.ports import Hygiene
from aria_mem.services.writer import MemoryWriter


def undo_action(action: Consolidation, writer: MemoryWriter, hygiene: Hygiene) -> str:
    """Undo what a pass did: a merged or superseded memory is restored, a question it
    asked withdrawn. What was done, in words."""
    if action.undone_at is not None:
        raise ValidationError("That pass action was undone already — nothing to undo")
    if action.outcome is Outcome.MERGED:
        writer.restore(action.memory_id, "a pass's merge undone")
        done = "the merged memory is its own again"
        if action.reason.endswith((JOINED, KEPT_BOTH)) and action.other_id is not None:
            done += _unjoin(writer, hygiene, action.other_id, action.memory_id, action.at)
    elif action.outcome is Outcome.SUPERSEDED:
        if action.other_id is None:
            raise ValidationError("This pass action names only one memory")
        writer.restore(action.other_id, "a pass's supersession undone")
        done = "the superseded memory is active again"
    else:
        asked = [
            item
            for item in hygiene.reviews(action.user_id, action.companion_id)
            if {item.memory_id, item.other_id} == {action.memory_id, action.other_id}
        ]
        for item in asked:
            hygiene.close_review(item.id)
        done = (
            "the question was withdrawn"
            if asked
            else "the question is no longer open as asked (answered, or moved to a memory that "
            "now stands for one of the two), so nothing was withdrawn"
        )
    hygiene.mark_undone(action.id)
    return done


def _unjoin(
    writer: MemoryWriter,
    hygiene: Hygiene,
    older_id: uuid.UUID,
    joined_id: uuid.UUID,
    joined_at: datetime,
) -> str:
    """The older memory of a join takes back the text it had before the joined wording (its
    history's last edit up to the join) while it still holds the wording the join gave it: the
    text before the next edit, or its text now. A later join undone first gives that wording
    back, so joins undo latest first; an edit since, a person's or a later join's still in place,
    is left alone and named."""
    edits = sorted(
        (
            e
            for e in hygiene.events([older_id])
            if e.kind is EventKind.EDITED and e.memory_id == older_id and e.text
        ),
        key=lambda e: e.at,
    )
    before = [e for e in edits if e.at <= joined_at]
    after = [e for e in edits if e.at > joined_at]
    now = writer.text_of(older_id)
    if not before or now != (after[0].text if after else now):
        return (
            "; the older memory's wording was changed since (by a person, or by a later join: "
            "undo that one first) and stays as it is"
        )
    try:
        own = MemoryChanges(text=before[-1].text or "", unjoins=joined_id)  # no joined words kept
        writer.update(older_id, own)
    except SaidElsewhereError:  # the merged memory is back already: the undo is not left half
        return (
            "; the older memory's own wording is now another memory's, so it keeps the joined "
            "one (`aria-mem edit` it)"
        )
    return "; the older memory has its own wording again"
