"""Consolidation in the background: each memory written since the last pass is judged against
its nearest older memories, off every write's path.

Every write path stores a memory marked "to consolidate" in the same transaction (PostgreSQL's
column default); a pass takes marked memories oldest first and, for each, commits what it
decides before it clears the mark, so a killed process loses no judgement it acted on (the
memory is judged again, and the outcomes are idempotent: a superseded memory is skipped, a
review question is asked once).

With a chat model (``[hygiene] judge = "on"`` and the model answers) it is asked for the
structured judgement (``domain.judgement``): duplicate -> merged (the new memory superseded by
the one it repeats, its wording in that one's history), updates -> the older one superseded,
contradicts -> a review item, unrelated -> nothing. A judgement that is unsure (low
confidence, malformed, timed out, naming a memory it was not shown) changes nothing and asks a
person; so does a "duplicate" where one wording denies what the other states
(``domain.denial.denial``), or where each states a particular the other does not,
unless the model's one wording states every particular of both (``domain.joining.says_both``:
a merge never drops a fact). A "duplicate" with a negation in one wording only, an idiom that
affirms ("never misses") denying nothing the other states, is merged into both wordings whole
(``domain.joining.keeps_both``); one the other says word for word is merged into it.
Without a chat model the rule decides: a repeat that differs in no particular is merged,
likely repeats and likely conflicts go to the review queue, failing those the nearest memory
at or above the rule's ask bar, and besides the nearest of the same type at the same-type
bar, the one of its type sharing most rare words with it, and the newest one a person is
already asked about with that nearest of its type (``Curator.asked_later``). Every action is
recorded with why, and undone by ``undo``.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from aria_mem.domain import judgement
from aria_mem.domain.hygiene import (
    EVENTS,
    Consolidation,
    HygieneRule,
    Outcome,
    ReviewItem,
    ReviewKind,
    asked_in_order,
    different_content,
    only_in,
    to_judge,
)
from aria_mem.domain.joining import both_wordings, keeps_both, says_both, turned_round, within
from aria_mem.domain.judgement import Judgement, Verdict
from aria_mem.domain.models import IndexState, Memory, MemoryStatus
from aria_mem.domain.records import MemoryChanges
from aria_mem.domain.unjoining import JOINED, KEPT_BOTH
from aria_mem.domain.usability import used_differently
from aria_mem.errors import ChatModelError, NotFoundError, SaidElsewhereError, ValidationError
from aria_mem.ports import ChatModel, Hygiene, MemoryRepository, RetrievalReads
from aria_mem.services.curator import NEIGHBOURS, Curator, Look, Neighbour, with_words, word_matches
from aria_mem.services.pass_undo import undo_action
from aria_mem.services.writer import MemoryWriter

log = logging.getLogger(__name__)

SEARCHED = 40
"""How many of the nearest memories a pass reads, to pick those the chat model is shown
(``domain.hygiene.to_judge``: the three nearest, those sharing a name, kin word, number or
rare word, those of the same type, then the nearest): with the three nearest only, 7 of 48
changed facts of the hygiene set were never put to the judge (a move reads unlike the old
address); with 8 of the 20 nearest, 3 (a new partner and the break-up, 0.22)."""
WORDS = 10
"""How many of the word search's matches a pass reads besides (a rare word shared: "went
back to the firm" / "an architect at a large firm", similarity 0.09)."""
BATCH = 100
"""Marked memories read at a time."""


@dataclass
class TidyReport:
    """What one pass did."""

    looked: int = 0
    merged: int = 0
    superseded: int = 0
    queued: int = 0
    """Review items asked of a person (unsure judgements and contradictions among them)."""
    unsure: int = 0
    left: int = 0
    """Judged unrelated to every near memory, or near none: nothing to do."""
    waiting: int = 0
    """Still marked: not indexed yet, or the embedding model or the index did not answer."""
    judge: str = ""
    """The chat model that judged, or "" (the rule decided)."""
    notes: list[str] = field(default_factory=list)
    actions: list[Consolidation] = field(default_factory=list)


class _Unreachable(Exception):
    """The embedding model or the index did not answer: the pass stops, nothing is lost."""


class Consolidator:
    def __init__(
        self,
        memories: MemoryRepository,
        hygiene: Hygiene,
        curator: Curator,
        writer: MemoryWriter,
        judge: ChatModel | None,
        rule: HygieneRule | None = None,
        words: RetrievalReads | None = None,
    ) -> None:
        """``judge``: the chat model to ask (None: the rule decides); ``rule``: the bars the
        rule asks a person at (its ``ask_similarity`` and ``kind_similarity``; None: the
        rule's proposals only); ``words``: the word search, whose matches the judge is shown
        too (None: the nearest by meaning only)."""
        self._rule = rule
        self._words = words
        self._memories = memories
        self._hygiene = hygiene
        self._curator = curator
        self._writer = writer
        self._judge = judge

    def pending(self, owner: tuple[str, str] | None = None) -> int:
        return len(self._hygiene.to_consolidate(1_000_000, owner))

    def run(
        self,
        *,
        owner: tuple[str, str] | None = None,
        limit: int | None = None,
        progress: Callable[[int, int], None] | None = None,
        should_stop: Callable[[], bool] = lambda: False,
    ) -> TidyReport:
        """One pass over the marked memories (of ``owner`` when given), at most ``limit``;
        ``progress(done, total)`` after each."""
        report = TidyReport()
        judge = self._usable_judge(report)
        total = self.pending(owner) if progress is not None else 0
        skipped: set[uuid.UUID] = set()
        while limit is None or report.looked < limit:
            batch = [
                m
                for m in self._hygiene.to_consolidate(BATCH + len(skipped), owner)
                if m.id not in skipped
            ]
            if not batch or should_stop():
                break
            for memory in batch:
                if (limit is not None and report.looked >= limit) or should_stop():
                    break
                try:
                    done = self._one(memory, judge, report)
                except _Unreachable as exc:
                    report.waiting += 1
                    report.notes.append(f"stopped, the rest waits for the next pass: {exc}")
                    return report
                except NotFoundError as exc:  # it, or one judged against it, forgotten meanwhile
                    report.notes.append(f"left for the next pass: {exc}")
                    done = False
                if not done:
                    skipped.add(memory.id)
                    report.waiting += 1
                report.looked += 1
                if progress is not None:
                    progress(report.looked, max(total, report.looked))
        return report

    def _usable_judge(self, report: TidyReport) -> ChatModel | None:
        if self._judge is None:
            return None
        try:
            self._judge.check()
        except ChatModelError as exc:
            report.notes.append(f"the chat model did not answer, the rule decided: {exc}")
            return None
        report.judge = self._judge.model_name
        return self._judge

    def _one(self, memory: Memory, judge: ChatModel | None, report: TidyReport) -> bool:
        """Judge one marked memory; False when it has to wait (the mark stays)."""
        if memory.status is not MemoryStatus.ACTIVE:
            self._hygiene.consolidated(memory.id, None)
            return True
        if memory.index_state is IndexState.PENDING:
            return False
        look = self._curator.look(memory, older_only=True, count=SEARCHED)
        if look.problem is not None:
            raise _Unreachable(look.problem)
        if not look.neighbours:
            report.left += 1
            self._hygiene.consolidated(memory.id, None)
            return True
        if judge is not None:
            known, wordy = with_words(self._words, memory, look.neighbours, WORDS)
            chosen = to_judge(
                memory.text,
                [n.memory.text for n in known],
                new_type=memory.type,
                known_types=[n.memory.type for n in known],
                sharing_words=wordy,
            )
            shown = [known[i] for i in chosen]
            action = self._judged(memory, shown, judge, report)
        else:
            action = self._ruled(memory, look.neighbours, report)
        self._hygiene.consolidated(memory.id, action)
        if action is not None:
            report.actions.append(action)
        else:
            report.left += 1
        return True

    def _judged(
        self, memory: Memory, shown: list[Neighbour], model: ChatModel, report: TidyReport
    ) -> Consolidation | None:
        try:
            raw = model.complete(
                judgement.request(
                    memory.text,
                    [n.memory.text for n in shown],
                    new_type=memory.type.value,
                    known_types=[n.memory.type.value for n in shown],
                ),
                json_schema=judgement.SCHEMA,
            )
            answer: Judgement = judgement.parse(raw, len(shown))
        except ChatModelError as exc:
            answer = judgement.unsure(f"no answer: {exc}")
        if answer.unsure is not None:
            report.unsure += 1
            target = shown[answer.target] if answer.target is not None else shown[0]
            kind = ReviewKind.MERGE if answer.verdict is Verdict.DUPLICATE else ReviewKind.CONFLICT
            said = f", it said {answer.verdict.value}" if answer.target is not None else ""
            return self._ask(
                memory, target, kind, f"unsure judgement ({answer.unsure}{said})", report
            )
        if answer.target is None:
            return None
        target = shown[answer.target]
        why = f"judged {answer.verdict.value} ({answer.confidence:.2f}): {answer.reason}"
        why = why.rstrip(": ")
        apart = used_differently(memory, target.memory)
        if apart and answer.verdict is not Verdict.CONTRADICTS:  # kept apart, and asked
            kind = ReviewKind.MERGE if answer.verdict is Verdict.DUPLICATE else ReviewKind.CONFLICT
            return self._ask(memory, target, kind, f"{why}, but {apart}", report)
        if answer.verdict is Verdict.DUPLICATE:
            new_only = only_in(memory.text, target.memory.text)
            old_only = only_in(target.memory.text, memory.text)
            for part, whole in ((memory, target.memory), (target.memory, memory)):
                if within(part.text, whole.text):  # one says the other word for word
                    return self._fold(part, whole, why, report)
            if keeps_both(memory.text, target.memory.text):
                both = both_wordings(target.memory.text, memory.text)
                return self._join(memory, target.memory, both, why, KEPT_BOTH, report)
            turned = turned_round(memory.text, target.memory.text)
            if turned:
                return self._ask(
                    memory, target, ReviewKind.CONFLICT, f"{why}, but {turned}", report
                )
            if new_only and old_only:
                if answer.merged and says_both(answer.merged, memory.text, target.memory.text):
                    wording = answer.merged
                    return self._join(memory, target.memory, wording, why, JOINED, report)
                differs = different_content(memory.text, target.memory.text)
                return self._ask(memory, target, ReviewKind.MERGE, f"{why}, but {differs}", report)
            if new_only:  # the new wording says all the older one does, and more: it stays
                fuller = f"{why}; the new wording says more"
                return self._fold(target.memory, memory, fuller, report)
            return self._fold(memory, target.memory, why, report)
        if answer.verdict is Verdict.UPDATES:
            return self._supersede(memory, target, why, report)
        return self._ask(memory, target, ReviewKind.CONFLICT, why, report)

    def _ruled(
        self, memory: Memory, neighbours: list[Neighbour], report: TidyReport
    ) -> Consolidation | None:
        """The rule on the nearest few; failing a proposal, the nearest at the ask bar; and
        besides, the nearest of the same type at the same-type bar (a new job reads unlike
        the old one: 0.2 to 0.4 under MiniLM) and the one of its type the word search
        matches best ("an architect at a large firm" / "went back to the firm", 0.09), and
        the later value that nearest one is asked about with (a third job and the second),
        each put to a person. Not the word match for an event (``domain.hygiene.EVENTS``)."""
        decision = self._curator.decide(memory, Look(neighbours[:NEIGHBOURS]))
        repeat = decision.merge_into
        apart = used_differently(memory, repeat.memory) if repeat else None
        if repeat is not None and apart is None:
            return self._fold(memory, repeat.memory, decision.why, report)
        asks = list(decision.proposals)
        if repeat is not None:
            asks.append((ReviewKind.MERGE, repeat, f"{decision.why}, but {apart}"))
        nearest = neighbours[0]
        rule = self._rule
        if not asks and rule and nearest.similarity >= rule.ask_similarity:
            why = f"near in meaning ({nearest.similarity:.2f}): the same fact, or a change of it?"
            asks.append((self._kind(memory, nearest), nearest, why))
        asked = {n.memory.id for _, n, _ in asks}
        same = next((n for n in neighbours if n.memory.type is memory.type), None)
        if (
            same
            and rule
            and same.memory.id not in asked
            and same.similarity >= rule.kind_similarity
        ):
            kind = memory.type.value
            why = f"the nearest {kind} ({same.similarity:.2f}): the same fact, or a change?"
            asks.append((self._kind(memory, same), same, why))
            asked.add(same.memory.id)
        wanted = rule is not None and memory.type not in EVENTS
        matches = word_matches(self._words, memory, WORDS) if wanted else []
        wordy = next((m for m in matches if m.memory.type is memory.type), None)
        if wordy and rule and wordy.memory.id not in asked:
            kind = memory.type.value
            why = f"the {kind} that shares most of its rare words: the same fact, or a change?"
            asks.append((self._kind(memory, wordy), wordy, why))
        if same and rule and same.similarity >= rule.ask_similarity:
            later = self._curator.asked_later(memory, same, rule)
            if later and later.memory.id not in asked:
                kind = memory.type.value
                why = (
                    f"a later {kind} than the nearest, asked about with it: the same, or a change?"
                )
                asks.append((self._kind(memory, later), later, why))
        first: Consolidation | None = None
        for kind, neighbour, why in asks:
            done = self._ask(memory, neighbour, kind, why, report)
            first = first or done
        return first

    @staticmethod
    def _kind(memory: Memory, other: Neighbour) -> ReviewKind:
        """A conflict when the two say different particulars, else a likely merge."""
        differs = different_content(memory.text, other.memory.text)
        return ReviewKind.CONFLICT if differs else ReviewKind.MERGE

    def _action(self, memory: Memory, other: Memory, outcome: Outcome, why: str) -> Consolidation:
        return Consolidation(
            uuid.uuid4(),
            memory.user_id,
            memory.companion_id,
            memory.id,
            other.id,
            outcome,
            why,
            datetime.now(UTC),
        )

    def _fold(self, folded: Memory, kept: Memory, why: str, report: TidyReport) -> Consolidation:
        """``folded`` is merged into ``kept`` (the action names them in that order)."""
        self._hygiene.fold(folded.id, kept.id, why)
        if folded.pinned and not kept.pinned:  # a person's pin stays on the fact
            self._writer.update(kept.id, MemoryChanges(pinned=True))
        self._writer.sync(self._memories.get(folded.id))
        report.merged += 1
        return self._action(folded, kept, Outcome.MERGED, why)

    def _join(
        self, new: Memory, older: Memory, wording: str, why: str, how: str, report: TidyReport
    ) -> Consolidation:
        """A duplicate no one wording of the two stands for: the older memory takes one that
        says all both do (the judge's, checked by ``says_both``, or both whole where one has a
        negation: ``keeps_both``; its text before stays in its history), then the new one is
        merged into it. ``how`` ends the merge's reason, for undo: ``JOINED``, ``KEPT_BOTH``."""
        try:
            self._writer.update(older.id, MemoryChanges(text=wording, joins=new.id))
        except SaidElsewhereError:  # asked instead: a clash stopped every pass here
            asked = f"{why}, but another memory already says that wording"
            return self._ask(new, Neighbour(older, 0.0), ReviewKind.MERGE, asked, report)
        except ValidationError as exc:
            target = Neighbour(older, 0.0)
            return self._ask(new, target, ReviewKind.MERGE, f"{why}, but {exc}", report)
        return self._fold(new, older, f"{why}; {how}", report)

    def _supersede(
        self, memory: Memory, old: Neighbour, why: str, report: TidyReport
    ) -> Consolidation:
        self._writer.sync(self._hygiene.supersede(old.memory.id, memory.id, why))
        report.superseded += 1
        return self._action(memory, old.memory, Outcome.SUPERSEDED, why)

    def _ask(
        self, memory: Memory, other: Neighbour, kind: ReviewKind, why: str, report: TidyReport
    ) -> Consolidation:
        first, second = asked_in_order(kind, other.memory, memory)
        item = ReviewItem(
            uuid.uuid4(),
            memory.user_id,
            memory.companion_id,
            kind,
            first.id,
            second.id,
            why,
            datetime.now(UTC),
        )
        report.queued += self._hygiene.propose(item)
        return self._action(memory, other.memory, Outcome.REVIEW, why)

    def undo(self, action: Consolidation) -> str:
        """Undo what a pass did (``services.pass_undo``); what was done, in words."""
        return undo_action(action, self._writer, self._hygiene)
