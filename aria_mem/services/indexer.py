"""Bringing the vector index in line with PostgreSQL for a set of index entries.

Usable memories and knowledge passages get their vector (re)written; memories that may not be
used (archived, expired, held) lose theirs; queued deletions of forgotten memories and passages
are carried out. A failure of the embedder or the index leaves the entries pending with the
error noted, for a later pass.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

from aria_mem.domain.models import IndexPoint, Kind
from aria_mem.domain.payload import with_model
from aria_mem.domain.records import IndexEntry, SyncReport
from aria_mem.errors import ServiceError
from aria_mem.ports import Embedder, IndexQueue, VectorIndex

log = logging.getLogger(__name__)

DEFAULT_BATCH = 256


class Indexer:
    def __init__(self, queue: IndexQueue, index: VectorIndex, embedder: Embedder) -> None:
        self._queue = queue
        self._index = index
        self._embedder = embedder

    def sync(self, entries: Sequence[IndexEntry]) -> SyncReport:
        """Write or remove the vectors of ``entries`` (all of one kind) and mark them."""
        report = SyncReport()
        if not entries:
            return report
        kind = entries[0].kind
        usable = [e for e in entries if e.usable]
        unusable = [e for e in entries if not e.usable]
        if unusable:
            try:
                self._index.delete(kind.collection, [e.id for e in unusable])
                self._queue.mark_indexed(kind, [(e.id, e.version) for e in unusable], None)
                report.removed += len(unusable)
            except ServiceError as exc:
                self._failed(report, kind, unusable, exc)
        if usable:
            try:
                model = self._write_vectors(kind, usable)
                self._queue.mark_indexed(kind, [(e.id, e.version) for e in usable], model)
                report.indexed += len(usable)
            except ServiceError as exc:
                self._failed(report, kind, usable, exc)
        return report

    def _write_vectors(self, kind: Kind, entries: Sequence[IndexEntry]) -> str:
        """Embed the entries and upsert them; return the model."""
        vectors = self._embedder.embed([e.text for e in entries])
        model = self._embedder.model_name
        self._index.ensure_collection(kind.collection, len(vectors[0]))
        self._index.upsert(
            kind.collection,
            [
                IndexPoint(e.id, vector, with_model(e.payload, model))
                for e, vector in zip(entries, vectors, strict=True)
            ],
        )
        return model

    def _failed(
        self, report: SyncReport, kind: Kind, entries: Sequence[IndexEntry], exc: ServiceError
    ) -> None:
        """Note the failure on the rows (they stay pending) and in the report."""
        log.warning("could not index %d %s entries: %s", len(entries), kind.value, exc)
        report.failed += len(entries)
        report.errors.append(str(exc))
        try:
            self._queue.mark_failed(kind, [e.id for e in entries], str(exc))
        except ServiceError as store_exc:
            log.warning("could not record the indexing failure: %s", store_exc)

    def run_deletions(self, limit: int = 1000) -> SyncReport:
        report = SyncReport()
        queued = self._queue.queued_deletions(limit)
        by_collection: dict[str, list[int]] = {}
        for item in queued:
            by_collection.setdefault(item.collection, []).append(item.id)
        for collection, ids in by_collection.items():
            points = [q.point_id for q in queued if q.collection == collection]
            try:
                self._index.delete(collection, points)
                self._queue.drop_queued_deletions(ids)
                report.deletions_done += len(ids)
            except ServiceError as exc:
                report.errors.append(str(exc))
                self._queue.note_deletion_failure(ids, str(exc))
        return report

    def run_pending(
        self,
        *,
        batch_size: int = DEFAULT_BATCH,
        max_batches: int | None = None,
        progress: Callable[[int], None] | None = None,
        should_stop: Callable[[], bool] = lambda: False,
    ) -> SyncReport:
        """Work through pending memories, then knowledge passages, a batch at a time; stop a
        kind once a whole batch of it fails (the service is down: the next pass retries)."""
        report = self.run_deletions()
        batches = 0
        for kind in Kind:
            while (max_batches is None or batches < max_batches) and not should_stop():
                entries = self._queue.pending(kind, batch_size)
                if not entries:
                    break
                result = self.sync(entries)
                report.add(result)
                batches += 1
                if progress is not None:
                    progress(result.indexed + result.removed)
                if result.failed == len(entries):
                    if kind is Kind.MEMORY:
                        return report
                    break
        return report
