"""What a new memory means for the ones already kept, by the rule (no judgement): a repeat to
merge, or a likely repeat or conflict for a person to review.

The writer looks before a memory is stored and merges only a repeat that differs in no
particular (safe on the write path); a consolidation pass (``services.consolidator``) looks
again after, and asks the chat model or queues the rule's proposals. When the embedding model
or the index cannot answer, nothing is merged and the memory is stored as given.
"""

from __future__ import annotations

import logging
import math
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime

from aria_mem.domain.hygiene import (
    HygieneRule,
    ReviewItem,
    ReviewKind,
    is_likely_conflict,
    is_likely_repeat,
    is_repeat,
    last_said,
)
from aria_mem.domain.models import MEMORIES_COLLECTION, Memory, MemoryStatus, NewMemory, SearchScope
from aria_mem.domain.validation import normalize_text
from aria_mem.errors import NotFoundError, ServiceError
from aria_mem.ports import Embedder, Hygiene, MemoryRepository, RetrievalReads, VectorIndex

log = logging.getLogger(__name__)

NEIGHBOURS = 5
"""How many of the nearest memories a new one is compared with."""


@dataclass(frozen=True)
class Neighbour:
    memory: Memory
    similarity: float


@dataclass(frozen=True)
class Look:
    neighbours: list[Neighbour] = field(default_factory=list)
    """Active memories of the pair, nearest first."""
    problem: str | None = None
    said_before: bool = False
    """An active memory of the pair says it in the same words (the store confirms that one)."""


@dataclass(frozen=True)
class Decision:
    """What to do with a new memory."""

    merge_into: Neighbour | None = None
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

    def look(
        self, new: NewMemory | Memory, *, older_only: bool = False, count: int = NEIGHBOURS
    ) -> Look:
        """The pair's nearest active memories to the new text (by the stored vectors), of the
        ``count`` nearest; ``older_only``: only those written before it was last said (a pass
        judges a memory against what was known when it was said: a replaced fact said again
        is judged against what replaced it)."""
        try:
            vector = self._embedder.embed([new.text])[0]
            scope = SearchScope(new.user_id, new.companion_id, self._embedder.model_name)
            hits = self._index.search(MEMORIES_COLLECTION, vector, scope, count, with_payload=False)
        except ServiceError as exc:
            return Look(problem=f"not compared with known memories: {exc}")
        said = normalize_text(new.text)
        found = []
        said_before = False
        for hit in hits:
            try:
                memory = self._memories.get(hit.id)
            except NotFoundError:
                continue
            if memory.status is not MemoryStatus.ACTIVE or memory.id == new.id:
                continue
            if older_only and isinstance(new, Memory) and memory.created_at > last_said(new):
                continue
            if normalize_text(memory.text) == said:  # the same words: the store confirms it
                said_before = True
                continue
            found.append(Neighbour(memory, hit.score))
        return Look(found, said_before=said_before)

    def decide(self, new: NewMemory | Memory, look: Look) -> Decision:
        """The rule, without a judgement: merge a repeat (one that differs in no particular),
        and queue likely repeats and likely conflicts for a person (never supersede)."""
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

    def asked_later(
        self, memory: Memory, nearest: Neighbour, rule: HygieneRule
    ) -> Neighbour | None:
        """The newest older memory of ``memory``'s type a person is already asked about as a
        later wording or value of ``nearest`` (its nearest of that type), near to ``nearest``
        at the ask bar and to ``memory`` at the same-type bar, with its similarity to
        ``memory``; None when there is none. A third value of a fact reads like the first
        more than like the second ("quit the agency, freelancing" / "a full-time job as art
        director", 0.48, under the first job's 0.58), and the first is asked about with the
        second; on the hygiene set this catches 5 of 7 changes the rule otherwise neither
        decided nor asked about, for about 30 more questions about different facts."""
        later = dict.fromkeys(self._hygiene.asked_against(nearest.memory.id))
        found = []
        for memory_id in later:
            try:
                other = self._memories.get(memory_id)
            except NotFoundError:
                continue
            if (
                (other.user_id, other.companion_id) == (memory.user_id, memory.companion_id)
                and other.status is MemoryStatus.ACTIVE
                and other.type is memory.type
                and other.id != memory.id
                and other.created_at <= last_said(memory)
            ):
                found.append(other)
        if not found:
            return None
        texts = [nearest.memory.text, memory.text, *(m.text for m in found)]
        try:
            first, new, *vectors = self._embedder.embed(texts)
        except ServiceError as exc:  # what is nearest is asked about all the same
            log.debug("later wordings not compared: %s", exc)
            return None
        near = [
            Neighbour(m, _cosine(new, v))
            for m, v in zip(found, vectors, strict=True)
            if _cosine(first, v) >= rule.ask_similarity and _cosine(new, v) >= rule.kind_similarity
        ]
        return max(near, key=lambda n: n.memory.created_at, default=None)

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


def word_matches(words: RetrievalReads | None, memory: Memory, limit: int) -> list[Neighbour]:
    """The older active memories of the pair that share a rare word with ``memory`` (the word
    search's ``limit`` best matches, best first; the similarity is the search's score, not a
    cosine); none without a word search or when it fails."""
    if words is None:
        return []
    try:
        hits = words.lexical_candidates(memory.user_id, memory.companion_id, memory.text, limit)
    except ServiceError as exc:  # the nearest by meaning are enough to go on
        log.debug("no word matches for a pass: %s", exc)
        return []
    return [
        Neighbour(hit.memory, hit.score)
        for hit in hits
        if hit.memory is not None
        and hit.memory.id != memory.id
        and hit.memory.status is MemoryStatus.ACTIVE
        and hit.memory.created_at <= last_said(memory)
        and hit.memory.text != memory.text
    ]


def with_words(
    words: RetrievalReads | None, memory: Memory, near: list[Neighbour], limit: int
) -> tuple[list[Neighbour], frozenset[int]]:
    """``near`` and after them the older memories that share a rare word with ``memory``
    (``word_matches``), with the positions of all that do; ``near`` alone when there are
    none."""
    known = list(near)
    position = {n.memory.id: i for i, n in enumerate(near)}
    matches = word_matches(words, memory, limit)
    for match in matches:
        if match.memory.id not in position:
            position[match.memory.id] = len(known)
            known.append(Neighbour(match.memory, 0.0))
    return known, frozenset(position[m.memory.id] for m in matches)


def _cosine(first: list[float], second: list[float]) -> float:
    dot = sum(a * b for a, b in zip(first, second, strict=True))
    norm = math.sqrt(sum(a * a for a in first) * sum(b * b for b in second))
    return dot / norm if norm else 0.0
