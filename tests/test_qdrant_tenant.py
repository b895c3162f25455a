"""The Qdrant server index keys its collections by user (issue 38.3): the user field's payload
index is a tenant index (``is_tenant``), asked for once per collection, and a collection made
before it is upgraded on open. qdrant-client's local mode keeps no payload indexes (the last
test pins that), so the requests are checked as a server receives them: the adapter and the
official client, unchanged, against ``tests/fakes/qdrant_rest``."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from typing import Any

import pytest
from qdrant_client import QdrantClient, models

from aria_mem.adapters.qdrant_server import QdrantServerIndex
from aria_mem.domain.payload import INDEXED_BOOLEANS, INDEXED_KEYWORDS
from tests.fakes.qdrant_rest import FakeQdrant

C = "memories"
TENANT = {"type": "keyword", "is_tenant": True}


@pytest.fixture
def server() -> Iterator[FakeQdrant]:
    with FakeQdrant() as fake:
        yield fake


def requested(server: FakeQdrant) -> dict[str, Any]:
    return {r["field_name"]: r["field_schema"] for r in server.state.index_requests}


def test_a_new_collection_indexes_the_user_field_as_the_tenant_key(server: FakeQdrant) -> None:
    index = QdrantServerIndex(server.url)
    index.ensure_collection(C, 8)
    index.close()
    asked = requested(server)
    assert asked.pop("user_id") == TENANT
    assert asked == {
        **{name: "keyword" for name in INDEXED_KEYWORDS if name != "user_id"},
        **{name: "bool" for name in INDEXED_BOOLEANS},
    }


def test_an_up_to_date_collection_is_not_indexed_again(server: FakeQdrant) -> None:
    first = QdrantServerIndex(server.url)
    first.ensure_collection(C, 8)
    first.ensure_collection(C, 8)  # every write ensures its collection: nothing asked again
    first.close()
    made = len(server.state.index_requests)
    again = QdrantServerIndex(server.url)  # another process opening the same collection
    again.ensure_collection(C, 8)
    again.close()
    assert len(server.state.index_requests) == made
    assert server.state.schemas[C]["user_id"]["params"]["is_tenant"] is True


def test_a_collection_from_before_the_tenant_key_gets_it_on_open(server: FakeQdrant) -> None:
    server.state.sizes[C] = 8
    server.state.schemas[C] = {
        name: {"data_type": "keyword", "params": None, "points": 0} for name in INDEXED_KEYWORDS
    } | {name: {"data_type": "bool", "params": None, "points": 0} for name in INDEXED_BOOLEANS}
    index = QdrantServerIndex(server.url)
    index.ensure_collection(C, 8)
    index.close()
    assert server.state.index_requests == [{"field_name": "user_id", "field_schema": TENANT}]


def test_local_mode_keeps_no_payload_indexes() -> None:
    """Why the requests are checked against a fake server: if this fails, local mode reports
    payload indexes and the tenant index can be checked there instead."""
    client = QdrantClient(location=":memory:")
    client.create_collection(
        C, vectors_config=models.VectorParams(size=8, distance=models.Distance.COSINE)
    )
    tenant = models.KeywordIndexParams(type=models.KeywordIndexType.KEYWORD, is_tenant=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # "Payload indexes have no effect ..."
        client.create_payload_index(C, "user_id", field_schema=tenant)
    assert client.get_collection(C).payload_schema == {}
    client.close()
