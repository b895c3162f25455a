"""Which of a message's words can tell the pair's memories apart: the rule both word searches
follow (PostgreSQL's full-text search, and the in-memory twin's plain one)."""

from __future__ import annotations

import math
import re

COMMON_SHARE = 0.05
"""A word in at least this share of the pair's memories (1 in 20) says little about which one
is meant (the way "user" is in all of them): it is left out of the query, as a stop word is.
Plain full-text search has no IDF; this is its stand-in, judged on the pair's own memories.
Measured with scripts/bench_quality.py: 0.02 to 0.05 helps most; at 0.2 the common words'
noise costs 3 to 4 points of hit@10."""
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
