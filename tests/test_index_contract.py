"""One contract, every index engine: Qdrant Edge directly, Edge shared between processes,
and qdrant-client's local mode standing in for a Qdrant server."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import qdrant_edge as qe

from aria_mem.adapters.qdrant_edge import EdgeIndex
from aria_mem.adapters.qdrant_server import QdrantServerIndex
from aria_mem.adapters.service.client import ServiceClient
from aria_mem.adapters.service.server import IndexService
from aria_mem.adapters.service.shared_index import SharedEdgeIndex
from aria_mem.domain.models import IndexPoint, SearchScope
from aria_mem.errors import DimensionMismatchError, VectorIndexError
from aria_mem.ports import VectorIndex
from tests.conftest import closed_port
from tests.fakes.vectors import embed

C = "memories"
MODEL = "ollama/fake"


@pytest.fixture(params=["edge", "shared-edge", "qdrant-local"])
def index(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[VectorIndex]:
    built: VectorIndex
    service = None
    if request.param == "edge":
        built = EdgeIndex(tmp_path / "edge")
    elif request.param == "shared-edge":  # every call over the service's socket
        service = IndexService.take(tmp_path / "shared", started="test")
        assert service is not None
        built = SharedEdgeIndex(
            tmp_path / "shared", service=ServiceClient(tmp_path / "shared", in_place=False)
        )
    else:
        built = QdrantServerIndex(":memory:")
    yield built
    built.close()
    if service is not None:
        service.close()


def point(
    text: str,
    *,
    user: str = "u1",
    companion: str = "aria",
    model: str = MODEL,
    active: bool = True,
    pinned: bool = False,
    dim: int = 16,
) -> IndexPoint:
    pid = uuid.uuid4()
    return IndexPoint(
        pid,
        embed(text, dim),
        {
            "memory_id": str(pid),
            "user_id": user,
            "companion_id": companion,
            "type": "ProfileFact",
            "importance": 0.5,
            "pinned": pinned,
            "active": active,
            "created_at": "2026-01-01T00:00:00+00:00",
            "embedding_model": model,
        },
    )


SCOPE = SearchScope("u1", "aria", MODEL)


def test_missing_collection_has_no_size_and_searches_empty(index: VectorIndex) -> None:
    assert index.collection_size(C) is None
    assert index.search(C, embed("x", 16), SCOPE, 5) == []
    assert index.count(C) == 0


def test_upsert_search_ranks_by_cosine_and_returns_payload(index: VectorIndex) -> None:
    index.ensure_collection(C, 16)
    near = point("sister loves pottery")
    far = point("weather forecast rain")
    index.upsert(C, [near, far])
    hits = index.search(C, embed("sister pottery", 16), SCOPE, 5)
    assert hits[0].id == near.id
    assert hits[0].score > hits[-1].score
    assert hits[0].payload["active"] is True and hits[0].payload["pinned"] is False
    assert hits[0].payload["user_id"] == "u1"
    assert index.count(C) == 2


def test_search_is_scoped_to_user_companion_model_and_active(index: VectorIndex) -> None:
    index.ensure_collection(C, 16)
    mine = point("pottery")
    others = [
        point("pottery", user="u2"),
        point("pottery", companion="nova"),
        point("pottery", model="ollama/other"),
        point("pottery", active=False),
    ]
    index.upsert(C, [mine, *others])
    assert [h.id for h in index.search(C, embed("pottery", 16), SCOPE, 30)] == [mine.id]


def test_a_search_without_payload_finds_the_same(index: VectorIndex) -> None:
    """Retrieval asks for ids and scores only; the answer must not change."""
    index.ensure_collection(C, 16)
    index.upsert(C, [point(t) for t in ("pottery", "chess", "violin")] + [point("x", user="u2")])
    query = embed("pottery chess", 16)
    full = index.search(C, query, SCOPE, 5)
    bare = index.search(C, query, SCOPE, 5, with_payload=False)
    assert [(h.id, round(h.score, 6)) for h in bare] == [(h.id, round(h.score, 6)) for h in full]
    assert len(bare) == 3 and all(h.payload == {} for h in bare)
    only = [full[-1].id]
    assert [h.id for h in index.search(C, query, SCOPE, 5, only, with_payload=False)] == only


def test_upsert_replaces_by_id_and_delete_removes(index: VectorIndex) -> None:
    index.ensure_collection(C, 16)
    p = point("chess")
    index.upsert(C, [p])
    index.upsert(C, [IndexPoint(p.id, embed("violin", 16), p.payload)])
    assert index.count(C) == 1
    assert index.search(C, embed("violin", 16), SCOPE, 1)[0].score == pytest.approx(1.0, abs=1e-4)
    index.delete(C, [p.id, uuid.uuid4()])
    assert index.count(C) == 0
    assert index.ids(C) == []


def test_ids_lists_every_point(index: VectorIndex) -> None:
    index.ensure_collection(C, 16)
    points = [point(f"fact {i}") for i in range(25)]
    index.upsert(C, points)
    assert sorted(index.ids(C)) == sorted(p.id for p in points)


def test_ids_and_count_of_one_models_vectors(index: VectorIndex) -> None:
    index.ensure_collection(C, 16)
    old = [point(f"old fact {i}", model="ollama/old") for i in range(3)]
    new = [point(f"new fact {i}") for i in range(4)]
    index.upsert(C, old + new)
    assert sorted(index.ids(C, MODEL)) == sorted(p.id for p in new)
    assert sorted(index.ids(C, "ollama/old")) == sorted(p.id for p in old)
    assert (index.count(C, MODEL), index.count(C, "ollama/old"), index.count(C)) == (4, 3, 7)
    assert index.ids(C, "ollama/none") == [] and index.count("absent", MODEL) == 0


def test_dimension_is_checked(index: VectorIndex) -> None:
    index.ensure_collection(C, 16)
    assert index.collection_size(C) == 16
    with pytest.raises(DimensionMismatchError, match="16-dimensional.*8-dimensional"):
        index.ensure_collection(C, 8)
    with pytest.raises(DimensionMismatchError):
        index.upsert(C, [point("x", dim=8)])
    assert index.count(C) == 0


def test_collections_are_separate_and_can_be_dropped(index: VectorIndex) -> None:
    index.ensure_collection(C, 16)
    index.ensure_collection("knowledge", 16)
    index.upsert("knowledge", [point("pottery")])
    assert index.search(C, embed("pottery", 16), SCOPE, 5) == []
    index.drop_collection("knowledge")
    assert index.collection_size("knowledge") is None
    assert index.collection_size(C) == 16


def test_edge_shards_survive_reopening(tmp_path: Path) -> None:
    first = EdgeIndex(tmp_path / "edge")
    first.ensure_collection(C, 16)
    p = point("pottery")
    first.upsert(C, [p])
    first.close()
    again = EdgeIndex(tmp_path / "edge")
    assert again.search(C, embed("pottery", 16), SCOPE, 1)[0].id == p.id
    again.close()


def test_an_edge_shard_of_another_size_than_recorded_opens_and_is_recorded(
    tmp_path: Path,
) -> None:
    """A crash between making a shard and recording its size can leave the folder's record
    wrong. The shard still opens (it is not refused for the size given when opening it), the
    record takes the shard's own size, and a point of the recorded size is then refused as
    of another size, which says to re-index."""
    first = EdgeIndex(tmp_path / "edge")
    first.ensure_collection(C, 16)
    p = point("pottery")
    first.upsert(C, [p])
    first.close()
    meta = tmp_path / "edge" / "collections.json"
    meta.write_text(json.dumps({C: 32}))
    again = EdgeIndex(tmp_path / "edge")
    assert again.count(C) == 1
    assert again.search(C, embed("pottery", 16), SCOPE, 1)[0].id == p.id
    assert again.collection_size(C) == 16
    with pytest.raises(DimensionMismatchError):
        again.upsert(C, [point("clay", dim=32)])
    again.close()
    assert json.loads(meta.read_text()) == {C: 16}


def test_an_edge_shard_from_before_the_scope_key_is_given_it_once(tmp_path: Path) -> None:
    """Shards an older aria-mem wrote have no ``scope`` keys; searching them by the key alone
    would find nothing, so opening one adds the keys (from each vector's own payload)."""
    first = EdgeIndex(tmp_path / "edge")
    first.ensure_collection(C, 16)
    mine, archived = point("pottery"), point("pottery", active=False)
    theirs = point("pottery", user="u2")
    first.upsert(C, [mine, archived, theirs])
    shard = first._shard(C)
    shard.update(qe.UpdateOperation.delete_payload([str(p.id) for p in (mine, theirs)], ["scope"]))
    shard.update(qe.UpdateOperation.delete_field_index("scope"))
    assert first.search(C, embed("pottery", 16), SCOPE, 5) == []  # as an old shard is
    first.close()
    again = EdgeIndex(tmp_path / "edge")
    assert [h.id for h in again.search(C, embed("pottery", 16), SCOPE, 5)] == [mine.id]
    u2 = SearchScope("u2", "aria", MODEL)
    assert [h.id for h in again.search(C, embed("pottery", 16), u2, 5)] == [theirs.id]
    assert "scope" not in again.search(C, embed("pottery", 16), SCOPE, 5)[0].payload
    again.close()


def test_qdrant_edge_boolean_match_still_matches_nothing(tmp_path: Path) -> None:
    """Pins the upstream bug our Edge adapter works around (booleans stored as 0/1). When this
    fails, qdrant-edge-py matches booleans again and the workaround can be removed."""
    shard = qe.EdgeShard.create(
        str(tmp_path / "raw"),
        qe.EdgeConfig(vectors={"v": qe.EdgeVectorParams(size=2, distance=qe.Distance.Cosine)}),
    )
    shard.update(
        qe.UpdateOperation.upsert_points(
            [qe.Point(1, {"v": [1.0, 0.0]}, {"flag": True, "flag_int": 1})]
        )
    )

    def found(condition: Any) -> int:
        return len(
            shard.search(
                qe.SearchRequest(
                    query=qe.Query.Nearest([1.0, 0.0], using="v"),
                    limit=5,
                    filter=qe.Filter(must=[condition]),
                )
            )
        )

    assert found(qe.FieldCondition("flag", match=qe.MatchValue(True))) == 0
    assert found(qe.FieldCondition("flag_int", match=qe.MatchValue(1))) == 1
    shard.close()


def test_unreachable_qdrant_server_is_an_index_error() -> None:
    dead = QdrantServerIndex(f"http://127.0.0.1:{closed_port()}", timeout=1)
    with pytest.raises(VectorIndexError, match="is it running"):
        dead.collection_size(C)


def _edge_search_threads() -> set[str]:
    """The ids of this process's threads that Qdrant Edge runs searches on (one that ends
    while they are listed is not among them)."""
    found = set()
    for task in Path("/proc/self/task").iterdir():
        try:
            name = (task / "comm").read_text()
        except OSError:
            continue
        if name.startswith("edge-search"):
            found.add(task.name)
    return found


@pytest.mark.parametrize("reopened", [False, True])
def test_an_edge_shard_searches_with_one_thread(tmp_path: Path, reopened: bool) -> None:
    """Edge's default is a pool of search threads per shard, sized by the CPUs (eight on two
    cores), each search handed to it and waited for, its idle threads spinning beside the
    model; aria-mem's shards search on one (``edge_shards.SEARCH_THREADS``), whether made
    now or opened again."""
    before = _edge_search_threads()
    index = EdgeIndex(tmp_path / "edge")
    index.ensure_collection(C, 16)
    index.upsert(C, [point(f"fact {i}") for i in range(20)])
    if reopened:
        index.close()
        index = EdgeIndex(tmp_path / "edge")
    scope = SearchScope("u1", "aria", MODEL)
    assert len(index.search(C, embed("fact 3", 16), scope, 5)) == 5
    assert len(_edge_search_threads() - before) <= 1
    index.close()
