"""Benchmark: retrieval overhead (everything but the embedding call) and whole retrieval.

    python -m scripts.bench_retrieval [--sizes 1000,10000,100000] [--users 100] [--queries 200]
                                      [--engines edge,qdrant-local] [--candidates dense,fused]
    python -m scripts.bench_retrieval --engines edge --sizes 1000000 --users 10000
    python -m scripts.bench_retrieval --data DIR [--sets realtalk,locomo]

For each size, N memories spread over --users users are stored in a fresh embedded-PostgreSQL
database and indexed with random 384-dimensional unit vectors, 5,000 at a time (the script
never holds them all, so a million fit). Each memory's text is "The user"
and ten words drawn Zipf-like from a 5,000-word vocabulary, so the word search has real work:
common words match many memories, rare ones few. Each query takes a stored memory's vector
plus noise, so there are real hits above the similarity bar, and its text is three of that
memory's words and two random ones. The table is analysed after the import (as autovacuum
does on a database that has run a while). "overhead" is the
whole retrieval (profile, search, validate, rank, format) with an embedder that hands back a
precomputed vector, so no model is timed; "whole" adds the embedding call through the real
ollama client to the fake Ollama server over HTTP. p50 and p95 over the queries, after warm-up.
A second table gives the import: memories stored and indexed per second (each step timed on
its own), this process's peak memory (Qdrant Edge runs inside it), the index's files and the
PostgreSQL database.

What a Qdrant cluster would change (not measured here: no cluster can run on this machine):
the index search moves from Edge in process (0.1-0.4 ms here, up to a million memories) to a
request over the network (a round trip more; not measured here), the index's memory and
disk leave this machine and are split over the cluster's nodes, and with the user field as
the tenant key (``is_tenant``; ``aria_mem/adapters/qdrant_server.py``) a search reads one
user's part of a shard, so its cost follows that user's memories, not the collection's. The
PostgreSQL reads (profile, words, validation) are per user too and stay as they are.
docs/service.md says how to run on one.

--through-service: the same sizes through the public API as a client of the aria-mem service
(``scripts/bench_retrieval_served.py``), as a program using aria-mem meets them.

--data DIR: instead, the real sets of ``scripts/bench_real.py`` (REALTALK, the LoCoMo
development half; read from DIR, never copied) through the public API with the real model,
as a client of the aria-mem service: the overhead of each question's ``search``.
"""

from __future__ import annotations

import argparse
import random
import resource
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
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
from aria_mem.domain.retrieval import SearchResult
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


QUERY_USERS = 400
"""Only this many users are asked about; only their memories are kept for the queries, so the
benchmark's own copy of the data stays small beside the index at a million memories."""
CHUNK = 5000


@dataclass
class Built:
    store: PostgresStore
    by_user: dict[str, list[tuple[np.ndarray, str]]]
    store_seconds: float = 0.0
    index_seconds: float = 0.0


def build(n: int, users: int, admin: str, index: VectorIndex, rng: np.random.Generator) -> Built:
    """N memories over ``users`` users, made, stored and indexed CHUNK at a time (never all of
    them in this process at once), each step timed on its own."""
    built = Built(fresh_store(admin), {})
    index.ensure_collection(MEMORIES_COLLECTION, DIM)
    started = time.perf_counter()
    for start in range(0, n, CHUNK):
        size = min(CHUNK, n - start)
        vectors = rng.normal(size=(size, DIM)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        memories: list[Memory] = []
        for j in range(size):
            i = start + j
            user = f"user{i % users}"
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
            if i % users < QUERY_USERS:
                built.by_user.setdefault(user, []).append((vectors[j].copy(), text))
        t0 = time.perf_counter()
        built.store.memories.import_memories(memories)
        t1 = time.perf_counter()
        for at in range(0, size, 1000):
            index.upsert(
                MEMORIES_COLLECTION,
                [
                    IndexPoint(m.id, vectors[at + k].tolist(), memory_payload(m, MODEL))
                    for k, m in enumerate(memories[at : at + 1000])
                ],
            )
        built.store_seconds += t1 - t0
        built.index_seconds += time.perf_counter() - t1
        done = start + size
        if done % 100_000 == 0 or done == n:
            print(
                f"  {done:,} memories in {time.perf_counter() - started:.0f} s: stored "
                f"{done / built.store_seconds:,.0f}/s, indexed {done / built.index_seconds:,.0f}/s,"
                f" peak RSS {peak_rss_mib():,.0f} MiB",
                file=sys.stderr,
                flush=True,
            )
    with built.store.db.connection() as conn:
        # What autovacuum's analyze has done on any database that has run a while; timing
        # plans made without statistics would measure the first minute, not the steady state.
        conn.execute("ANALYZE memories")
    return built


def peak_rss_mib() -> float:
    """This process's peak resident memory (Linux reports KiB): Qdrant Edge runs inside it."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def folder_mib(path: Path) -> float:
    return sum(f.stat().st_blocks * 512 for f in path.rglob("*") if f.is_file()) / 2**20


def import_row(engine: str, n: int, users: int, built: Built, work: Path, setup: float) -> str:
    """How fast the N memories went in and what they take: this process's peak memory (the
    Edge shard lives in it; the benchmark keeps only the asked users' memories), the index's
    files and PostgreSQL's database."""
    with built.store.db.connection() as conn:
        row = conn.execute("SELECT pg_database_size(current_database()) AS size").fetchone()
    database = (row["size"] if row else 0) / 2**20
    edge = work / f"edge-{n}"
    on_disk = f"{folder_mib(edge):,.0f} MiB" if edge.exists() else "—"
    return (
        f"| {engine} | {n:,} | {users:,} | {n / built.store_seconds:,.0f} | "
        f"{n / built.index_seconds:,.0f} | {setup:.0f} s | {peak_rss_mib():,.0f} MiB | "
        f"{on_disk} | {database:,.0f} MiB |"
    )


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


@dataclass
class Served:
    """What a program's searches cost, one ``add`` a search: "pipeline" is the retrieval's own
    stages less its embedding call, "client" the wall time of ``search`` less the same call,
    "there and back" the wall time less the retrieval's own total."""

    pipeline: list[float] = field(default_factory=list)
    client: list[float] = field(default_factory=list)
    crossing: list[float] = field(default_factory=list)
    stages: dict[str, list[float]] = field(default_factory=dict)

    def add(self, wall: float, result: SearchResult) -> None:
        timings = dict(result.timings.items())
        embed = timings.get("embed", 0.0)
        self.pipeline.append(timings["total"] - embed)
        self.client.append(wall - embed)
        self.crossing.append(wall - timings["total"])
        for stage, value in timings.items():
            self.stages.setdefault(stage, []).append(value)

    def rows(self, served: int, asked: int) -> list[tuple[str, int, float, float, str]]:
        """Each row of the table: what, how many searches, p50, p95, and beside the pipeline
        the stage medians and how many of the ``asked`` searches the service ``served``."""
        stages = " ".join(
            f"{k} {statistics.median(v):.2f}" for k, v in self.stages.items() if k != "total"
        )
        parts = f"{stages}; answered by the service: {served:,} of {asked:,}"
        measured = (
            ("pipeline", self.pipeline),
            ("client", self.client),
            ("there and back", self.crossing),
        )
        return [
            (what, len(values), *percentiles(values), parts if what == "pipeline" else "")
            for what, values in measured
        ]


def answered_by_service(index_dir: Path) -> int:
    """Searches the aria-mem service has run itself so far: the retriever logs a line for each
    in the process that runs it, and the service's log keeps them (a search run in this
    process instead, through the service for the index alone, leaves none there)."""
    from aria_mem.adapters.service.folder import log_path_for

    log = log_path_for(index_dir)
    if not log.exists():
        return 0
    with log.open(encoding="utf-8", errors="replace") as lines:
        return sum("aria_mem.services.retriever: retrieval user=" in line for line in lines)


def real_data(folder: Path, sets: list[str], home: Path | None) -> None:
    """Each real set (``bench_real``'s readers; nothing of it is copied) through the public API
    on the embedded defaults, all-MiniLM-L6-v2 in the aria-mem service, as a program using
    aria-mem is its client: every question asked once, after a warm-up. "pipeline" is the
    retrieval's own stages less its embedding call; "client" is the wall time of ``search``
    as the program sees it, less the same embedding call. When the service answers the whole
    search (it runs the trip in the process that holds the index), "pipeline" is its own
    stages as the service timed them and "client" adds the request and the result's way back;
    "there and back" is, question by question, the wall time of ``search`` less the
    retrieval's own total: what crossing to the service costs (less sensitive to the machine's
    load than the two rows above it). The last column says how many searches the service ran."""
    import json
    import os

    from aria_mem.api import AriaMem
    from aria_mem.config import SUGGESTED_MIN_SIMILARITY
    from aria_mem.domain.models import Stage
    from scripts import bench_real

    loaders = {
        "realtalk": lambda: bench_real.realtalk(folder / "realtalk"),
        "locomo": lambda: bench_real.locomo(folder / "locomo" / "locomo-dev.json"),
    }
    embedder = {"provider": "sentence-transformers", "model": bench_real.MODEL}
    retrieval = {"min_similarity": SUGGESTED_MIN_SIMILARITY[bench_real.MODEL], "timeout": 60.0}
    rows: list[str] = []
    with tempfile.TemporaryDirectory(prefix="aria-bench-real-") as tmp:
        for name in sets:
            data = loaders[name]()
            place = (home or Path(tmp)) / name
            place.mkdir(parents=True, exist_ok=True)
            os.environ["ARIA_MEM_HOME"] = str(place)
            lines = place / "memories.jsonl"
            lines.write_text("".join(json.dumps(m) + "\n" for m in data.memories), "utf-8")
            with AriaMem.open(None, embedder=embedder, retrieval=retrieval) as mem:
                mem.transfer.import_file(lines)
                for user in data.users:
                    mem.relationship.set_stage(Stage.ESTABLISHED, user=user, companion="aria")
                before = answered_by_service(mem.settings.index_dir)
                measured = Served()
                for i, q in enumerate([*data.questions[:20], *data.questions]):
                    t0 = time.perf_counter()
                    result = mem.search(
                        q.text, user=q.user, companion="aria", now=data.clock[q.user]
                    )
                    wall = (time.perf_counter() - t0) * 1000
                    if i >= 20:
                        measured.add(wall, result)
                served = answered_by_service(mem.settings.index_dir) - before
                mem.admin.stop()
            for what, count, p50, p95, parts in measured.rows(served, len(data.questions) + 20):
                rows.append(
                    f"| {name} | {len(data.memories):,} | {count:,} | {what} | "
                    f"{p50:.2f} | {p95:.2f} | {parts} |"
                )
                print(rows[-1], flush=True)
    print("\n| set | memories | questions | overhead | p50 ms | p95 ms | stage medians (ms) |")
    print("|---|---:|---:|---|---:|---:|---|")
    print("\n".join(rows))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--users", type=int, default=100, help="memories spread over this many")
    parser.add_argument("--engines", default="edge,qdrant-local")
    parser.add_argument(
        "--candidates",
        default="dense,fused",
        help="candidate sources to time on the same data (dense: the seed's; fused: shipped)",
    )
    parser.add_argument(
        "--data",
        type=Path,
        help="instead: the real sets in this folder (realtalk/, locomo/), through the API",
    )
    parser.add_argument("--sets", default="realtalk,locomo", help="with --data")
    parser.add_argument(
        "--through-service",
        action="store_true",
        help="the sizes through the public API as a client of the aria-mem service "
        "(scripts/bench_retrieval_served.py), instead of the retriever in this process",
    )
    parser.add_argument("--home", type=Path, help="with --data: keep the homes here")
    args = parser.parse_args()
    if args.data is not None:
        real_data(args.data, args.sets.split(","), args.home)
        return
    rng = np.random.default_rng(7)
    random.seed(7)
    rows: list[str] = []
    if args.through_service:
        from scripts.bench_retrieval_served import through_service

        for n in (int(s) for s in args.sizes.split(",")):
            rows += through_service(n, args.users, args.queries, rng)
        print(
            "\n| engine | memories | measured | p50 ms | p95 ms | stage medians (ms) | "
            "chosen/query | setup |"
        )
        print("|---|---:|---|---:|---:|---|---:|---:|")
        print("\n".join(rows))
        return
    imports: list[str] = []
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
                    built = build(n, args.users, admin, index, rng)
                    store, by_user = built.store, built.by_user
                    setup = time.perf_counter() - t0
                    imports.append(import_row(engine, n, args.users, built, work, setup))
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
    print(
        "\n| engine | memories | users | stored/s | indexed/s | setup | peak RSS | "
        "index on disk | PostgreSQL database |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    print("\n".join(imports))


if __name__ == "__main__":
    main()
