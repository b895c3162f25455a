"""The vector index on a Qdrant server or cluster (qdrant-client); also its local mode
(``local:PATH`` or ``:memory:``), which stands in for a server in tests.

Every search is one user's (``scope_filter``), so the user field is the tenant key: its keyword
index is made with ``is_tenant`` (Qdrant's multitenancy guidance), which tells the server to
keep each user's vectors together on disk and to search one user's part of the collection
rather than the whole graph. The indexes are checked once per collection per process and only
missing or different ones are made, so a collection made before is upgraded on its next open
and an up-to-date one costs one read. Local mode keeps no payload indexes (it warns if asked),
so it is never asked.

A server on this machine is used only when this person's account (or root, or a system
account) runs it, or ``[index] trust_account`` names the account that does: each request
first asks ``model_servers.ServerGuard`` who holds the address, as the model adapters do.
Local mode unpickles every point its folder holds, so that folder is held to the rule for a
model's (``local_folder``): another account's file there would run as this one.
"""

from __future__ import annotations

import sqlite3
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from qdrant_client import QdrantClient, models
from qdrant_client.http.exceptions import ResponseHandlingException, UnexpectedResponse

from aria_mem.adapters.model_servers import QDRANT_PORT, ServerGuard
from aria_mem.domain import dimension
from aria_mem.domain.models import Hit, IndexPoint, SearchScope
from aria_mem.domain.payload import INDEXED_BOOLEANS, INDEXED_KEYWORDS, scope_filter
from aria_mem.errors import ConfigError, VectorIndexError
from aria_mem.ownership import check_folder, check_tree

VECTOR = "dense"
_FAILURES = (
    UnexpectedResponse,
    ResponseHandlingException,
    OSError,
    ValueError,
    RuntimeError,
    AssertionError,  # qdrant-client asserts what it was answered: a server that is no Qdrant
    sqlite3.Error,  # local mode keeps its points in SQLite
)


TENANT_FIELD = "user_id"

PayloadIndex = models.PayloadSchemaType | models.KeywordIndexParams

PAYLOAD_INDEXES: dict[str, PayloadIndex] = {
    **{name: models.PayloadSchemaType.KEYWORD for name in INDEXED_KEYWORDS},
    **{name: models.PayloadSchemaType.BOOL for name in INDEXED_BOOLEANS},
    TENANT_FIELD: models.KeywordIndexParams(type=models.KeywordIndexType.KEYWORD, is_tenant=True),
}
"""The payload indexes each collection has on a server: the user field as the tenant key."""


def _index_matches(have: models.PayloadIndexInfo | None, want: PayloadIndex) -> bool:
    """Whether the server's index of a field is already the one wanted (type and tenancy)."""
    if have is None:
        return False
    if isinstance(want, models.KeywordIndexParams):
        kind, tenant = str(want.type.value), bool(want.is_tenant)
    else:
        kind, tenant = str(want.value), False
    params = have.params
    have_tenant = isinstance(params, models.KeywordIndexParams) and bool(params.is_tenant)
    return str(getattr(have.data_type, "value", have.data_type)) == kind and have_tenant == tenant


def _model_filter(model: str | None) -> models.Filter | None:
    if model is None:
        return None
    match = models.FieldCondition(key="embedding_model", match=models.MatchValue(value=model))
    return models.Filter(must=[match])


_OWN_FOLDER = "give [index] url = local:PATH a folder only you can write, or leave it empty"


def local_folder(url: str) -> Path:
    """The folder of ``local:PATH``, made 0700 if missing, once it and every folder above and
    file in it are this account's (or root's) and no other account can write them: qdrant-client
    unpickles each stored point from it (a ``VectorIndexError`` otherwise, before it is read)."""
    folder = Path(url.removeprefix("local:")).expanduser()
    try:
        if not folder.is_absolute():
            raise ConfigError(
                f"[index] url = local:{folder} is not an absolute path — {_OWN_FOLDER}"
            )
        check_folder(folder, "local index folder", _OWN_FOLDER)
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        check_tree(folder, "local index folder", _OWN_FOLDER)
        folder.chmod(0o700)  # one made before, too: what it holds is reached by no other
    except (ConfigError, OSError) as exc:
        raise VectorIndexError(str(exc)) from exc
    return folder


class QdrantServerIndex:
    def __init__(
        self, url: str, *, api_key: str = "", timeout: float = 5.0, trust_account: str = ""
    ) -> None:
        self._url = url
        self._api_key = api_key or None
        self._timeout = timeout
        self._client: QdrantClient | None = None
        self._sizes: dict[str, int] = {}
        self._indexed: set[str] = set()
        self._is_local = url == ":memory:" or url.startswith("local:")
        self._guard = (
            None
            if self._is_local
            else ServerGuard("index", url, QDRANT_PORT, trust_account, scheme_port=False)
        )

    def _qc(self) -> QdrantClient:
        """The client, once the server is known to be one this person may send to (asked
        before every request: ``ServerGuard`` keeps the answer a few seconds)."""
        if self._guard is not None:
            self._guard.check(VectorIndexError)
        if self._client is None:
            if self._url == ":memory:":
                self._client = QdrantClient(location=":memory:")
            elif self._url.startswith("local:"):
                self._client = QdrantClient(path=str(local_folder(self._url)))
            else:
                self._client = QdrantClient(
                    url=self._url,
                    api_key=self._api_key,
                    timeout=max(1, round(self._timeout)),
                    check_compatibility=False,
                    trust_env=self._guard is None or not self._guard.direct,
                )
        return self._client

    def _fail(self, what: str, exc: Exception) -> VectorIndexError:
        if self._guard is not None and isinstance(exc, (ResponseHandlingException, OSError)):
            self._guard.forget()  # it went away: whoever listens there next is looked up
        said = " ".join(str(exc).split())  # a reply's body comes on lines of its own
        said = said if len(said) <= 300 else said[:299] + "…"
        return VectorIndexError(
            f"Qdrant at {self._url} failed to {what}: {said} — is it running? "
            "Check [index] url in config.toml"
        )

    def collection_size(self, collection: str) -> int | None:
        if collection in self._sizes:
            return self._sizes[collection]
        try:
            if not self._qc().collection_exists(collection):
                return None
            vectors: Any = self._qc().get_collection(collection).config.params.vectors
        except _FAILURES as exc:
            raise self._fail(f"read collection '{collection}'", exc) from exc
        self._sizes[collection] = int(vectors[VECTOR].size)
        return self._sizes[collection]

    def ensure_collection(self, collection: str, size: int) -> None:
        create = dimension.check_collection(collection, self.collection_size(collection), size)
        try:
            if create:
                self._qc().create_collection(
                    collection,
                    vectors_config={
                        VECTOR: models.VectorParams(size=size, distance=models.Distance.COSINE)
                    },
                )
            if not self._is_local and collection not in self._indexed:
                self._ensure_payload_indexes(collection, fresh=create)
        except _FAILURES as exc:
            raise self._fail(f"create collection '{collection}'", exc) from exc

    def _ensure_payload_indexes(self, collection: str, *, fresh: bool) -> None:
        """Make the payload indexes the collection lacks or has otherwise (an index made
        before the tenant key, say); once per collection for this process's life."""
        have = {} if fresh else self._qc().get_collection(collection).payload_schema
        for name, want in PAYLOAD_INDEXES.items():
            if not _index_matches(have.get(name), want):
                self._qc().create_payload_index(collection, name, field_schema=want, wait=True)
        self._indexed.add(collection)

    def drop_collection(self, collection: str) -> None:
        self._sizes.pop(collection, None)
        self._indexed.discard(collection)
        try:
            self._qc().delete_collection(collection)
        except _FAILURES as exc:
            raise self._fail(f"drop collection '{collection}'", exc) from exc

    def upsert(self, collection: str, points: Sequence[IndexPoint]) -> None:
        if not points:
            return
        size = self.collection_size(collection)
        if size is None:
            raise VectorIndexError(f"The index has no '{collection}' collection yet")
        dimension.check_points(collection, size, points)
        try:
            self._qc().upsert(
                collection,
                points=[
                    models.PointStruct(
                        id=str(p.id), vector={VECTOR: list(p.vector)}, payload=dict(p.payload)
                    )
                    for p in points
                ],
                wait=True,
            )
        except _FAILURES as exc:
            raise self._fail(f"upsert into '{collection}'", exc) from exc

    def delete(self, collection: str, ids: Sequence[uuid.UUID]) -> None:
        if not ids or self.collection_size(collection) is None:
            return
        try:
            self._qc().delete(
                collection,
                points_selector=models.PointIdsList(points=[str(i) for i in ids]),
                wait=True,
            )
        except _FAILURES as exc:
            raise self._fail(f"delete from '{collection}'", exc) from exc

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
        if self.collection_size(collection) is None:
            return []
        must: list[models.Condition] = [
            models.FieldCondition(key=field, match=models.MatchValue(value=value))
            for field, value in scope_filter(scope).items()
        ]
        if only is not None:
            must.append(models.HasIdCondition(has_id=[str(i) for i in only]))
        query_filter = models.Filter(must=must)
        try:
            found = (
                self._qc()
                .query_points(
                    collection,
                    query=list(vector),
                    using=VECTOR,
                    query_filter=query_filter,
                    limit=limit,
                    with_payload=with_payload,
                )
                .points
            )
        except _FAILURES as exc:
            raise self._fail(f"search '{collection}'", exc) from exc
        return [Hit(uuid.UUID(str(p.id)), float(p.score), dict(p.payload or {})) for p in found]

    def count(self, collection: str, model: str | None = None) -> int:
        if self.collection_size(collection) is None:
            return 0
        try:
            counted = self._qc().count(collection, count_filter=_model_filter(model), exact=True)
        except _FAILURES as exc:
            raise self._fail(f"count '{collection}'", exc) from exc
        return int(counted.count)

    def ids(self, collection: str, model: str | None = None) -> list[uuid.UUID]:
        if self.collection_size(collection) is None:
            return []
        found: list[uuid.UUID] = []
        offset: Any = None
        try:
            while True:
                records, offset = self._qc().scroll(
                    collection,
                    scroll_filter=_model_filter(model),
                    limit=1000,
                    offset=offset,
                    with_payload=False,
                    with_vectors=False,
                )
                found.extend(uuid.UUID(str(r.id)) for r in records)
                if offset is None:
                    return found
        except _FAILURES as exc:
            raise self._fail(f"scroll '{collection}'", exc) from exc

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None
