"""Everything of a person in one JSON Lines file, besides the memories: relationship stages,
conversations with their turns, and what the companion learned, so a companion's memory can
move to a new machine.

A memory line is as it always was (no ``kind``). The other lines say what they are:

    {"kind": "stage", "user_id", "companion_id", "stage"}
    {"kind": "conversation", "id", "user_id", "companion_id", "started_at", "updated_at",
     "system_prompt" (only when a persona was set for it)}
    {"kind": "turn", "conversation_id", "role", "content", "created_at"}     after its conversation
    {"kind": "knowledge", "id", "companion_id", "source", "title", "created_at"}
    {"kind": "passage", "source_id", "text"}                        after its source, in order
    {"kind": "event", "memory_id", "event", "at", "other_id", "text", "detail"}
                                   a memory's history (merged, edited, superseded, ...)

Turns and passages are lines of their own, so no line outgrows the import's line bound
however long a conversation or a document is.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from aria_mem.domain import validation
from aria_mem.domain.hygiene import EventKind, MemoryEvent
from aria_mem.domain.models import Stage
from aria_mem.domain.records import ArchivedTurn, ConversationRecord
from aria_mem.errors import ValidationError

KINDS = ("stage", "conversation", "turn", "knowledge", "passage", "event")
MAX_TURN_CHARS = 200_000
"""Far beyond a chat message or a model's reply (the chat bounds a message well below it)."""
MAX_PASSAGE_CHARS = 32_000
MAX_TITLE_CHARS = 1_000
MAX_PERSONA_CHARS = 16_000
"""As /system allows."""


@dataclass
class ArchivedSource:
    id: uuid.UUID
    companion_id: str
    source: str
    title: str
    created_at: datetime
    passages: list[str] = field(default_factory=list)


@dataclass
class Archive:
    """What an import file holds besides memories, checked line by line."""

    stages: dict[tuple[str, str], Stage] = field(default_factory=dict)
    sources: dict[uuid.UUID, ArchivedSource] = field(default_factory=dict)
    events: list[MemoryEvent] = field(default_factory=list)
    """The memories' history, restored once the memories are in."""
    _heads: dict[uuid.UUID, ConversationRecord] = field(default_factory=dict)
    _turns: dict[uuid.UUID, list[ArchivedTurn]] = field(default_factory=dict)

    def conversations(self) -> list[ConversationRecord]:
        """Each conversation with its turns, in the order the file gave them."""
        return [replace(head, turns=tuple(self._turns[cid])) for cid, head in self._heads.items()]

    def add(self, record: dict[str, Any]) -> None:
        """Take one line; ValidationError says what is wrong with it."""
        kind = record.get("kind")
        if kind not in KINDS:
            raise ValidationError(f"kind must be one of {', '.join(KINDS)}, got {kind!r}")
        getattr(self, f"_add_{kind}")(record)

    def _add_stage(self, record: dict[str, Any]) -> None:
        _only(record, "user_id", "companion_id", "stage")
        pair = (
            validation.identifier("user_id", record["user_id"]),
            validation.identifier("companion_id", record["companion_id"]),
        )
        self.stages[pair] = validation.stage(record["stage"])

    def _add_conversation(self, record: dict[str, Any]) -> None:
        _only(
            record,
            "id",
            "user_id",
            "companion_id",
            "started_at",
            "updated_at",
            optional=("system_prompt",),
        )
        conversation_id = _uuid("id", record["id"])
        persona = record.get("system_prompt")
        if conversation_id in self._heads:
            raise ValidationError(f"conversation {conversation_id} is already in the file")
        self._turns[conversation_id] = []
        self._heads[conversation_id] = ConversationRecord(
            conversation_id,
            validation.identifier("user_id", record["user_id"]),
            validation.identifier("companion_id", record["companion_id"]),
            validation.iso_timestamp("started_at", record["started_at"]),
            validation.iso_timestamp("updated_at", record["updated_at"]),
            (),
            None if persona is None else _text("system_prompt", persona, MAX_PERSONA_CHARS),
        )

    def _add_turn(self, record: dict[str, Any]) -> None:
        _only(record, "conversation_id", "role", "content", "created_at")
        conversation_id = _uuid("conversation_id", record["conversation_id"])
        turns = self._turns.get(conversation_id)
        if turns is None:
            raise ValidationError(
                f"turn of conversation {conversation_id}, which no earlier line introduces"
            )
        role = record["role"]
        if role not in ("user", "assistant"):
            raise ValidationError(f"role must be 'user' or 'assistant', got {role!r}")
        content = _text("content", record["content"], MAX_TURN_CHARS)
        at = validation.iso_timestamp("created_at", record["created_at"])
        turns.append(ArchivedTurn(role, content, at))

    def _add_knowledge(self, record: dict[str, Any]) -> None:
        _only(record, "id", "companion_id", "source", "title", "created_at")
        source_id = _uuid("id", record["id"])
        if source_id in self.sources:
            raise ValidationError(f"knowledge source {source_id} is already in the file")
        self.sources[source_id] = ArchivedSource(
            source_id,
            validation.identifier("companion_id", record["companion_id"]),
            _text("source", record["source"], MAX_TITLE_CHARS),
            _text("title", record["title"], MAX_TITLE_CHARS, empty=True),
            validation.iso_timestamp("created_at", record["created_at"]),
        )

    def _add_passage(self, record: dict[str, Any]) -> None:
        _only(record, "source_id", "text")
        source_id = _uuid("source_id", record["source_id"])
        found = self.sources.get(source_id)
        if found is None:
            raise ValidationError(
                f"passage of knowledge source {source_id}, which no earlier line introduces"
            )
        found.passages.append(_text("text", record["text"], MAX_PASSAGE_CHARS))

    def _add_event(self, record: dict[str, Any]) -> None:
        _only(record, "memory_id", "event", "at", optional=("other_id", "text", "detail"))
        try:
            kind = EventKind(record["event"])
        except ValueError:
            kinds = ", ".join(k.value for k in EventKind)
            raise ValidationError(
                f"event must be one of {kinds}, got {record['event']!r}"
            ) from None
        other = record.get("other_id")
        text = record.get("text")
        self.events.append(
            MemoryEvent(
                _uuid("memory_id", record["memory_id"]),
                kind,
                validation.iso_timestamp("at", record["at"]),
                _uuid("other_id", other) if other is not None else None,
                _text("text", text, MAX_TURN_CHARS, empty=True) if text is not None else None,
                _text("detail", record.get("detail", ""), MAX_TURN_CHARS, empty=True),
            )
        )


def event_line(event: MemoryEvent) -> dict[str, Any]:
    return {
        "kind": "event",
        "memory_id": str(event.memory_id),
        "event": event.kind.value,
        "at": event.at.isoformat(),
        "other_id": str(event.other_id) if event.other_id else None,
        "text": event.text,
        "detail": event.detail,
    }


def stage_line(user_id: str, companion_id: str, stage: Stage) -> dict[str, Any]:
    return {"kind": "stage", "user_id": user_id, "companion_id": companion_id, "stage": stage}


def conversation_lines(found: ConversationRecord) -> list[dict[str, Any]]:
    head: dict[str, Any] = {
        "kind": "conversation",
        "id": str(found.id),
        "user_id": found.user_id,
        "companion_id": found.companion_id,
        "started_at": found.started_at.isoformat(),
        "updated_at": found.updated_at.isoformat(),
    }
    if found.system_prompt is not None:
        head["system_prompt"] = found.system_prompt
    return [head] + [
        {
            "kind": "turn",
            "conversation_id": str(found.id),
            "role": turn.role,
            "content": turn.content,
            "created_at": turn.created_at.isoformat(),
        }
        for turn in found.turns
    ]


def knowledge_lines(
    source_id: uuid.UUID,
    companion_id: str,
    source: str,
    title: str,
    created_at: datetime,
    passages: list[str],
) -> list[dict[str, Any]]:
    head: dict[str, Any] = {
        "kind": "knowledge",
        "id": str(source_id),
        "companion_id": companion_id,
        "source": source,
        "title": title,
        "created_at": created_at.isoformat(),
    }
    return [head] + [
        {"kind": "passage", "source_id": str(source_id), "text": text} for text in passages
    ]


def _only(record: dict[str, Any], *fields: str, optional: tuple[str, ...] = ()) -> None:
    unknown = sorted(set(record) - set(fields) - set(optional) - {"kind"})
    if unknown:
        raise ValidationError(f"unknown field(s): {', '.join(unknown)}")
    missing = [f for f in fields if f not in record]
    if missing:
        raise ValidationError(f"missing field(s): {', '.join(missing)}")


def _uuid(name: str, value: Any) -> uuid.UUID:
    try:
        return uuid.UUID(str(value))
    except ValueError:
        raise ValidationError(f"{name} is not a UUID: {value!r}") from None


def _text(name: str, value: Any, limit: int, *, empty: bool = False) -> str:
    if not isinstance(value, str) or (not empty and not value.strip()):
        raise ValidationError(f"{name} must be a non-empty string, got {value!r}")
    if len(value) > limit:
        raise ValidationError(f"{name} is {len(value):,} characters; the limit is {limit:,}")
    return validation.plain_text(name, value)
