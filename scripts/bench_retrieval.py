"""Benchmark: retrieval overhead (everything but the embedding call) and whole retrieval.

    python -m scripts.bench_retrieval [--sizes 1000,10000,100000] [--queries 200]
                                      [--engines edge,qdrant-local] [--candidates dense,fused]

For each size, N memories spread over 100 users are stored in a fresh embedded-PostgreSQL
database and indexed with random 384-dimensional unit vectors. Each memory's text is "The user"
and ten words drawn Zipf-like from a 5,000-word vocabulary, so the word search has real work:
common words match many memories, rare ones few. Each query takes a stored memory's vector
plus noise, so there are real hits above the similarity bar, and its text is three of that
memory's words and two random ones. The table is analysed after the import (as autovacuum
does on a database that has run a while). "overhead" is the
whole retrieval (profile, search, validate, rank, format) with an embedder that hands back a
precomputed vector, so no model is timed; "whole" adds the embedding call through the real
ollama client to the fake Ollama server over HTTP. p50 and p95 over the queries, after warm-up.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from aria_mem.adapters.embedders.base import BaseEmbedder
from aria_mem.adapters.embedders.ollama import OllamaEmbedder
from aria_mem.adapters.postgres import embedded
from aria_mem.adapters.postgres.store import PostgresStore
from aria_mem.adapters.qdrant_edge import EdgeIndex
from aria_mem.adapters.qdrant_server import QdrantServerIndex
from aria_mem.domain.fusion import CandidateSource
from aria_mem.domain.models import (
    MEMORIES_COLLECTION,
    IndexPoint,
    Memory,
    MemoryType,
)
from aria_mem.domain.payload import memory_payload
from aria_mem.ports import VectorIndex
from aria_mem.services.retriever import Retriever
from scripts.benchlib import fresh_store
from tests.factories import make_memory

DIM = 384
MODEL = "ollama/mxbai-embed-large"
TYPES = list(MemoryType)


class QueuedEmbedder(BaseEmbedder):
    """Hands back the next precomputed vector: no model, no I/O."""

    provider = "ollama"

    def __init__(self) -> None:
        super().__init__("mxbai-embed-large")
        self.queue: list[list[float]] = []

    def _embed_batch(self, texts: list[str]) -> list[list[float]]:
        return [self.queue.pop() for _ in texts]


VOCABULARY = 5000


def sentence(rng: np.random.Generator, count: int) -> list[str]:
    ranks = np.minimum(rng.zipf(1.2, size=count), VOCABULARY)
    return [f"word{r}" for r in ranks]


def build(
    n: int, admin: str, index: VectorIndex, rng: np.random.Generator
) -> tuple[PostgresStore, dict[str, list[tuple[np.ndarray, str]]]]:
    store = fresh_store(admin)
    vectors = rng.normal(size=(n, DIM)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    by_user: dict[str, list[tuple[np.ndarray, str]]] = {}
    memories: list[Memory] = []
    for i in range(n):
        user = f"user{i % 100}"
        text = " ".join(["The user", *sentence(rng, 10)]) + f" ({i})."
        memories.append(
            make_memory(
                text,
                user_id=user,
                type=TYPES[i % len(TYPES)],
                importance=(i % 10) / 10,
                emotional_significance=(i % 7) / 7,
                pinned=i % 97 == 0,
                use_count=i % 30,
            )
        )
        by_user.setdefault(user, []).append((vectors[i], text))
    for start in range(0, n, 5000):
        store.memories.import_memories(memories[start : start + 5000])
    with store.db.connection() as conn:
        # What autovacuum's analyze has done on any database that has run a while; timing
        # plans made without statistics would measure the first minute, not the steady state.
        conn.execute("ANALYZE memories")
    index.ensure_collection(MEMORIES_COLLECTION, DIM)
    for start in range(0, n, 1000):
        chunk = memories[start : start + 1000]
        index.upsert(
            MEMORIES_COLLECTION,
            [
                IndexPoint(m.id, vectors[start + j].tolist(), memory_payload(m, MODEL))
                for j, m in enumerate(chunk)
            ],
        )
    return store, by_user


def percentiles(values: Sequence[float]) -> tuple[float, float]:
    ordered = sorted(values)
    return statistics.median(ordered), ordered[int(0.95 * (len(ordered) - 1))]


def run_queries(
    retriever: Retriever,
    by_user: dict[str, list[tuple[np.ndarray, str]]],
    queries: int,
    rng: np.random.Generator,
    feed: QueuedEmbedder | None,
) -> tuple[list[float], dict[str, list[float]], int]:
    totals: list[float] = []
    stages: dict[str, list[float]] = {}
    chosen = 0
    users = sorted(by_user)
    for q in range(queries + 20):
        user = users[q % len(users)]
        base, text = by_user[user][int(rng.integers(len(by_user[user])))]
        noisy = base + rng.normal(scale=0.02, size=DIM).astype(np.float32)
        if feed is not None:
            feed.queue.append((noisy / np.linalg.norm(noisy)).tolist())
        own = [w for w in text.split() if w.startswith("word")]
        message = " ".join([*rng.choice(own, size=3), *sentence(rng, 2)])
        result = retriever.retrieve(user, "aria", f"Tell me about {message}")
        if q < 20:
            continue
        timings = dict(result.timings.items())
        totals.append(timings["total"] - (timings.get("embed", 0.0) if feed is not None else 0.0))
        for k, v in timings.items():
            stages.setdefault(k, []).append(v)
        chosen += len(result.chosen)
    return totals, stages, chosen


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--engines", default="edge,qdrant-local")
    parser.add_argument(
        "--candidates",
        default="dense,fused",
        help="candidate sources to time on the same data (dense: the seed's; fused: shipped)",
    )
    args = parser.parse_args()
    rng = np.random.default_rng(7)
    random.seed(7)
    rows: list[str] = []
    with tempfile.TemporaryDirectory(prefix="aria-bench-") as tmp:
        work = Path(tmp)
        admin = embedded.ensure_running(work / "pg")
        try:
            for engine in args.engines.split(","):
                for n in (int(s) for s in args.sizes.split(",")):
                    index: VectorIndex = (
                        EdgeIndex(work / f"edge-{n}")
                        if engine == "edge"
                        else QdrantServerIndex(":memory:")
                    )
                    t0 = time.perf_counter()
                    store, by_user = build(n, admin, index, rng)
                    setup = time.perf_counter() - t0
                    for source in args.candidates.split(","):
                        feed = QueuedEmbedder()
                        retriever = Retriever(
                            store.reads,
                            index,
                            feed,
                            timeout=30,
                            candidates=CandidateSource(source),
                        )
                        totals, stages, chosen = run_queries(
                            retriever, by_user, args.queries, rng, feed
                        )
                        retriever.close()
                        p50, p95 = percentiles(totals)
                        parts = " ".join(
                            f"{k} {statistics.median(v):.2f}"
                            for k, v in stages.items()
                            if k not in ("embed", "total")
                        )
                        rows.append(
                            f"| {engine} | {n:,} | overhead, {source} | {p50:.2f} | {p95:.2f} | "
                            f"{parts} | {chosen / args.queries:.1f} | {setup:.0f} s |"
                        )
                        print(rows[-1], flush=True)
                    if engine == "edge":
                        from tests.fakes.ollama_server import FakeOllama, FakeOllamaState

                        with FakeOllama(FakeOllamaState(dim=DIM)) as fake:
                            whole = Retriever(
                                store.reads,
                                index,
                                OllamaEmbedder("mxbai-embed-large", host=fake.url),
                                timeout=30,
                            )
                            totals, stages, chosen = run_queries(
                                whole, by_user, args.queries, rng, None
                            )
                            p50, p95 = percentiles(totals)
                            embed = statistics.median(stages["embed"])
                            rows.append(
                                f"| {engine} + fake Ollama over HTTP | {n:,} | whole | "
                                f"{p50:.2f} | {p95:.2f} | embed {embed:.2f} | — | — |"
                            )
                            print(rows[-1], flush=True)
                            whole.close()
                    store.close()
                    index.close()
        finally:
            embedded.stop(work / "pg")
    print(
        "\n| engine | memories | measured | p50 ms | p95 ms | stage medians (ms) | "
        "chosen/query | setup |"
    )
    print("|---|---:|---|---:|---:|---|---:|---:|")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
