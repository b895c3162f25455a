"""Bringing the vector index in line with PostgreSQL for a set of memories.

Usable memories get their vector (re)written; memories that may not be used (archived, expired,
held) lose theirs; queued deletions of forgotten memories are carried out. A failure of the
embedder or the index leaves the memories pending with the error noted, for a later pass.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial

from aria_mem.domain.models import (
    KNOWLEDGE_COLLECTION,
    MEMORIES_COLLECTION,
    IndexPoint,
    KnowledgeItem,
    Memory,
    knowledge_payload,
    memory_payload,
)
from aria_mem.errors import ServiceError
from aria_mem.ports import Embedder, MemoryStore, VectorIndex

log = logging.getLogger(__name__)


@dataclass
class SyncReport:
    indexed: int = 0
    removed: int = 0
    failed: int = 0
    deletions_done: int = 0
    errors: list[str] = field(default_factory=list)

    def add(self, other: SyncReport) -> None:
        self.indexed += other.indexed
        self.removed += other.removed
        self.failed += other.failed
        self.deletions_done += other.deletions_done
        self.errors.extend(e for e in other.errors if e not in self.errors)


class Indexer:
    def __init__(self, store: MemoryStore, index: VectorIndex, embedder: Embedder) -> None:
        self._store = store
        self._index = index
        self._embedder = embedder

    def sync(self, items: Sequence[tuple[Memory, bool]]) -> SyncReport:
        """Write or remove the vectors of ``items`` (memory, usable) and mark them."""
        report = SyncReport()
        usable = [m for m, ok in items if ok]
        unusable = [m for m, ok in items if not ok]
        if unusable:
            try:
                self._index.delete(MEMORIES_COLLECTION, [m.id for m in unusable])
                self._store.mark_indexed([(m.id, m.updated_at) for m in unusable], None)
                report.removed += len(unusable)
            except ServiceError as exc:
                self._failed(report, [m.id for m in unusable], exc)
        if usable:
            try:
                model = self._write_vectors(
                    MEMORIES_COLLECTION,
                    [(m.id, m.text, partial(memory_payload, m)) for m in usable],
                )
                self._store.mark_indexed([(m.id, m.updated_at) for m in usable], model)
                report.indexed += len(usable)
            except ServiceError as exc:
                self._failed(report, [m.id for m in usable], exc)
        return report

    def _write_vectors(
        self,
        collection: str,
        entries: Sequence[tuple[uuid.UUID, str, Callable[[str], dict[str, object]]]],
    ) -> str:
        """Embed (id, text, payload-for-model) entries and upsert them; return the model."""
        vectors = self._embedder.embed([text for _, text, _ in entries])
        model = self._embedder.model_name
        self._index.ensure_collection(collection, len(vectors[0]))
        self._index.upsert(
            collection,
            [
                IndexPoint(point_id, vector, payload(model))
                for (point_id, _, payload), vector in zip(entries, vectors, strict=True)
            ],
        )
        return model

    def _failed(
        self,
        report: SyncReport,
        ids: Sequence[uuid.UUID],
        exc: ServiceError,
        *,
        knowledge: bool = False,
    ) -> None:
        """Note the failure on the rows (they stay pending) and in the report."""
        what = "knowledge passages" if knowledge else "memories"
        log.warning("could not index %d %s: %s", len(ids), what, exc)
        report.failed += len(ids)
        report.errors.append(str(exc))
        mark = self._store.mark_knowledge_failed if knowledge else self._store.mark_index_failed
        try:
            mark(ids, str(exc))
        except ServiceError as store_exc:
            log.warning("could not record the indexing failure: %s", store_exc)

    def sync_knowledge(self, items: Sequence[KnowledgeItem]) -> SyncReport:
        report = SyncReport()
        if not items:
            return report
        try:
            model = self._write_vectors(
                KNOWLEDGE_COLLECTION,
                [(i.id, i.text, partial(knowledge_payload, i)) for i in items],
            )
            self._store.mark_knowledge_indexed([(i.id, i.updated_at) for i in items], model)
            report.indexed += len(items)
        except ServiceError as exc:
            self._failed(report, [i.id for i in items], exc, knowledge=True)
        return report

    def run_deletions(self, limit: int = 1000) -> SyncReport:
        report = SyncReport()
        queued = self._store.queued_deletions(limit)
        by_collection: dict[str, list[int]] = {}
        for item in queued:
            by_collection.setdefault(item.collection, []).append(item.id)
        for collection, ids in by_collection.items():
            points = [q.point_id for q in queued if q.collection == collection]
            try:
                self._index.delete(collection, points)
                self._store.drop_queued_deletions(ids)
                report.deletions_done += len(ids)
            except ServiceError as exc:
                report.errors.append(str(exc))
                self._store.note_deletion_failure(ids, str(exc))
        return report

    def run_pending(
        self,
        *,
        batch_size: int = 256,
        max_batches: int | None = None,
        progress: Callable[[int], None] | None = None,
        should_stop: Callable[[], bool] = lambda: False,
    ) -> SyncReport:
        """Work through pending memories a batch at a time; stop early once a whole batch
        fails (the service is down: the next pass will retry)."""
        report = self.run_deletions()
        batches = 0
        while (max_batches is None or batches < max_batches) and not should_stop():
            items = self._store.pending(batch_size)
            if not items:
                break
            result = self.sync(items)
            report.add(result)
            batches += 1
            if progress is not None:
                progress(result.indexed + result.removed)
            if result.failed == len(items):
                return report
        while max_batches is None or batches < max_batches:
            passages = self._store.pending_knowledge(batch_size)
            if not passages or should_stop():
                break
            result = self.sync_knowledge(passages)
            report.add(result)
            batches += 1
            if progress is not None:
                progress(result.indexed)
            if result.failed == len(passages):
                break
        return report
