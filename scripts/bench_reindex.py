"""Benchmark: re-index throughput and the cost of an idle reconciler pass.

    python -m scripts.bench_reindex [--sizes 10000,100000]

N memories (100 users) are stored in a fresh embedded-PostgreSQL database; then a re-index
embeds and indexes all of them into Qdrant Edge with a fast in-process fake embedder (a
deterministic random vector per text, no model, no I/O), so what is measured is our own
overhead: PostgreSQL reads and writes, batching, payloads and Edge upserts. Then the cost of
an idle pass (nothing pending: the work the daemon does every minute) and of a full orphan
sweep, medians.
"""

from __future__ import annotations

import argparse
import hashlib
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from aria_mem.adapters.embedders.base import BaseEmbedder
from aria_mem.adapters.postgres import embedded
from aria_mem.adapters.postgres.store import PostgresStore
from aria_mem.adapters.qdrant_edge import EdgeIndex
from aria_mem.domain.models import (
    MemoryType,
)
from aria_mem.services.reconciler import Reconciler
from aria_mem.services.reindexer import Reindexer
from scripts.benchlib import fresh_store
from tests.factories import make_memory

DIM = 384


class FastFakeEmbedder(BaseEmbedder):
    provider = "fake"

    def __init__(self) -> None:
        super().__init__("fast", batch_size=256)

    def _embed_batch(self, texts: list[str]) -> list[list[float]]:
        out = []
        for text in texts:
            seed = int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big")
            v = np.random.default_rng(seed).standard_normal(DIM)
            out.append((v / np.linalg.norm(v)).tolist())
        return out


def seed(store: PostgresStore, n: int) -> None:
    for start in range(0, n, 5000):
        store.memories.import_memories(
            [
                make_memory(
                    f"Memory {i} about topic {i % 997}.",
                    user_id=f"user{i % 100}",
                    type=list(MemoryType)[i % 8],
                    emotional_significance=0.2,
                )
                for i in range(start, min(n, start + 5000))
            ]
        )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", default="10000,100000")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="aria-bench-") as tmp:
        work = Path(tmp)
        admin = embedded.ensure_running(work / "pg")
        try:
            for n in (int(s) for s in args.sizes.split(",")):
                store = fresh_store(admin)
                seed(store, n)
                index = EdgeIndex(work / f"edge-{n}")
                embedder = FastFakeEmbedder()
                started = time.perf_counter()
                reindexer = Reindexer(store.queue, store.daemon, index, embedder, batch_size=256)
                outcome = reindexer.run(reindexer.prepare(rebuild=True))
                took = time.perf_counter() - started
                assert outcome.done == n and outcome.failed == 0
                embed_only = time.perf_counter()
                embedder.embed([f"Memory {i} about topic {i % 997}." for i in range(2000)])
                embed_cost = (time.perf_counter() - embed_only) / 2000 * n
                reconciler = Reconciler(store.queue, index, embedder)
                idle = [reconciler.run_pass().duration_ms for _ in range(20)]
                sweeps = [reconciler.sweep().duration_ms for _ in range(3)]
                rows.append(
                    f"| {n:,} | {took:.1f} s | {n / took:,.0f}/s | "
                    f"{n / max(1e-9, took - embed_cost):,.0f}/s | "
                    f"{statistics.median(idle):.1f} ms | {statistics.median(sweeps):.0f} ms |"
                )
                print(rows[-1], flush=True)
                index.close()
                store.close()
        finally:
            embedded.stop(work / "pg")
    print(
        "\n| memories | re-index time | memories/s | without the fake embedder's own "
        "time | idle pass (median of 20) | full sweep (median of 3) |"
    )
    print("|---:|---:|---:|---:|---:|---:|")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
