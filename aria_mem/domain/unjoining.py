"""What forgetting a memory a pass joined into another gives that other back: free of I/O.

A join (``services.consolidator``) gives the older memory a wording that states what both say,
then merges the newer one into it. The older memory's text then holds the newer one's words,
and forget means gone (docs/design.md): so forgetting the newer one gives the older one its own
wording back, the text it had before the join, in the forget's transaction, and records nothing
(the history would otherwise keep the joined wording as "the text before"). The join's edit
names the memory whose words it took in (``MemoryChanges.joins``), so the text to give back is
known exactly.

When that would leave the words somewhere or lose a fact, nothing is guessed: if the older
memory changed, was said again or was asked about after the join (its history, a restatement
or a question may hold the joined wording), if its wording went on into another memory, if the
two were joined twice, or if the join was made before aria-mem recorded what it took in, the
forget is refused and says what to forget first (``own_wording``). Nothing is lost and nothing
is left.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import timedelta
from typing import Any

from aria_mem.domain.hygiene import Consolidation, EventKind, MemoryEvent, Outcome
from aria_mem.domain.records import MemoryChanges
from aria_mem.errors import ValidationError

JOINED = "both said in one wording"
"""How a join's reason ends (a duplicate merged into a wording that states both): its undo
also gives the older memory back its own wording."""
KEPT_BOTH = "kept both wordings: one says it with a negation"
"""How the reason ends for a duplicate merged into both wordings whole (one has a negation
the other does not): undone as a join."""


def is_join(action: Consolidation) -> bool:
    """A pass's merge, not undone, that gave the older memory (``other_id``) a wording holding
    the merged one's words."""
    return (
        action.outcome is Outcome.MERGED
        and action.undone_at is None
        and action.other_id is not None
        and action.reason.endswith((JOINED, KEPT_BOTH))
    )


CHANGES = frozenset({EventKind.EDITED, EventKind.MERGED, EventKind.REPLACES, EventKind.SUPERSEDED})
"""What happening to the older memory after the join means it changed since: its text, a
repeat merged into it (it may restate the joined words, or be a fact only the joined wording
holds), or a judgement against the joined wording."""


CLOCK_SLACK = timedelta(minutes=1)
"""A question or a pass's action dated up to this long before the join counts as made after it:
their times come from the program's clock, the join's from PostgreSQL's, which may run ahead
(a server elsewhere). Refusing a forget too often is safe; giving back a wording a question
quotes the joined words beside is not."""


UNJOINED = "its own wording again: the join undone"
"""The detail of the edit an undone join records: it names the memory joined in, and keeps no
text (the text before it was the joined wording, which forgetting that memory must not leave
behind)."""


def edit_record(before: str, changes: MemoryChanges) -> dict[str, Any]:
    """What the history records of an edit of a memory's text from ``before``: the text
    before, and the memory a join took words from; for an undone join, no text at all."""
    if changes.unjoins is not None:
        return {"text": None, "other_id": changes.unjoins, "detail": UNJOINED}
    return {"text": before, "other_id": changes.joins}


def join_edit(forgotten: uuid.UUID, kept: uuid.UUID, history: Sequence[MemoryEvent]) -> int:
    """Where in ``kept``'s ``history`` (oldest first) is the first edit by which a join gave it
    the words of ``forgotten`` (that event's text: the one ``kept`` had before). A join undone
    (``UNJOINED``, naming ``forgotten`` with no text) and made again adds a second, after."""
    marks = [
        i
        for i, e in enumerate(history)
        if e.kind is EventKind.EDITED and e.memory_id == kept and e.other_id == forgotten and e.text
    ]
    if not marks:
        raise _refused(forgotten, kept, "before aria-mem recorded what a join took in")
    return marks[0]


def own_wording(
    forgotten: uuid.UUID,
    kept: uuid.UUID,
    history: Sequence[MemoryEvent],
    *,
    merged_on: bool,
    asked_since: bool,
    said_since: bool,
) -> str:
    """The text ``kept`` had before the join that took in ``forgotten``'s words; a
    ``ValidationError`` when giving it back would leave those words or lose a fact: when
    ``kept`` changed after the join (``CHANGES``, but for the join's own merge), was merged
    into another memory (``merged_on``), was asked or judged about since (``asked_since``: a
    question or a pass's action naming it, made after the join less ``CLOCK_SLACK``, may
    quote the joined words), or its joined wording was said again or confirmed since
    (``said_since``: a person's statement of both facts, which records no event)."""
    at = join_edit(forgotten, kept, history)
    changed = any(e.kind in CHANGES and e.other_id != forgotten for e in history[at + 1 :])
    if changed or merged_on or asked_since or said_since:
        raise _refused(forgotten, kept, "and that memory has changed or been judged since")
    return history[at].text or ""


def wording_taken(forgotten: uuid.UUID, kept: uuid.UUID) -> ValidationError:
    """The refusal when the text to give back is now another memory's wording."""
    return _refused(forgotten, kept, "and its own wording is now another memory's")


def _refused(forgotten: uuid.UUID, kept: uuid.UUID, why: str) -> ValidationError:
    return ValidationError(
        f"Memory {forgotten}'s words were joined into memory {kept} by a consolidation pass, "
        f"{why}: forgetting {forgotten} alone would leave its words there — forget {kept} first "
        f"(its own fact goes with it), then {forgotten}"
    )
