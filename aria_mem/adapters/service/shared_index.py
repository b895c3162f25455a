"""The embedded index (Qdrant Edge) as every aria-mem process reaches it: a VectorIndex whose
calls are requests to the aria-mem service, which holds the shards."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from aria_mem.adapters.service.client import ServiceClient
from aria_mem.adapters.service.folder import hosted
from aria_mem.adapters.service.protocol import PACKED, encode_points, pack_vector
from aria_mem.domain.models import Hit, IndexPoint, SearchScope
from aria_mem.domain.records import IndexOwner


class SharedEdgeIndex:
    """The VectorIndex over the Edge shards in ``root``, as the service serves them."""

    def __init__(
        self,
        root: Path,
        *,
        service: ServiceClient | None = None,
        idle_exit: float = 1800.0,
        wait_seconds: float = 60.0,
    ) -> None:
        self._root = root
        self.service = service or ServiceClient(
            root, idle_exit=idle_exit, wait_seconds=wait_seconds
        )

    @property
    def in_service(self) -> bool:
        """This process runs the service (the daemon)."""
        return hosted(self._root) is not None

    def _call(self, op: str, **args: Any) -> Any:
        return self.service.call({"op": op, **args})

    def collection_size(self, collection: str) -> int | None:
        result = self._call("collection_size", collection=collection)
        return None if result is None else int(result)

    def ensure_collection(self, collection: str, size: int) -> None:
        self._call("ensure_collection", collection=collection, size=size)

    def drop_collection(self, collection: str) -> None:
        self._call("drop_collection", collection=collection)

    def upsert(self, collection: str, points: Sequence[IndexPoint]) -> None:
        self._call("upsert", collection=collection, points=encode_points(points))

    def delete(self, collection: str, ids: Sequence[uuid.UUID]) -> None:
        self._call("delete", collection=collection, ids=[str(x) for x in ids])

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
        here = self.service.here()
        if here is not None:  # the service's own search (a whole one it runs) reads its shards
            return here.index.search(  # as they are: its clients' requests cost 0.3 ms more
                collection, vector, scope, limit, only, with_payload=with_payload
            )
        result = self._call(
            "search",
            collection=collection,
            scope={
                "user_id": scope.user_id,
                "companion_id": scope.companion_id,
                "embedding_model": scope.embedding_model,
            },
            limit=limit,
            only=None if only is None else [str(x) for x in only],
            with_payload=with_payload,
            **{PACKED: pack_vector(vector)},
        )
        return [Hit(uuid.UUID(h["id"]), float(h["score"]), h["payload"]) for h in result]

    def count(self, collection: str, model: str | None = None) -> int:
        return int(self._call("count", collection=collection, model=model))

    def ids(self, collection: str, model: str | None = None) -> list[uuid.UUID]:
        return [uuid.UUID(x) for x in self._call("ids", collection=collection, model=model)]

    def owner(self) -> IndexOwner:
        info = self.service.hello()
        return IndexOwner(
            pid=int(info["pid"]),
            version=str(info["version"]),
            protocol=int(info["protocol"]),
            uptime_s=float(info["uptime_s"]),
            command=str(info.get("command", "?")),
            model=info.get("model"),
            this_process=self.in_service,
        )

    def close(self) -> None:
        self.service.close()
