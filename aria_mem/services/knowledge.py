"""Learning documents: read, split into passages, stored, indexed in their own collection."""

from __future__ import annotations

from dataclasses import dataclass

from aria_mem.domain.chunking import chunk
from aria_mem.domain.records import SyncReport
from aria_mem.errors import UsageError
from aria_mem.ports import DocumentReader, KnowledgeRepository
from aria_mem.services.indexer import Indexer


@dataclass(frozen=True)
class Learned:
    source_id: str
    source: str
    title: str
    passages: int
    replaced: int
    """Passages of an earlier reading of the same source that this one replaced."""
    index: SyncReport


def learn(
    location: str,
    *,
    companion_id: str,
    title: str | None,
    reader: DocumentReader,
    knowledge: KnowledgeRepository,
    indexer: Indexer,
    public_only: bool = False,
) -> Learned:
    source, found_title, text = reader.read(location, public_only=public_only)
    passages = chunk(text)
    if not passages:
        raise UsageError(f"{location} has no text to learn")
    chosen_title = title or found_title
    outcome = knowledge.learn(companion_id, source, chosen_title, passages)
    report = indexer.run_pending()
    return Learned(
        str(outcome.source_id), source, chosen_title, len(passages), outcome.replaced, report
    )
