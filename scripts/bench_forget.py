"""Benchmark: forgetting a memory, and forgetting a user, when the review queue and the pass
records are long.

    python -m scripts.bench_forget [--memories 5000] [--users 4] [--forgets 30]

A fresh embedded-PostgreSQL database holds --users users of --memories memories each; every
memory of each user has an open question naming it and the next one, and a pass record (what
a store that has run the rule for a while holds). Then, timed: --forgets single forgets
(``memories.delete``, median and p95), and forgetting one whole user (``erasure.erase_user``),
while the other users' memories stay. What it measures is how the questions and pass records
naming a memory are found: each forget locks them first and deletes them by cascade.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path

from aria_mem.adapters.postgres import embedded
from aria_mem.adapters.postgres.store import PostgresStore
from scripts.benchlib import fresh_store
from tests.factories import make_memory


def _fill(store: PostgresStore, user: str, n: int) -> list[uuid.UUID]:
    """N memories of ``user``, each with a question naming it and the next, and a pass record."""
    memories = [make_memory(f"The user said thing {i} of {user}.", user_id=user) for i in range(n)]
    store.memories.import_memories(memories)
    ids = [m.id for m in memories]
    now = datetime.now(UTC)
    with store.db.connection() as conn, conn.transaction():
        conn.execute(
            "INSERT INTO review_items (id, user_id, companion_id, kind, memory_id, other_id,"
            " reason, created_at) SELECT gen_random_uuid(), %s, 'aria', 'conflict', m, o,"
            " 'a benchmark', %s FROM unnest(%s::uuid[], %s::uuid[]) AS v(m, o)",
            (user, now, ids, [*ids[1:], ids[0]]),
        )
        conn.execute(
            "INSERT INTO consolidations (id, user_id, companion_id, memory_id, other_id,"
            " outcome, reason, at) SELECT gen_random_uuid(), %s, 'aria', m, o, 'review',"
            " 'a benchmark', %s FROM unnest(%s::uuid[], %s::uuid[]) AS v(m, o)",
            (user, now, ids, [*ids[1:], ids[0]]),
        )
        conn.execute("ANALYZE")
    return ids


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--memories", type=int, default=5000, help="per user")
    parser.add_argument("--users", type=int, default=4)
    parser.add_argument("--forgets", type=int, default=30)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="aria-bench-forget-") as tmp:
        admin = embedded.ensure_running(Path(tmp) / "pg")
        try:
            store = fresh_store(admin)
            ids = {f"user{u}": _fill(store, f"user{u}", args.memories) for u in range(args.users)}
            took = []
            for memory_id in ids["user0"][: args.forgets]:
                started = time.perf_counter()
                store.memories.delete(memory_id)
                took.append((time.perf_counter() - started) * 1000)
            ordered = sorted(took)
            started = time.perf_counter()
            erased = store.erasure.erase_user("user1")
            erase = time.perf_counter() - started
            print(
                f"schema version {store.schema_version()}, {args.users} users of "
                f"{args.memories:,} memories, a question and a pass record each"
            )
            print(
                f"| forget one memory | p50 {statistics.median(ordered):.2f} ms | "
                f"p95 {ordered[int(0.95 * (len(ordered) - 1))]:.2f} ms |"
            )
            print(f"| forget a user ({erased.memories:,} memories) | {erase:.2f} s | |")
            store.close()
        finally:
            embedded.stop(Path(tmp) / "pg")


if __name__ == "__main__":
    main()
