"""Moving everything of a person, besides the memories: relationship stages, conversations and
what the companion learned (the line format is ``domain.archive``'s).

Restoring is idempotent, as the memories' import is: a conversation already stored (by id) is
kept as it is, a stage only ever moves on (a restore never takes a relationship back), and a
source already learned with the same passages is left alone (otherwise it is learned again
from the file, replacing the earlier reading, and indexed like any learned source).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import IO, Any

from aria_mem.domain import archive
from aria_mem.domain.archive import Archive
from aria_mem.domain.invisible import json_line
from aria_mem.domain.records import ConversationRecord
from aria_mem.ports import ConversationLog, KnowledgeRepository, Relationships


@dataclass
class Carried:
    """What an export wrote, or an import restored, besides the memories."""

    stages: int = 0
    """Export: stages written; import: relationships moved on to the stage the file holds."""
    conversations: int = 0
    turns: int = 0
    sources: int = 0
    passages: int = 0
    conversations_kept: int = 0
    """Import: already stored (by id), left as they are."""
    sources_unchanged: int = 0
    """Import: the same passages were already learned."""
    events: int = 0
    """The memories' history: events written, or restored (those already there are not)."""


def _write(stream: IO[str], line: dict[str, Any]) -> None:
    stream.write(json_line(line) + "\n")


def write_conversations(
    stream: IO[str],
    conversations: ConversationLog,
    user_id: str | None,
    companion_id: str | None = None,
) -> Carried:
    written = Carried()
    _write_records(stream, conversations.conversation_records(user_id, companion_id), written)
    return written


def _write_records(stream: IO[str], records: list[ConversationRecord], written: Carried) -> None:
    for found in records:
        for line in archive.conversation_lines(found):
            _write(stream, line)
        written.conversations += 1
        written.turns += len(found.turns)


def write_everything_else(
    stream: IO[str],
    *,
    conversations: ConversationLog,
    relationships: Relationships,
    knowledge: KnowledgeRepository,
    user_id: str | None,
    companions: set[str],
) -> Carried:
    """Stages and conversations (of ``user_id``, or everyone's), and the knowledge of the
    companions the user has memories (``companions``), conversations or a stage with (with
    no user: of every companion)."""
    written = Carried()
    records = conversations.conversation_records(user_id)
    _write_records(stream, records, written)
    involved = companions | {found.companion_id for found in records}
    for user, companion, stage in relationships.stages(user_id):
        _write(stream, archive.stage_line(user, companion, stage))
        involved.add(companion)
        written.stages += 1
    for source in knowledge.sources(None):
        if user_id is not None and source.companion_id not in involved:
            continue
        passages = knowledge.passages(source.id)
        lines = archive.knowledge_lines(
            source.id,
            source.companion_id,
            source.source,
            source.title,
            source.created_at,
            passages,
        )
        for line in lines:
            _write(stream, line)
        written.sources += 1
        written.passages += len(passages)
    return written


def restore(
    contents: Archive,
    *,
    conversations: ConversationLog,
    relationships: Relationships,
    knowledge: KnowledgeRepository,
) -> Carried:
    restored = Carried()
    for record in contents.conversations():
        if conversations.import_conversation(record):
            restored.conversations += 1
            restored.turns += len(record.turns)
        else:
            restored.conversations_kept += 1
    for (user_id, companion_id), stage in contents.stages.items():
        if stage.rank > relationships.stage(user_id, companion_id).rank:
            relationships.set_stage(user_id, companion_id, stage)
            restored.stages += 1
    known = {(s.companion_id, s.source): s.id for s in knowledge.sources(None)}
    taken = set(known.values())
    for source in contents.sources.values():
        if not source.passages:
            continue
        earlier = known.get((source.companion_id, source.source))
        if earlier is not None and knowledge.passages(earlier) == source.passages:
            restored.sources_unchanged += 1
            continue
        knowledge.learn(
            source.companion_id,
            source.source,
            source.title,
            source.passages,
            restored=None if earlier or source.id in taken else (source.id, source.created_at),
        )
        restored.sources += 1
    return restored
