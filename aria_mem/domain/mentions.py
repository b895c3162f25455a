"""When a chat turn mentions a memory: the rule for offering to forget the turns a forgotten
memory came from (or that repeat it), so "The user's sister is called Maya" does not live on
in "what should I buy for Maya my sister".

Memories are written about "the user", so that word says nothing about which turns held the
fact. Of the memory's other words (stemmed, stop words out), a turn must hold all of one or
two, and at least half of more: the turn is then about the same thing, while a turn that shares
one common word with a long memory is not.
"""

from __future__ import annotations

import math
import re

MAX_MENTIONS = 200
"""Turns offered at once; a fact repeated in more turns than that is offered again."""
GENERIC_WORDS = frozenset({"user", "users", "call", "name", "like"})
"""How memories are phrased ("the user's sister is called …"), stemmed as PostgreSQL does."""
_STOP_WORDS = (
    "the a an and or but is are was were be been to of in on at for with by from as it its "
    "this that these those his her their our my your i me we you he she they them has have "
    "had do does did not no so if than then there here about into over under very just also "
    "called named likes like"
)
STOP_WORDS = frozenset(_STOP_WORDS.split())
_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)?")


def words_needed(count: int) -> int:
    """How many of a memory's ``count`` distinctive words a turn must hold."""
    return count if count <= 2 else math.ceil(count / 2)


def distinctive(lexemes: list[str]) -> list[str]:
    """The memory's words that can tell its turns apart (PostgreSQL's lexemes, generic words
    out)."""
    return sorted({w for w in lexemes if w not in GENERIC_WORDS})


def plain_words(text: str) -> set[str]:
    """A rough stand-in for PostgreSQL's lexemes, for the in-memory store: lower case, stop
    words out, a possessive or plural "s" off."""
    found = set()
    for word in _WORD.findall(text.lower()):
        word = word.removesuffix("'s")
        if word in STOP_WORDS or len(word) < 3:
            continue
        found.add(word[:-1] if word.endswith("s") and len(word) > 3 else word)
    return found


def mentions(memory_words: set[str], turn_words: set[str]) -> bool:
    wanted = memory_words - GENERIC_WORDS
    return bool(wanted) and len(wanted & turn_words) >= words_needed(len(wanted))
