"""A candidate that mostly repeats the profile or a more similar candidate adds little to a
prompt: the ranking formula sees it as less similar to the message.

A long relationship is full of near-repeats that are not the same fact ("Sam's cousin phoned on
Monday just to chat", "Sam's uncle phoned on Wednesday just to chat"), so the hygiene pass
rightly keeps them apart; but when a message is near them, they take the first places of the
prompt one after another and push out the one memory that answers it. So the candidates are
taken greedily: the profile first (it is always in), then always the candidate whose
similarity, less its discount, is highest, where the discount is

    weight x (overlap with the most similar memory taken before it - bar), at least 0

and overlap is the share of the shorter memory's words (``domain.words``: lower case, stop
words out) that the other has too: 1 for a memory said again in other order, about 0.7 for
the two calls above, about 0.3 for two different facts about the same person and place.
Below the bar, or with fewer than four words in common, nothing is taken off, so distinct
memories keep exactly their similarity; the profile is never discounted.

Similarity, not the formula's whole score, decides which of two near-repeats keeps its place:
by the score, a recent piece of small talk would make the older fact the message asks about
its repeat (measured: 1.5 points of hit@5 lost on scripts/bench_quality.py's observations).
So a discounted memory can still rank above its twin, when it is newer or more important.

The discount changes only the similarity the ranking formula sees, never below nothing; the
similarity bar still judges the similarity itself (a repeat is not less related to the
message, only less useful beside its twin). `search --explain` shows which memory each one
repeats and what it cost.
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
    """Similarity taken off per unit of overlap past the bar; 0 turns the rule off."""
    min_shared: int = 4
    """Fewer shared words than this never make a repeat, whatever the share: "Sam's birthday
    is in May" is all inside "Sam's mum's birthday is in May" and is another fact. The sets
    lose nothing up to 4; at 5 the generated small talk's repeats start to slip through."""


DEFAULT_REPEATS = RepeatRule()

_words = lru_cache(maxsize=4096)(plain_words)
"""The same memories come up turn after turn: their words are split once."""


@dataclass(frozen=True)
class Repeat:
    """Why a candidate ranks lower than its similarity alone would put it."""

    of: uuid.UUID
    """The memory taken before it (the profile or a more similar candidate) that it repeats
    most."""
    overlap: float
    """The share of the shorter one's words the two have in common."""
    discount: float
    """What was taken off the similarity the ranking formula sees (never more than it)."""


def find_repeats(
    candidates: Sequence[tuple[Memory, float]],
    rule: RepeatRule = DEFAULT_REPEATS,
    *,
    ahead: Sequence[Memory] = (),
) -> dict[uuid.UUID, Repeat]:
    """``candidates``: (memory, similarity); ``ahead``: memories taken before every candidate
    (the profile), never discounted. Returns the candidates that lose something, each with
    what it repeats.

    The pick is lazy: a candidate's discount only grows as others are taken, so the one on
    top of the heap is taken when its value is still current and pushed back with its new
    value otherwise. Only pairs past the bar are kept, and the candidates are numbered (most
    similar first, ties by id) so numbers, not ids, do the work: about 0.1-0.3 ms for 30."""
    if rule.weight <= 0 or not candidates:
        return {}
    ordered = sorted(candidates, key=lambda c: (-c[1], c[0].id))
    memories = [*ahead, *(m for m, _ in ordered)]
    twins = _twins([_words(m.text) for m in memories], rule)
    if not any(twins):
        return {}
    first = len(ahead)
    similarity = [0.0] * first + [s for _, s in ordered]
    closest = [rule.overlap_bar] * len(memories)
    twin_of = [-1] * len(memories)
    taken = [i < first for i in range(len(memories))]
    for i in range(first):
        _remember(i, twins, taken, closest, twin_of)

    def discount(i: int) -> float:
        return min(max(0.0, similarity[i]), rule.weight * (closest[i] - rule.overlap_bar))

    heap = [(-similarity[i], i) for i in range(first, len(memories))]  # sorted: a heap
    found: dict[uuid.UUID, Repeat] = {}
    while heap:
        stale, i = heapq.heappop(heap)
        current = similarity[i] - discount(i)
        if -stale > current:
            heapq.heappush(heap, (-current, i))
            continue
        taken[i] = True
        if twin_of[i] >= 0 and discount(i) > 0:
            found[memories[i].id] = Repeat(memories[twin_of[i]].id, closest[i], discount(i))
        _remember(i, twins, taken, closest, twin_of)
    return found


def _remember(
    i: int,
    twins: list[list[tuple[int, float]]],
    taken: list[bool],
    closest: list[float],
    twin_of: list[int],
) -> None:
    """Memory ``i`` is taken: each twin not yet taken now repeats it, if more than before."""
    for j, share in twins[i]:
        if not taken[j] and share > closest[j]:
            closest[j], twin_of[j] = share, i


def _twins(words: Sequence[frozenset[str]], rule: RepeatRule) -> list[list[tuple[int, float]]]:
    """Each memory's neighbours past the bar, both ways. Word sets become bit masks (one bit
    a word), so a pair's shared words are one AND and a bit count."""
    bit: dict[str, int] = {}
    masks = []
    for text_words in words:
        mask = 0
        for word in text_words:
            mask |= 1 << bit.setdefault(word, len(bit))
        masks.append((mask, len(text_words)))
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
