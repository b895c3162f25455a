"""Bringing the vector index in line with PostgreSQL for a set of index entries.

Usable memories and knowledge passages get their vector (re)written; memories that may not be
used (archived, expired, held) lose theirs; queued deletions of forgotten memories and passages
are carried out. A failure of the embedder or the index leaves the entries pending with the
error noted, for a later pass.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Protocol

from aria_mem.domain.models import IndexPoint, Kind
from aria_mem.domain.payload import with_model
from aria_mem.domain.records import IndexEntry, SyncReport
from aria_mem.errors import ServiceError
from aria_mem.ports import Embedder, IndexQueue, VectorIndex

log = logging.getLogger(__name__)

DEFAULT_BATCH = 256


class ModelFollower(Protocol):
    """How a long-lived process learns that `aria-mem reindex --model` switched the embedding
    model after it opened (the API's context)."""

    def switched_from(self, model: str) -> str | None:
        """The model the database was switched to since this process opened, when it is not
        ``model``; else None."""
        ...

    def embedder_for(self, model: str) -> Embedder:
        """An embedder of ``model``; EmbedderError when this process cannot follow."""
        ...


class Indexer:
    def __init__(
        self,
        queue: IndexQueue,
        index: VectorIndex,
        embedder: Embedder,
        *,
        follower: ModelFollower | None = None,
    ) -> None:
        """With ``follower``, an entry written under a model the database has switched away
        from meanwhile is written again under the new one (see ``sync``)."""
        self._queue = queue
        self._index = index
        self._embedder = embedder
        self._follower = follower

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
                self._index_usable(kind, usable)
                report.indexed += len(usable)
            except ServiceError as exc:
                self._failed(report, kind, usable, exc)
        return report

    def _index_usable(self, kind: Kind, entries: Sequence[IndexEntry]) -> None:
        """Write and mark; then, with a follower, look whether the model was switched while
        they were written. `reindex --model` records the switch before it marks what the old
        model indexed pending, so either it saw these marked (and re-indexes them) or this
        look sees the switch: the entries are put back pending and written with the new
        model, never left indexed under a model nobody searches. A write the index refused
        (the switch recreated the collection for another vector size) is looked at too."""
        versions = [(e.id, e.version) for e in entries]
        model = self._embedder.model_name
        try:
            self._write_vectors(kind, entries, self._embedder)
            self._queue.mark_indexed(kind, versions, model)
        except ServiceError:
            if self._switched_from(model) is None:
                raise
        newer = self._switched_from(model)
        if newer is None or self._follower is None:
            return
        log.info("the embedding model was switched to %s: indexing %d again", newer, len(entries))
        self._queue.mark_pending(kind, [e.id for e in entries])
        model = self._write_vectors(kind, entries, self._follower.embedder_for(newer))
        self._queue.mark_indexed(kind, versions, model)

    def _switched_from(self, model: str) -> str | None:
        return None if self._follower is None else self._follower.switched_from(model)

    def _write_vectors(self, kind: Kind, entries: Sequence[IndexEntry], embedder: Embedder) -> str:
        """Embed the entries and upsert them; return the model."""
        vectors = embedder.embed([e.text for e in entries])
        model = embedder.model_name
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
