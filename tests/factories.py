"""Memories built in memory for the pure domain tests."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

from aria_mem.domain.models import IndexState, Memory, MemoryStatus, MemoryType, Stage

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def make_memory(text: str = "a fact", **overrides: Any) -> Memory:
    fields: dict[str, Any] = {
        "id": uuid.uuid4(),
        "user_id": "u1",
        "companion_id": "aria",
        "type": MemoryType.EPISODIC_EVENT,
        "text": text,
        "importance": 0.5,
        "emotional_significance": 0.0,
        "confidence": 0.8,
        "reason": "",
        "pinned": False,
        "status": MemoryStatus.ACTIVE,
        "held_until_stage": None,
        "expires_at": None,
        "created_at": NOW - timedelta(days=1),
        "updated_at": NOW,
        "last_used_at": None,
        "last_confirmed_at": None,
        "use_count": 0,
        "index_state": IndexState.INDEXED,
        "indexed_model": "ollama/fake",
        "index_attempts": 0,
        "index_error": None,
    }
    fields.update(overrides)
    return Memory(**fields)


__all__ = ["NOW", "Stage", "make_memory"]
