"""Deterministic vectors for tests: a bag of words hashed into a fixed number of buckets and
L2-normalised, as a real server's vectors are. Texts that share words are near each other,
texts that share none are orthogonal, and the same text always gives the same vector."""

from __future__ import annotations

import hashlib
import math
import re

_WORD = re.compile(r"[a-z0-9']+")
_STOP = {
    "the",
    "a",
    "an",
    "is",
    "to",
    "of",
    "and",
    "in",
    "on",
    "my",
    "i",
    "user",
    "user's",
    "s",
    "for",
    "with",
    "at",
    "it",
    "was",
    "has",
    "be",
    "are",
}


def words(text: str) -> list[str]:
    return [w for w in _WORD.findall(text.lower()) if w not in _STOP]


def bucket(word: str, dim: int) -> int:
    return int(hashlib.sha256(word.encode()).hexdigest(), 16) % dim


def embed(text: str, dim: int = 64) -> list[float]:
    vector = [0.0] * dim
    for word in words(text):
        vector[bucket(word, dim)] += 1.0
    norm = math.sqrt(sum(x * x for x in vector))
    if norm == 0:
        vector[0] = 1.0
        return vector
    return [x / norm for x in vector]
