"""A memory as one line of an export file, and back: every field but the index state (it
belongs to one machine), each value checked on the way in as any input is.

The file's other lines (stages, conversations, knowledge) are ``archive``'s."""

from __future__ import annotations

import uuid
from datetime import datetime
from enum import Enum
from typing import Any

from aria_mem.domain.models import (
    DERIVED_FIELDS,
    INDEX_FIELDS,
    MEMORY_FIELDS,
    IndexState,
    Memory,
    MemoryStatus,
)
from aria_mem.domain.validation import (
    clean_text,
    identifier,
    iso_timestamp,
    memory_type,
    optional_iso_timestamp,
    reason,
    stage,
    unit_interval,
    use_count,
)
from aria_mem.domain.when import event_dates
from aria_mem.errors import ValidationError

EXPORT_FIELDS = tuple(
    name for name in MEMORY_FIELDS if name not in INDEX_FIELDS and name not in DERIVED_FIELDS
)
"""The fields of an export line. The index state is not exported: it belongs to one machine;
nor is the text's event date: it is read from the text again on import."""


def _exported(value: object) -> object:
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, uuid.UUID):
        return str(value)
    return value


def memory_to_record(memory: Memory) -> dict[str, Any]:
    return {name: _exported(getattr(memory, name)) for name in EXPORT_FIELDS}


def memory_from_record(record: Any) -> Memory:
    """Validate one export line (already parsed from JSON) into a Memory marked pending."""
    if not isinstance(record, dict):
        raise ValidationError("each line must be a JSON object")
    unknown = sorted(set(record) - set(EXPORT_FIELDS) - {"index_state", "indexed_model"})
    if unknown:
        raise ValidationError(f"unknown field(s): {', '.join(unknown)}")
    missing = [f for f in ("id", "user_id", "companion_id", "type", "text") if f not in record]
    if missing:
        raise ValidationError(f"missing field(s): {', '.join(missing)}")
    try:
        memory_id = uuid.UUID(str(record["id"]))
    except ValueError:
        raise ValidationError(f"id is not a UUID: {record['id']!r}") from None
    status_value = record.get("status", "active")
    try:
        status = MemoryStatus(status_value)
    except ValueError:
        raise ValidationError(
            f"status must be 'active', 'archived' or 'superseded', got {status_value!r}"
        ) from None
    held = record.get("held_until_stage")
    pinned = record.get("pinned", False)
    if not isinstance(pinned, bool):
        raise ValidationError(f"pinned must be true or false, got {pinned!r}")
    replaced_by = record.get("superseded_by")
    try:
        superseded_by = uuid.UUID(str(replaced_by)) if replaced_by is not None else None
    except ValueError:
        raise ValidationError(f"superseded_by is not a UUID: {replaced_by!r}") from None
    if superseded_by is not None and status is not MemoryStatus.SUPERSEDED:
        raise ValidationError("superseded_by is given, but the status is not 'superseded'")
    created_at = iso_timestamp("created_at", record.get("created_at"))
    updated_at = optional_iso_timestamp("updated_at", record.get("updated_at")) or created_at
    text = clean_text(record["text"]) if isinstance(record["text"], str) else clean_text("")
    event_from, event_until = event_dates(text, created_at)
    return Memory(
        id=memory_id,
        user_id=identifier("user_id", record["user_id"]),
        companion_id=identifier("companion_id", record["companion_id"]),
        type=memory_type(record["type"]),
        text=text,
        importance=unit_interval("importance", record.get("importance", 0.5)),
        emotional_significance=unit_interval(
            "emotional_significance", record.get("emotional_significance", 0.0)
        ),
        confidence=unit_interval("confidence", record.get("confidence", 0.8)),
        reason=reason(record.get("reason", "") or ""),
        pinned=pinned,
        status=status,
        held_until_stage=stage(held) if held is not None else None,
        expires_at=optional_iso_timestamp("expires_at", record.get("expires_at")),
        created_at=created_at,
        updated_at=updated_at,
        last_used_at=optional_iso_timestamp("last_used_at", record.get("last_used_at")),
        last_confirmed_at=optional_iso_timestamp(
            "last_confirmed_at", record.get("last_confirmed_at")
        ),
        use_count=use_count(record.get("use_count", 0)),
        index_state=IndexState.PENDING,
        indexed_model=None,
        index_attempts=0,
        index_error=None,
        superseded_by=superseded_by,
        event_from=event_from,
        event_until=event_until,
    )
