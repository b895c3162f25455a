"""What the vector index stores beside each vector, stated once for every engine.

docs/design.md lists the payload of a memory vector: memory_id, user_id, companion_id, type,
importance, pinned, active, created_at, embedding_model. Knowledge vectors carry their own ids
and the same scope fields (user_id is ``KNOWLEDGE_SCOPE_USER``: knowledge belongs to a
companion). Each engine's adapter builds its payload indexes and its search filter from
``PAYLOAD_FIELDS`` and ``scope_filter``; the filter every search carries is one user, one
companion, one model, active only.

Qdrant Edge checks each condition of a filter point by point, so its adapter also stores the
four as one keyword, ``scope`` (``payload_scope_key``), made from the payload whenever a vector
is written, and searches by that one condition: a third of the time (0.30 against 0.95 ms a
search at 100,000 memories). A vector that is not active has no key, so matching the key means
exactly what the four conditions mean.
"""

from __future__ import annotations

import json
from enum import StrEnum

from aria_mem.domain.models import (
    KNOWLEDGE_SCOPE_USER,
    Kind,
    KnowledgeItem,
    Memory,
    MemoryStatus,
    SearchScope,
)
from aria_mem.domain.records import IndexEntry


class FieldKind(StrEnum):
    KEYWORD = "keyword"
    BOOLEAN = "boolean"
    NUMBER = "number"
    TIMESTAMP = "timestamp"
    """An ISO 8601 string."""


MEMORY_FIELDS: dict[str, FieldKind] = {
    "memory_id": FieldKind.KEYWORD,
    "user_id": FieldKind.KEYWORD,
    "companion_id": FieldKind.KEYWORD,
    "type": FieldKind.KEYWORD,
    "importance": FieldKind.NUMBER,
    "pinned": FieldKind.BOOLEAN,
    "active": FieldKind.BOOLEAN,
    "created_at": FieldKind.TIMESTAMP,
    "embedding_model": FieldKind.KEYWORD,
}

KNOWLEDGE_FIELDS: dict[str, FieldKind] = {
    "knowledge_id": FieldKind.KEYWORD,
    "source_id": FieldKind.KEYWORD,
    "user_id": FieldKind.KEYWORD,
    "companion_id": FieldKind.KEYWORD,
    "type": FieldKind.KEYWORD,
    "active": FieldKind.BOOLEAN,
    "pinned": FieldKind.BOOLEAN,
    "embedding_model": FieldKind.KEYWORD,
}

PAYLOAD_FIELDS: dict[str, FieldKind] = {**MEMORY_FIELDS, **KNOWLEDGE_FIELDS}
"""Every field either kind of vector carries; the engines index the keyword and boolean ones."""

INDEXED_KEYWORDS = tuple(n for n, k in PAYLOAD_FIELDS.items() if k is FieldKind.KEYWORD)
INDEXED_BOOLEANS = tuple(n for n, k in PAYLOAD_FIELDS.items() if k is FieldKind.BOOLEAN)


def scope_filter(scope: SearchScope) -> dict[str, str | bool]:
    """The exact-match conditions of a search, field by field."""
    return {
        "user_id": scope.user_id,
        "companion_id": scope.companion_id,
        "embedding_model": scope.embedding_model,
        "active": True,
    }


SCOPE_KEY = "scope"


def scope_key(scope: SearchScope) -> str:
    """User, companion and model as one keyword (a JSON list: no id can fake another's)."""
    return json.dumps(
        [scope.user_id, scope.companion_id, scope.embedding_model], separators=(",", ":")
    )


def payload_scope_key(payload: dict[str, object]) -> str | None:
    """The key a vector with this payload is found by; None when it is not active."""
    parts = [payload.get(f) for f in ("user_id", "companion_id", "embedding_model")]
    if not payload.get("active") or any(p is None for p in parts):
        return None
    return scope_key(SearchScope(*(str(p) for p in parts)))


def memory_fields(memory: Memory) -> dict[str, object]:
    """A memory's payload, all but the embedding model."""
    return {
        "memory_id": str(memory.id),
        "user_id": memory.user_id,
        "companion_id": memory.companion_id,
        "type": memory.type.value,
        "importance": memory.importance,
        "pinned": memory.pinned,
        "active": memory.status is MemoryStatus.ACTIVE,
        "created_at": memory.created_at.isoformat(),
    }


def knowledge_fields(item: KnowledgeItem) -> dict[str, object]:
    """A knowledge passage's payload, all but the embedding model."""
    return {
        "knowledge_id": str(item.id),
        "source_id": str(item.source_id),
        "user_id": KNOWLEDGE_SCOPE_USER,
        "companion_id": item.companion_id,
        "type": "Knowledge",
        "active": True,
        "pinned": False,
    }


def with_model(fields: dict[str, object], embedding_model: str) -> dict[str, object]:
    return {**fields, "embedding_model": embedding_model}


def memory_payload(memory: Memory, embedding_model: str) -> dict[str, object]:
    return with_model(memory_fields(memory), embedding_model)


def memory_entry(memory: Memory, usable: bool) -> IndexEntry:
    return IndexEntry(
        Kind.MEMORY, memory.id, memory.text, memory.updated_at, usable, memory_fields(memory)
    )


def knowledge_entry(item: KnowledgeItem) -> IndexEntry:
    return IndexEntry(
        Kind.KNOWLEDGE, item.id, item.text, item.updated_at, True, knowledge_fields(item)
    )
