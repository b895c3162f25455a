"""What a new memory means for the ones already kept: a repeat to merge, a change to supersede
(by a chat model's judgement), or a likely conflict for a person to review.

It looks before the memory is stored: the new text is embedded and the index asked for the
pair's nearest usable memories. When the model or the index cannot answer, nothing is merged
or judged and the memory is stored as given (the writer says why).
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime

from aria_mem.domain import judgement
from aria_mem.domain.hygiene import (
    HygieneRule,
    ReviewItem,
    ReviewKind,
    is_likely_conflict,
    is_likely_repeat,
    is_repeat,
)
from aria_mem.domain.judgement import Judgement, Verdict
from aria_mem.domain.models import MEMORIES_COLLECTION, Memory, MemoryStatus, NewMemory, SearchScope
from aria_mem.domain.validation import normalize_text
from aria_mem.errors import ChatModelError, NotFoundError, ServiceError
from aria_mem.ports import ChatModel, Embedder, Hygiene, MemoryRepository, VectorIndex

log = logging.getLogger(__name__)

NEIGHBOURS = 5
"""How many of the nearest memories a new one is compared with."""
JUDGED = 3
"""How many of those a chat model is shown."""


@dataclass(frozen=True)
class Neighbour:
    memory: Memory
    similarity: float


@dataclass(frozen=True)
class Look:
    neighbours: list[Neighbour] = field(default_factory=list)
    """Active memories of the pair, nearest first."""
    problem: str | None = None


@dataclass(frozen=True)
class Decision:
    """What to do with a new memory."""

    merge_into: Neighbour | None = None
    supersedes: Neighbour | None = None
    proposals: list[tuple[ReviewKind, Neighbour, str]] = field(default_factory=list)
    """For a person to decide (`aria-mem review`): likely merges and likely conflicts."""
    why: str = ""


class Curator:
    def __init__(
        self,
        memories: MemoryRepository,
        hygiene: Hygiene,
        index: VectorIndex,
        embedder: Embedder,
        rule: HygieneRule,
    ) -> None:
        self._memories = memories
        self._hygiene = hygiene
        self._index = index
        self._embedder = embedder
        self._rule = rule

    def look(self, new: NewMemory) -> Look:
        """The pair's nearest active memories to the new text (by the stored vectors)."""
        try:
            vector = self._embedder.embed([new.text])[0]
            scope = SearchScope(new.user_id, new.companion_id, self._embedder.model_name)
            hits = self._index.search(
                MEMORIES_COLLECTION, vector, scope, NEIGHBOURS, with_payload=False
            )
        except ServiceError as exc:
            return Look(problem=f"not compared with known memories: {exc}")
        said = normalize_text(new.text)
        found = []
        for hit in hits:
            try:
                memory = self._memories.get(hit.id)
            except NotFoundError:
                continue
            if memory.status is not MemoryStatus.ACTIVE or memory.id == new.id:
                continue
            if normalize_text(memory.text) == said:  # the same words: the store confirms it
                continue
            found.append(Neighbour(memory, hit.score))
        return Look(found)

    def decide(self, new: NewMemory, look: Look, judge: ChatModel | None) -> Decision:
        """A chat model's judgement when one is given (and answers); else the rule: merge a
        repeat, and queue likely conflicts for review (never supersede without a judgement)."""
        if judge is not None and look.neighbours:
            judged = self._judge(judge, new, look)
            if judged is not None:
                return judged
        repeat = next(
            (n for n in look.neighbours if is_repeat(new.text, n.memory, n.similarity, self._rule)),
            None,
        )
        if repeat is not None:
            return Decision(
                merge_into=repeat,
                why=f"the same fact said again (similarity {repeat.similarity:.2f})",
            )
        proposals = []
        for n in look.neighbours:
            if is_likely_repeat(new.text, n.memory, n.similarity, self._rule):
                why = f"nearly the same fact (similarity {n.similarity:.2f})"
                proposals.append((ReviewKind.MERGE, n, why))
                continue
            conflict = is_likely_conflict(new.text, new.type, n.memory, n.similarity, self._rule)
            if conflict:
                proposals.append((ReviewKind.CONFLICT, n, conflict))
        return Decision(proposals=proposals)

    def _judge(self, model: ChatModel, new: NewMemory, look: Look) -> Decision | None:
        shown = look.neighbours[:JUDGED]  # the judge decides, however near they are
        try:
            raw = model.complete(
                judgement.request(new.text, [n.memory.text for n in shown]),
                json_schema=judgement.SCHEMA,
            )
        except ChatModelError as exc:
            log.warning("no judgement of a new memory (the rule decides): %s", exc)
            return None
        answer: Judgement = judgement.parse(raw, len(shown))
        if answer.target is None:
            return Decision(why=f"judged unrelated: {answer.reason}".rstrip(": "))
        target = shown[answer.target]
        why = f"judged {answer.verdict.value}: {answer.reason}".rstrip(": ")
        if answer.verdict is Verdict.DUPLICATE:
            if not is_repeat(new.text, target.memory, 1.0, self._rule):
                return Decision(
                    proposals=[(ReviewKind.CONFLICT, target, why + " (but their words differ)")]
                )
            return Decision(merge_into=target, why=why)
        return Decision(supersedes=target, why=why)

    def propose(self, new_memory: Memory, decision: Decision) -> int:
        """Queue each proposal for a person; how many were new."""
        queued = 0
        for kind, neighbour, why in decision.proposals:
            item = ReviewItem(
                uuid.uuid4(),
                new_memory.user_id,
                new_memory.companion_id,
                kind,
                neighbour.memory.id,
                new_memory.id,
                why,
                datetime.now(UTC),
            )
            queued += self._hygiene.propose(item)
        return queued
