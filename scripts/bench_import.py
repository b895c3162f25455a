"""Benchmark: import throughput and `aria-mem status` start-up, on the embedded defaults.

    python -m scripts.bench_import [--sizes 1000,10000,100000] [--runs 3]

Import: N memories over 100 users, written as JSON Lines, then parsed + validated and stored
the way `aria-mem import --no-index` does it (embedding aside), each run into a fresh database.
Status: wall time of `aria-mem status` as a new process, cold (embedded PostgreSQL stopped)
and warm (already running), with the fake Ollama from tests/ so the model is not measured.
Prints medians.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from aria_mem.adapters.postgres import embedded
from aria_mem.adapters.postgres.store import PostgresStore
from aria_mem.services.transfer import import_lines, read_lines
from scripts.benchlib import drop_db, fresh_db

TYPES = ["ProfileFact", "Preference", "EpisodicEvent", "RelationshipFact", "Goal"]


def write_file(path: Path, n: int) -> None:
    with path.open("w") as f:
        for i in range(n):
            f.write(
                json.dumps(
                    {
                        "id": str(uuid.uuid4()),
                        "user_id": f"user{i % 100}",
                        "companion_id": "aria",
                        "type": TYPES[i % len(TYPES)],
                        "text": f"Memory number {i} about topic {i % 997}.",
                        "importance": (i % 10) / 10,
                        "emotional_significance": (i % 7) / 7,
                        "confidence": 0.8,
                        "reason": "bench",
                        "pinned": i % 50 == 0,
                        "created_at": "2026-01-01T00:00:00+00:00",
                    }
                )
                + "\n"
            )


def bench_import(admin: str, sizes: list[int], runs: int, work: Path) -> None:
    print("\nImport (parse + validate + store, no embedding), median of", runs, "runs")
    print(
        f"{'memories':>10} {'parse s':>9} {'store s':>9} {'total s':>9} {'mem/s':>10} "
        f"{'re-import s':>12}"
    )
    for n in sizes:
        path = work / f"bench_{n}.jsonl"
        write_file(path, n)
        parse_t, store_t, again_t = [], [], []
        for _ in range(runs):
            dsn = fresh_db(admin)
            store = PostgresStore(dsn)
            store.migrate()
            t0 = time.perf_counter()
            parsed = read_lines(path, skip_invalid=False)
            t1 = time.perf_counter()
            import_lines(store.memories, parsed.lines, skip_invalid=False)
            t2 = time.perf_counter()
            import_lines(store.memories, parsed.lines, skip_invalid=False)
            t3 = time.perf_counter()
            assert store.memories.counts().total == n
            store.close()
            drop_db(admin, dsn)
            parse_t.append(t1 - t0)
            store_t.append(t2 - t1)
            again_t.append(t3 - t2)
        p, s, a = (statistics.median(x) for x in (parse_t, store_t, again_t))
        print(f"{n:>10} {p:>9.2f} {s:>9.2f} {p + s:>9.2f} {n / (p + s):>10.0f} {a:>12.2f}")


def bench_status(runs: int, work: Path) -> None:
    from tests.fakes.ollama_server import FakeOllama

    home = work / "status-home"
    env = {**os.environ, "ARIA_MEM_HOME": str(home)}
    pgdata = home / "data" / "postgres"
    with FakeOllama() as fake:
        env["ARIA_MEM_EMBEDDER_HOST"] = fake.url

        def status() -> float:
            t0 = time.perf_counter()
            subprocess.run(
                [sys.executable, "-m", "aria_mem", "status", "--json"],
                env=env,
                capture_output=True,
                check=True,
            )
            return time.perf_counter() - t0

        status()  # initdb and first migration, not part of either figure
        cold, warm = [], []
        for _ in range(runs):
            embedded.stop(pgdata)
            cold.append(status())
            warm.append(status())
        embedded.stop(pgdata)
    print(
        f"\n`aria-mem status` as a new process, median of {runs}: "
        f"cold (embedded PostgreSQL stopped) {statistics.median(cold):.2f} s, "
        f"warm (running) {statistics.median(warm):.2f} s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="aria-bench-") as tmp:
        work = Path(tmp)
        pgdata = work / "pg"
        admin = os.environ.get("ARIA_MEM_BENCH_DSN") or embedded.ensure_running(pgdata)
        print("PostgreSQL:", "server" if "ARIA_MEM_BENCH_DSN" in os.environ else "embedded")
        try:
            bench_import(admin, [int(s) for s in args.sizes.split(",")], args.runs, work)
        finally:
            if "ARIA_MEM_BENCH_DSN" not in os.environ:
                embedded.stop(pgdata)
        bench_status(args.runs, work)


if __name__ == "__main__":
    main()
