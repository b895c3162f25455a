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
Below the bar nothing is taken off, so distinct memories keep exactly their relevance.

The discount changes only the similarity the ranking formula sees; the similarity bar still
judges the relevance itself (a repeat is not less related to the message, only less useful
beside its twin). `search --explain` shows which memory each one repeats and what it cost.
"""

from __future__ import annotations

import heapq
import uuid
from collections.abc import Sequence
from dataclasses import dataclass

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


DEFAULT_REPEATS = RepeatRule()


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
    costs one pass over the pairs (about 0.2 ms for 30 candidates)."""
    if rule.weight <= 0 or len(candidates) < 2:
        return {}
    relevance = {m.id: r for m, r in candidates}
    twins = _twins([(m.id, plain_words(m.text)) for m, _ in candidates], rule.overlap_bar)
    if not twins:
        return {}
    closest: dict[uuid.UUID, tuple[float, uuid.UUID]] = {}

    def value(mid: uuid.UUID) -> float:
        share = closest[mid][0] if mid in closest else rule.overlap_bar
        return relevance[mid] - rule.weight * (share - rule.overlap_bar)

    heap = [(-r, mid) for mid, r in relevance.items()]
    heapq.heapify(heap)
    picked: set[uuid.UUID] = set()
    found: dict[uuid.UUID, Repeat] = {}
    while heap:
        stale, mid = heapq.heappop(heap)
        if -stale > value(mid):
            heapq.heappush(heap, (-value(mid), mid))
            continue
        picked.add(mid)
        if mid in closest:
            share, twin = closest[mid]
            found[mid] = Repeat(twin, share, relevance[mid] - value(mid))
        for other, share in twins.get(mid, ()):
            if other not in picked and share > closest.get(other, (0.0, mid))[0]:
                closest[other] = (share, mid)
    return found


def _twins(
    words: Sequence[tuple[uuid.UUID, frozenset[str]]], bar: float
) -> dict[uuid.UUID, list[tuple[uuid.UUID, float]]]:
    """Each candidate's neighbours past the bar, both ways. Word sets become bit masks (one
    bit a word), so a pair's shared words are one AND and a bit count."""
    bit: dict[str, int] = {}
    masks = []
    for mid, found in words:
        mask = 0
        for word in found:
            mask |= 1 << bit.setdefault(word, len(bit))
        masks.append((mid, mask, len(found)))
    twins: dict[uuid.UUID, list[tuple[uuid.UUID, float]]] = {}
    for i, (a, a_mask, a_size) in enumerate(masks):
        for b, b_mask, b_size in masks[i + 1 :]:
            smaller = min(a_size, b_size)
            if not smaller:
                continue
            share = (a_mask & b_mask).bit_count() / smaller
            if share > bar:
                twins.setdefault(a, []).append((b, share))
                twins.setdefault(b, []).append((a, share))
    return twins
