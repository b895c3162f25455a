"""The embedded vector index: one Qdrant Edge shard per collection, in the data directory.

A shard can be open in one process at a time (its write-ahead log is locked); see
``service.server`` for the one process that holds them for every aria-mem process.

qdrant-edge-py 0.9.0 matches nothing with ``MatchValue(True)`` on a boolean payload field,
while integer and keyword matches work. So this adapter stores boolean payload values as the
integers 0 and 1 and turns them back into booleans when it reads them; the filter on ``active``
matches the integer 1. ``tests/test_index_contract.py`` pins the upstream behaviour, so the
day it is fixed a test says the workaround can go.

Nothing is written without room on the disk (``disk_space``: a full disk would be SIGBUS here).
"""

from __future__ import annotations

import json
import logging
import shutil
import threading
import uuid
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import qdrant_edge as qe

from aria_mem.adapters import disk_space
from aria_mem.adapters.edge_shards import VECTOR, loaded, made
from aria_mem.domain import dimension
from aria_mem.domain.models import Hit, IndexPoint, SearchScope
from aria_mem.domain.payload import (
    INDEXED_BOOLEANS,
    INDEXED_KEYWORDS,
    SCOPE_KEY,
    payload_scope_key,
    scope_key,
)
from aria_mem.errors import IndexClosedError, IndexDiskFullError, VectorIndexError
from aria_mem.private import private_dir, write_private

log = logging.getLogger(__name__)

_META = "collections.json"


def _to_edge(payload: dict[str, object]) -> dict[str, object]:
    """As stored: booleans as integers, and the scope key made from the payload itself (so it
    can never disagree with the fields it stands for)."""
    stored: dict[str, object] = {
        k: int(v) if k in INDEXED_BOOLEANS and isinstance(v, bool) else v
        for k, v in payload.items()
        if k != SCOPE_KEY
    }
    key = payload_scope_key(payload)
    if key is not None:
        stored[SCOPE_KEY] = key
    return stored


def _from_edge(payload: dict[str, Any] | None) -> dict[str, object]:
    if not payload:
        return {}
    return {
        k: bool(v) if k in INDEXED_BOOLEANS else v for k, v in payload.items() if k != SCOPE_KEY
    }


def _point_id(value: object) -> uuid.UUID:
    """Edge hands back our ids as UUIDs already: printing and parsing each again cost ~2 us,
    30 times a search."""
    return value if isinstance(value, uuid.UUID) else uuid.UUID(str(value))


def _condition(field: str, value: str | bool) -> Any:
    match = qe.MatchValue(int(value) if isinstance(value, bool) else value)
    return qe.FieldCondition(field, match=match)


def _index_scope_key(shard: Any) -> None:
    shard.update(qe.UpdateOperation.create_field_index(SCOPE_KEY, qe.PayloadSchemaType.Keyword))


def _model_filter(model: str | None) -> Any:
    return None if model is None else qe.Filter(must=[_condition("embedding_model", model)])


def _every_point(shard: Any, *, with_payload: bool, model: str | None = None) -> Iterator[Any]:
    """Every point of a shard (``model``: that model's), a thousand at a time, without
    vectors."""
    offset: Any = None
    while True:
        records, offset = shard.scroll(
            qe.ScrollRequest(
                offset=offset,
                limit=1000,
                filter=_model_filter(model),
                with_payload=with_payload,
                with_vector=False,
            )
        )
        yield from records
        if offset is None:
            return


def _add_scope_keys(shard: Any, collection: str) -> None:
    """Give every vector of a shard an older aria-mem wrote its scope key, once: the field
    index is made last, so a shard whose upgrade was cut short is upgraded again."""
    by_key: dict[str, list[Any]] = {}
    for record in _every_point(shard, with_payload=True):
        key = payload_scope_key(_from_edge(record.payload))
        if key is not None:
            by_key.setdefault(key, []).append(record.id)
    for key, ids in by_key.items():
        for start in range(0, len(ids), 1000):
            shard.update(
                qe.UpdateOperation.set_payload(ids[start : start + 1000], {SCOPE_KEY: key})
            )
    _index_scope_key(shard)
    shard.flush()
    log.info(
        "gave the %d vectors of '%s' their scope key (once, after an upgrade)",
        sum(len(ids) for ids in by_key.values()),
        collection,
    )


class EdgeIndex:
    """Qdrant Edge shards under ``root``: ``root/<collection>/`` and a small size register."""

    def __init__(self, root: Path) -> None:
        self._root = root
        self._shards: dict[str, Any] = {}
        self._lock = threading.RLock()
        self._sizes: dict[str, int] | None = None
        """The size register as last read or written (only the service holding the shards
        writes it), so a search does not read and parse a file."""
        self._closed = False
        """Once closed, nothing opens a shard here again: a late call (a client still
        connected while the service stops) must not take a shard's write-ahead log from the
        service that holds the index next."""

    def _refuse_if_closed(self) -> None:
        if self._closed:
            raise IndexClosedError(f"The index in {self._root} was closed here; ask the service")

    def _write_failed(self, what: str, exc: Exception) -> VectorIndexError:
        if disk_space.no_space(exc):
            return disk_space.disk_full(self._root)
        return VectorIndexError(f"{what}: {exc}")

    # -- collections --------------------------------------------------------------------

    def _meta(self) -> dict[str, int]:
        if self._sizes is not None:
            return dict(self._sizes)
        path = self._root / _META
        if not path.exists():
            return {}
        try:
            sizes = {str(k): int(v) for k, v in json.loads(path.read_text()).items()}
        except (OSError, ValueError) as exc:
            raise VectorIndexError(f"The index register {path} is unreadable: {exc}") from exc
        self._sizes = sizes
        return dict(sizes)

    def _write_meta(self, meta: dict[str, int]) -> None:
        private_dir(self._root, what="index folder")
        try:
            write_private(self._root / _META, json.dumps(meta))
        except OSError as exc:
            if disk_space.no_space(exc):
                raise disk_space.disk_full(self._root) from exc
            raise
        self._sizes = dict(meta)

    def collection_size(self, collection: str) -> int | None:
        with self._lock:
            if not (self._root / collection).exists():
                return None
            return self._meta().get(collection)

    def ensure_collection(self, collection: str, size: int) -> None:
        with self._lock:
            self._refuse_if_closed()
            if not dimension.check_collection(collection, self.collection_size(collection), size):
                return
            path = self._root / collection
            if path.exists():
                shutil.rmtree(path)
            private_dir(self._root, what="index folder")
            disk_space.ensure_room(self._root, disk_space.MIN_FREE_BYTES)
            try:
                shard = made(path, size)
                for name in INDEXED_KEYWORDS:
                    shard.update(
                        qe.UpdateOperation.create_field_index(name, qe.PayloadSchemaType.Keyword)
                    )
                for name in INDEXED_BOOLEANS:
                    shard.update(
                        qe.UpdateOperation.create_field_index(name, qe.PayloadSchemaType.Integer)
                    )
                _index_scope_key(shard)
            except Exception as exc:
                raise self._write_failed(f"Could not create the index shard {path}", exc) from exc
            self._shards[collection] = shard
            meta = self._meta()
            meta[collection] = size
            self._write_meta(meta)

    def drop_collection(self, collection: str) -> None:
        with self._lock:
            self._refuse_if_closed()
            shard = self._shards.pop(collection, None)
            if shard is not None:
                shard.close()
            shutil.rmtree(self._root / collection, ignore_errors=True)
            meta = self._meta()
            if meta.pop(collection, None) is not None:
                self._write_meta(meta)

    def _shard(self, collection: str) -> Any:
        shard = self._shards.get(collection)
        if shard is not None:
            return shard
        self._refuse_if_closed()
        path = self._root / collection
        size = self.collection_size(collection)
        if not path.exists() or size is None:
            raise VectorIndexError(f"The index has no '{collection}' collection yet")
        disk_space.ensure_room(
            self._root, disk_space.OPEN_FREE_BYTES + disk_space.sparse_bytes(path)
        )
        try:
            shard, held = loaded(path, size)
        except Exception as exc:
            raise self._write_failed(f"Could not open the index shard {path}", exc) from exc
        if held != size:
            meta = self._meta()
            meta[collection] = held
            try:
                self._write_meta(meta)
            except Exception:
                shard.close()  # or the next attempt finds the shard still locked by this one
                raise
        try:
            if SCOPE_KEY not in shard.info().payload_schema:
                disk_space.ensure_room(self._root, disk_space.MIN_FREE_BYTES)
                _add_scope_keys(shard, collection)
        except Exception as exc:
            shard.close()  # or the next attempt finds the shard still locked by this one
            if isinstance(exc, IndexDiskFullError):
                raise
            raise self._write_failed(f"Could not upgrade the index shard {path}", exc) from exc
        self._shards[collection] = shard
        return shard

    # -- points -------------------------------------------------------------------------

    def upsert(self, collection: str, points: Sequence[IndexPoint]) -> None:
        if not points:
            return
        with self._lock:
            shard = self._shard(collection)
            dimension.check_points(collection, self.collection_size(collection), points)
            disk_space.ensure_room(self._root, disk_space.room_for(points))
            try:
                shard.update(
                    qe.UpdateOperation.upsert_points(
                        [
                            qe.Point(str(p.id), {VECTOR: list(p.vector)}, _to_edge(p.payload))
                            for p in points
                        ]
                    )
                )
                shard.flush()
            except Exception as exc:
                raise self._write_failed(f"Upsert into '{collection}' failed", exc) from exc

    def delete(self, collection: str, ids: Sequence[uuid.UUID]) -> None:
        if not ids:
            return
        with self._lock:
            if self.collection_size(collection) is None:
                return
            shard = self._shard(collection)
            disk_space.ensure_room(self._root, disk_space.MIN_FREE_BYTES)
            try:
                shard.update(qe.UpdateOperation.delete_points([str(i) for i in ids]))
                shard.flush()
            except Exception as exc:
                raise self._write_failed(f"Delete from '{collection}' failed", exc) from exc

    def search(
        self,
        collection: str,
        vector: Sequence[float],
        scope: SearchScope,
        limit: int,
        only: Sequence[uuid.UUID] | None = None,
        *,
        with_payload: bool = True,
    ) -> list[Hit]:
        if only is not None and not only:
            return []
        with self._lock:
            shard = self._shards.get(collection)  # open: it exists (no look at the disk)
            if shard is None:
                if self.collection_size(collection) is None:
                    return []
                shard = self._shard(collection)
            must = [_condition(SCOPE_KEY, scope_key(scope))]
            if only is not None:  # Edge takes the ids as UUIDs: as text they cost 0.04 ms more
                must.append(qe.HasIdCondition(set(only)))
            query_filter = qe.Filter(must=must)
            try:
                found = shard.search(
                    qe.SearchRequest(
                        query=qe.Query.Nearest(list(vector), using=VECTOR),
                        limit=limit,
                        filter=query_filter,
                        with_payload=with_payload,
                    )
                )
            except Exception as exc:
                raise VectorIndexError(f"Search in '{collection}' failed: {exc}") from exc
        if not with_payload:  # retrieval's searches: nothing to convert but the ids
            return [Hit(_point_id(p.id), p.score, {}) for p in found]
        return [Hit(_point_id(p.id), float(p.score), _from_edge(p.payload)) for p in found]

    def count(self, collection: str, model: str | None = None) -> int:
        with self._lock:
            if self.collection_size(collection) is None:
                return 0
            request = qe.CountRequest(exact=True, filter=_model_filter(model))
            return int(self._shard(collection).count(request))

    def ids(self, collection: str, model: str | None = None) -> list[uuid.UUID]:
        """Every point id in a collection (for the orphan sweep), or of one model's vectors."""
        with self._lock:
            if self.collection_size(collection) is None:
                return []
            shard = self._shard(collection)
            points = _every_point(shard, with_payload=False, model=model)
            return [_point_id(r.id) for r in points]

    def close(self) -> None:
        with self._lock:
            self._closed = True
            for shard in self._shards.values():
                for step in (shard.flush, shard.close):  # closed even when a full disk
                    try:  # refuses the flush (each write was flushed already): else its
                        step()  # write-ahead log stays locked until this process ends
                    except Exception as exc:  # closing must not hide the caller's own error
                        log.warning("closing an index shard failed: %s", exc)
            self._shards.clear()
