"""A candidate that mostly repeats one ranked above it adds little to a prompt: it is ranked as
if it were less relevant.

A long relationship is full of near-repeats that are not the same fact ("Sam's cousin phoned on
Monday just to chat", "Sam's uncle phoned on Wednesday just to chat"), so the hygiene pass
rightly keeps them apart; but when a message is near them, they take the first places of the
prompt one after another and push out the one memory that answers it. So the candidates are
taken in the order a greedy pick makes (the most relevant first, then always the one whose
relevance, less its discount, is highest), and each one's discount is

    weight x (overlap with the most similar candidate picked before it - bar), at least 0

where overlap is the share of the shorter memory's words (``domain.words``: lower case, stop
words out) that the other has too: 1 for a memory said again in other order, about 0.7 for
the two calls above, about 0.3 for two different facts about the same person and place.
Below the bar, or with fewer than four words in common, nothing is taken off, so distinct
memories keep exactly their relevance.

The discount changes only the similarity the ranking formula sees; the similarity bar still
judges the relevance itself (a repeat is not less related to the message, only less useful
beside its twin). `search --explain` shows which memory each one repeats and what it cost.
"""

from __future__ import annotations

import heapq
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from aria_mem.domain.models import Memory
from aria_mem.domain.words import plain_words


@dataclass(frozen=True)
class RepeatRule:
    overlap_bar: float = 0.5
    """Measured with scripts/bench_quality.py: 0.3 to 0.6 all help on both sets; 0.5 (more
    than half the words shared) is the cautious end, where two different facts about the same
    person and place are not touched."""
    weight: float = 1.0
    """0 turns the rule off."""
    min_shared: int = 4
    """Fewer shared words than this never make a repeat, whatever the share: "Sam's birthday
    is in May" is all inside "Sam's mum's birthday is in May" and is another fact. The sets
    lose nothing up to 4; at 5 the generated small talk's repeats start to slip through."""


DEFAULT_REPEATS = RepeatRule()

_words = lru_cache(maxsize=4096)(plain_words)
"""The same memories come up turn after turn: their words are split once."""


@dataclass(frozen=True)
class Repeat:
    """Why a candidate ranks lower than its relevance alone would put it."""

    of: uuid.UUID
    """The candidate picked before it that it repeats most."""
    overlap: float
    discount: float
    """What the ranking formula's similarity is short of the relevance."""


def overlap(a: frozenset[str], b: frozenset[str]) -> float:
    """The share of the smaller word set the other holds too (0 when either is empty)."""
    if not a or not b:
        return 0.0
    return len(a & b) / min(len(a), len(b))


def find_repeats(
    candidates: Sequence[tuple[Memory, float]], rule: RepeatRule = DEFAULT_REPEATS
) -> dict[uuid.UUID, Repeat]:
    """``candidates``: (memory, relevance). Returns the candidates that lose something, each
    with what it repeats.

    The greedy pick is lazy: a candidate's discount only grows as others are picked, so the
    one on top of the heap is picked when its value is still current, and pushed back with
    its new value otherwise. Only pairs past the bar are kept, so a list without near-repeats
    costs one pass over the pairs. Candidates are numbered best first (ties by id), and the
    numbers, not the ids, do the work: a few tenths of a millisecond for 30."""
    if rule.weight <= 0 or len(candidates) < 2:
        return {}
    ordered = sorted(candidates, key=lambda c: (-c[1], c[0].id))
    twins = _twins([_words(m.text) for m, _ in ordered], rule)
    if not any(twins):
        return {}
    relevance = [r for _, r in ordered]
    closest = [rule.overlap_bar] * len(ordered)
    twin_of = [-1] * len(ordered)
    picked = [False] * len(ordered)

    def value(i: int) -> float:
        return relevance[i] - rule.weight * (closest[i] - rule.overlap_bar)

    heap = [(-r, i) for i, r in enumerate(relevance)]  # already a heap: sorted
    found: dict[uuid.UUID, Repeat] = {}
    while heap:
        stale, i = heapq.heappop(heap)
        current = value(i)
        if -stale > current:
            heapq.heappush(heap, (-current, i))
            continue
        picked[i] = True
        if twin_of[i] >= 0:
            found[ordered[i][0].id] = Repeat(
                ordered[twin_of[i]][0].id, closest[i], relevance[i] - current
            )
        for j, share in twins[i]:
            if not picked[j] and share > closest[j]:
                closest[j], twin_of[j] = share, i
    return found


def _twins(words: Sequence[frozenset[str]], rule: RepeatRule) -> list[list[tuple[int, float]]]:
    """Each candidate's neighbours past the bar, both ways. Word sets become bit masks (one
    bit a word), so a pair's shared words are one AND and a bit count."""
    bit: dict[str, int] = {}
    masks = []
    for found in words:
        mask = 0
        for word in found:
            mask |= 1 << bit.setdefault(word, len(bit))
        masks.append((mask, len(found)))
    twins: list[list[tuple[int, float]]] = [[] for _ in words]
    for i, (a_mask, a_size) in enumerate(masks):
        for j in range(i + 1, len(masks)):
            b_mask, b_size = masks[j]
            smaller = a_size if a_size < b_size else b_size
            shared = (a_mask & b_mask).bit_count()
            if shared >= rule.min_shared and shared > rule.overlap_bar * smaller:
                twins[i].append((j, shared / smaller))
                twins[j].append((i, shared / smaller))
    return twins
