"""Which of a message's words can tell the pair's memories apart: the rule both word searches
follow (PostgreSQL's full-text search, and the in-memory twin's plain one)."""

from __future__ import annotations

import math
import re

COMMON_SHARE = 0.2
"""A word in at least this share of the pair's memories (1 in 5) says little about which one
is meant (the way "user" is in all of them): it is left out of the query, as a stop word is.
The words kept count by their rarity (``rarity``), so a fairly common one weighs little.
Measured on real conversations (scripts/bench_real.py, with the rarity-weighted score): 0.2
finds LoCoMo's answers 1.4 points of hit@5 more often than 0.05 and REALTALK's as often;
ours lose nothing (docs/performance.md)."""
BRINGING_SHARE = 0.1
"""A word in fewer than this share of the pair's memories (1 in 10) also brings its memories
as candidates; one from here up to ``COMMON_SHARE`` only adds to the score of memories a rarer
word brought. Such a word matches up to a fifth of the pair: letting it bring candidates made
PostgreSQL score that many rows per message, for no gain on either real set (replayed:
REALTALK 62.7 / 71.3 -> 62.3 / 71.0, LoCoMo 79.8 / 85.4 -> 79.7 / 85.4, ours unchanged)."""
COMMON_MINIMUM = 8
"""A word is never called common when fewer memories than this have it (a new user has few)."""

STOP_WORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "but",
        "by",
        "do",
        "for",
        "from",
        "has",
        "have",
        "he",
        "her",
        "his",
        "i",
        "in",
        "is",
        "it",
        "its",
        "me",
        "my",
        "not",
        "of",
        "on",
        "or",
        "our",
        "s",
        "she",
        "so",
        "t",
        "that",
        "the",
        "their",
        "them",
        "they",
        "this",
        "to",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "who",
        "will",
        "with",
        "you",
        "your",
    ]
)
"""The commonest English words, which PostgreSQL's english configuration drops too (with the
s of "Sam's" and the t of "don't", which the split leaves as words of their own)."""

_WORD = re.compile(r"[^\W_]+")


def common_from(pair_size: int) -> int:
    """How many of the pair's memories must have a word for it to be common."""
    return max(COMMON_MINIMUM, math.ceil(COMMON_SHARE * pair_size))


def bringing_from(pair_size: int) -> int:
    """How many of the pair's memories may have a word for it to still bring candidates."""
    return max(COMMON_MINIMUM, math.ceil(BRINGING_SHARE * pair_size))


def rarity(pair_size: int, having: int) -> float:
    """How much a word tells the pair's memories apart: an IDF of the pair's own,
    ln(1 + (N - n + 0.5) / (n + 0.5)) for N memories of which n have it (the BM25 form: never
    below 0). A word no memory has weighs most: the message asks something none of them
    says."""
    return math.log(1 + (pair_size - having + 0.5) / (having + 0.5))


def plain_words(text: str) -> frozenset[str]:
    """A text's words for a search without a language engine: lower case, stop words out, a
    plural's or possessive's s dropped ("sister's", "sisters" and "sister" are one word)."""
    found = set()
    for word in _WORD.findall(text.casefold()):
        if word in STOP_WORDS:
            continue
        if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
            word = word[:-1]
        found.add(word)
    return frozenset(found)
