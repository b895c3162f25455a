"""Task prefixes some embedding models expect, from their model cards.

Asymmetric retrieval models embed a search query and a stored passage differently: mxbai,
bge and snowflake-arctic want an instruction before the query, nomic wants ``search_query:`` /
``search_document:``, e5 wants ``query:`` / ``passage:``. Memories and knowledge are stored as
documents; the message-derived query is embedded as a query. Other models get no prefix.
"""

from __future__ import annotations

RETRIEVAL_INSTRUCTION = "Represent this sentence for searching relevant passages: "

_PREFIXES: tuple[tuple[str, str, str], ...] = (
    ("nomic-embed-text", "search_query: ", "search_document: "),
    ("mxbai-embed-large", RETRIEVAL_INSTRUCTION, ""),
    ("snowflake-arctic-embed", RETRIEVAL_INSTRUCTION, ""),
    ("bge-", RETRIEVAL_INSTRUCTION, ""),
    ("e5-", "query: ", "passage: "),
)


def prefixes(model: str) -> tuple[str, str]:
    """(query prefix, document prefix) for a model name such as ``mxbai-embed-large:latest``
    or ``text-embedding-nomic-embed-text-v1.5``."""
    name = model.lower()
    for marker, query, document in _PREFIXES:
        if marker in name:
            return query, document
    return "", ""
