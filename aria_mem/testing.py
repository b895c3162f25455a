"""aria-mem in memory, for the tests of a program built on it: no PostgreSQL, no model server,
no config file, nothing left on disk.

    from aria_mem.testing import in_memory

    def test_my_companion_remembers() -> None:
        with in_memory() as memory:
            memory.remember("The user's sister loves pottery.")
            found = memory.search("Does my sister like pottery?")
            assert "pottery" in found.prompt

The store is the in-memory twin of PostgreSQL that passes the same contract tests; the index
is qdrant-client's local mode in memory (the engine of a Qdrant server, in process); the
embedder is ``WordsEmbedder``, whose vectors are near when texts share words, so what a test
expects to be found follows from the words, not from a model. The settings are the defaults, not the
developer's config file or environment. ``extract``, ``tidy`` and ``relay`` ask a chat model:
hand one in (``chat_model=``, anything with the ``ChatModel`` methods).
"""

from __future__ import annotations

import hashlib
import math
import re
import tempfile
import typing
import weakref
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from aria_mem.adapters.in_memory.store import InMemoryStore
from aria_mem.adapters.qdrant_server import QdrantServerIndex
from aria_mem.api import AriaMem
from aria_mem.config import Settings, with_overrides
from aria_mem.ports.engines import ChatModel, DocumentReader, Embedder

__all__ = ["WordsEmbedder", "in_memory"]

_WORD = re.compile(r"[a-z0-9]+")
_COMMON = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "at",
        "be",
        "for",
        "has",
        "i",
        "in",
        "is",
        "it",
        "my",
        "of",
        "on",
        "s",
        "the",
        "to",
        "user",
        "was",
        "with",
    ]
)


class WordsEmbedder:
    """Vectors from the words of a text: each word (lower-cased, common ones left out) hashed
    into one of ``dimension`` buckets, L2-normalised. Texts that share words are near, and a
    text always gets the same vector. Texts that share none are orthogonal unless two of
    their words fall into one bucket, which 64 buckets allow now and then (a larger
    ``dimension`` makes it rarer)."""

    def __init__(self, dimension: int = 64, model: str = "testing/words") -> None:
        self._dimension = dimension
        self._model = model

    @property
    def model_name(self) -> str:
        return self._model

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return [self.embed_query(text) for text in texts]

    def embed_query(self, text: str) -> list[float]:
        vector = [0.0] * self._dimension
        for word in _WORD.findall(text.lower()):
            if word not in _COMMON:
                digest = hashlib.sha256(word.encode()).digest()
                vector[int.from_bytes(digest[:8], "big") % self._dimension] += 1.0
        norm = math.sqrt(sum(x * x for x in vector))
        if norm == 0:  # no word of its own: a fixed vector, so every text has one
            vector[0] = 1.0
            return vector
        return [x / norm for x in vector]

    def dimension(self) -> int:
        return self._dimension

    def probe(self) -> int:
        return self._dimension

    def warm_up(self) -> None:
        """Nothing to load."""


def in_memory(
    *,
    user: str = "me",
    companion: str = "aria",
    embedder: Embedder | None = None,
    chat_model: ChatModel | None = None,
    reader: DocumentReader | None = None,
    **sections: dict[str, Any],
) -> AriaMem:
    """An ``AriaMem`` on a fresh in-memory store and index, scoped to ``user`` and
    ``companion``; ``sections`` override settings as ``AriaMem.open`` does, e.g.
    ``retrieval={"min_similarity": 0.2}``. Each call is a new, empty memory. Use it as a
    context manager, or call ``close()``."""
    folder = tempfile.TemporaryDirectory(prefix="aria-mem-testing-")
    settings = _defaults(Path(folder.name))
    identity = {"user": user, "companion": companion} | sections.pop("identity", {})
    settings = with_overrides(settings, identity=identity, **sections)
    index = QdrantServerIndex(":memory:")
    memory = AriaMem(
        settings,
        store=InMemoryStore(),
        index=index,
        embedder=embedder or WordsEmbedder(),
        chat_model=chat_model,
        reader=reader,
    )
    weakref.finalize(memory, _release, index, folder)
    return memory


def _defaults(data_dir: Path) -> Settings:
    """Every section at its default: what the documentation describes, whatever the
    developer's own config file or environment says."""
    kinds = typing.get_type_hints(Settings)
    return Settings(
        **{name: kind() for name, kind in kinds.items() if name not in ("config_path", "data_dir")},
        config_path=data_dir / "config.toml",
        data_dir=data_dir,
    )


def _release(index: QdrantServerIndex, folder: tempfile.TemporaryDirectory[str]) -> None:
    """What ``AriaMem.close`` leaves open because it was handed in, once the memory is gone."""
    index.close()
    folder.cleanup()
