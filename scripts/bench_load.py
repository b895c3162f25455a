"""Benchmark: aria-mem under load, as many clients at once use it.

    python -m scripts.bench_load [--memories 5000] [--seconds 10] [--clients 1,4,16]
                                 [--writers 1,16] [--review-items 6000] [--threads N]
                                 [--json]

In a throw-away ARIA_MEM_HOME on the embedded defaults (embedded PostgreSQL, Qdrant Edge and
all-MiniLM-L6-v2 in process, all behind the aria-mem service, as every command uses them),
``--memories`` generated memories over ten users are imported and indexed. Then:

- searches: 1, 4 and 16 clients at once, each its own process with its own
  ``AriaMem.open()`` (as separate programs would be: no client shares a GIL or a connection
  pool with another), each asking one search after another for ``--seconds`` after a
  warm-up. Searches/s is every search finished in the window over the window; p50 and p99
  are over every search of every client.
- writes: 1 and 16 writers the same way, each ``remember`` a new memory (embedded, indexed,
  compared with the pair's nearest memories).
- the review page: ``--review-items`` open review items for one user (each naming two of
  its memories) put straight into the store, then ``GET /review`` of a real ``aria-mem ui``
  (its first page and its last), idle and while 16 clients search; and, for comparison,
  what the page did before it was paged: every item listed and its two memories read one
  by one through the public API (timed without rendering them).

The machine's load average (1 minute) is printed before and after: other work on the machine
moves every figure here. ``--threads`` sets OMP_NUM_THREADS for the service, so how many
threads the model computes each text with can be compared (on a busy machine it is most of
a lone search's time).
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from aria_mem import AriaMem
from aria_mem.errors import AriaMemError

ROOT = Path(__file__).resolve().parent.parent

USERS = [f"user{n}" for n in range(10)]
COMPANION = "aria"
PAGE_USER = USERS[0]
NAMES = ["Maya", "Jonas", "Priya", "Kofi", "Elif", "Mateo", "Ingrid", "Nadia", "Sam", "Lea"]
RELATIONS = ["sister", "brother", "colleague", "neighbour", "friend", "cousin", "aunt", "coach"]
DOINGS = [
    "loves pottery", "plays chess", "runs marathons", "bakes sourdough bread", "collects stamps",
    "grows tomatoes", "plays the cello", "climbs at the gym", "writes short stories",
    "keeps bees", "restores old bikes", "swims in the lake", "learns Japanese",
    "paints watercolours", "fixes radios", "sings in a choir",
]  # fmt: skip
WHEN = ["on Sundays", "every morning", "after work", "in the summer", "on weekends", "at night"]
ASKED = [
    "What does my {r} like to do?", "Any ideas for a present for {n}?",
    "What is {n} into these days?", "Who do I know that {d}?", "When does {n} usually {v}?",
    "Tell me about my {r}.",
]  # fmt: skip


def memory_text(rng: random.Random, n: int) -> str:
    name, relation = rng.choice(NAMES), rng.choice(RELATIONS)
    return f"The user's {relation} {name} {rng.choice(DOINGS)} {rng.choice(WHEN)} (note {n})."


def question(rng: random.Random) -> str:
    doing = rng.choice(DOINGS)
    return rng.choice(ASKED).format(
        r=rng.choice(RELATIONS), n=rng.choice(NAMES), d=doing, v=doing.split()[0].rstrip("s")
    )


@dataclass
class Level:
    job: str
    clients: int
    seconds: float
    done: int
    errors: int
    per_second: float
    p50_ms: float
    p99_ms: float
    load_before: float
    load_after: float


@dataclass
class ReviewTiming:
    items: int
    first_page_ms: list[float] = field(default_factory=list)
    last_page_ms: list[float] = field(default_factory=list)
    under_load_ms: list[float] = field(default_factory=list)
    unpaged_lookups_s: float = 0.0


# -- the clients (each a process of its own) ------------------------------------------------


def _one(mem: AriaMem, job: str, rng: random.Random, worker: int, count: int) -> None:
    user = rng.choice(USERS)
    if job == "search":
        mem.search(question(rng), user=user, companion=COMPANION)
    else:
        text = memory_text(rng, 1_000_000 * (worker + 1) + count)
        mem.remember(text, user=user, companion=COMPANION)


def client(
    job: str, worker: int, seconds: float, barrier: Any, out: Any
) -> None:  # pragma: no cover - runs in a child process
    rng = random.Random(worker * 7919 + (job == "write"))
    latencies: list[float] = []
    errors = 0
    with AriaMem.open() as mem:
        for n in range(3):  # warm-up: imports, connections, the service's first answers
            _one(mem, job, rng, worker, -1 - n)
        barrier.wait(timeout=600)
        started = time.perf_counter()
        count = 0
        while time.perf_counter() - started < seconds:
            t0 = time.perf_counter()
            try:
                _one(mem, job, rng, worker, count)
            except AriaMemError:  # a refused or failed call is counted, not timed
                errors += 1
            else:
                latencies.append(time.perf_counter() - t0)
            count += 1
        out.put((worker, latencies, errors, time.perf_counter() - started))


def level(job: str, clients: int, seconds: float, during: Callable[[], None] | None) -> Level:
    """``clients`` processes at once; ``during`` runs in this process while they work."""
    spawn = multiprocessing.get_context("spawn")
    barrier = spawn.Barrier(clients + 1)
    out = spawn.Queue()
    workers = [
        spawn.Process(target=client, args=(job, n, seconds, barrier, out)) for n in range(clients)
    ]
    for w in workers:
        w.start()
    barrier.wait(timeout=600)
    before = os.getloadavg()[0]
    if during is not None:
        during()
    results = [out.get(timeout=seconds + 600) for _ in workers]
    for w in workers:
        w.join(timeout=60)
    after = os.getloadavg()[0]
    latencies = sorted(x for _, lat, _, _ in results for x in lat)
    window = max(elapsed for *_, elapsed in results)
    errors = sum(e for _, _, e, _ in results)
    return Level(
        job,
        clients,
        round(window, 1),
        len(latencies),
        errors,
        round(len(latencies) / window, 1),
        round(1000 * statistics.median(latencies), 1) if latencies else 0.0,
        round(1000 * latencies[math.ceil(0.99 * len(latencies)) - 1], 1) if latencies else 0.0,
        before,
        after,
    )


# -- the data -------------------------------------------------------------------------------


def load(mem: AriaMem, home: Path, count: int) -> float:
    rng = random.Random(7)
    lines = home / "memories.jsonl"
    start = datetime(2026, 1, 1, tzinfo=UTC)
    with lines.open("w") as f:
        for n in range(count):
            record = {
                "id": str(uuid.uuid4()),
                "user_id": USERS[n % len(USERS)],
                "companion_id": COMPANION,
                "type": "RelationshipFact" if n % 3 == 0 else "EpisodicEvent",
                "text": memory_text(rng, n),
                "created_at": (start + timedelta(minutes=n)).isoformat(),
            }
            f.write(json.dumps(record) + "\n")
    t0 = time.perf_counter()
    mem.transfer.import_file(lines)
    return time.perf_counter() - t0


def fill_review_queue(mem: AriaMem, items: int) -> None:
    """Items straight into the store (no pass makes 6,000 in minutes): past the public API,
    as the page's reading of them, not their making, is what is measured."""
    from aria_mem.domain.hygiene import ReviewItem, ReviewKind

    own = mem.list(user=PAGE_USER, companion=COMPANION, limit=10_000)
    hygiene = mem._context.store.hygiene
    start = datetime(2026, 6, 1, tzinfo=UTC)
    for k in range(items):
        a = k % len(own)
        b = (a + k // len(own) + 1) % len(own)
        hygiene.propose(
            ReviewItem(
                uuid.uuid4(), PAGE_USER, COMPANION, ReviewKind.CONFLICT, own[a].id, own[b].id,
                "likely changed", start + timedelta(seconds=k),
            )
        )  # fmt: skip


def unpaged_lookups(mem: AriaMem) -> float:
    """What /review did before paging, without the rendering: every item, then its two
    memories one look-up each."""
    t0 = time.perf_counter()
    for item in mem.review.list(user=PAGE_USER, companion=COMPANION):
        mem.get(item.memory_id, user=PAGE_USER, companion=COMPANION)
        if item.other_id is not None:
            mem.get(item.other_id, user=PAGE_USER, companion=COMPANION)
    return time.perf_counter() - t0


@contextmanager
def review_page(env: dict[str, str]) -> Iterator[Callable[[str], float]]:
    """A real `aria-mem ui` for PAGE_USER; yields a timer of GET <path> in ms."""
    import httpx

    server = subprocess.Popen(
        [sys.executable, "-m", "aria_mem", "ui", "--no-browser", "--json",
         "--address", "127.0.0.1:0", "--user", PAGE_USER, "--companion", COMPANION],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT,
    )  # fmt: skip
    try:
        assert server.stdout is not None
        address = json.loads(server.stdout.readline())
        with httpx.Client(timeout=300) as browser:
            browser.get(address["login"])  # the session cookie, as a browser keeps it

            def timed(path: str) -> float:
                t0 = time.perf_counter()
                answer = browser.get(address["url"].rstrip("/") + path)
                answer.raise_for_status()
                return round(1000 * (time.perf_counter() - t0), 1)

            yield timed
    finally:
        server.terminate()
        server.wait(timeout=30)


# -- the run --------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--memories", type=int, default=5000)
    parser.add_argument("--seconds", type=float, default=10.0, help="each level's window")
    parser.add_argument("--clients", default="1,4,16", help="searching clients at once")
    parser.add_argument("--writers", default="1,16", help="writing clients at once")
    parser.add_argument("--review-items", type=int, default=6000, help="0: no review page")
    parser.add_argument(
        "--threads",
        type=int,
        default=0,
        help="OMP_NUM_THREADS for the service's model (0: torch's own choice, one per core)",
    )
    parser.add_argument("--json", action="store_true", help="print JSON for scripts")
    args = parser.parse_args(argv)

    from aria_mem.adapters.postgres import embedded
    from aria_mem.adapters.service.folder import stop_service

    levels: list[Level] = []
    review = ReviewTiming(args.review_items)
    started_load = _load()
    note(f"load average at the start: {started_load}", args)
    with tempfile.TemporaryDirectory(prefix="aria-bench-load-") as tmp:
        home = Path(tmp) / "home"
        home.mkdir()
        os.environ.update(
            ARIA_MEM_HOME=str(home),
            ARIA_MEM_EMBEDDER_PROVIDER="sentence-transformers",
            ARIA_MEM_RETRIEVAL_MIN_SIMILARITY="0.25",
            ARIA_MEM_RETRIEVAL_TIMEOUT="60",  # a slow answer is timed, not cut short
        )
        for key in [k for k in os.environ if k.startswith("OLLAMA_")]:
            del os.environ[key]
        if args.threads:
            os.environ["OMP_NUM_THREADS"] = str(args.threads)  # the service started here
        env = dict(os.environ)
        try:
            with AriaMem.open() as mem:
                loading = load(mem, home, args.memories)
                if args.review_items:
                    fill_review_queue(mem, args.review_items)
                    review.unpaged_lookups_s = round(unpaged_lookups(mem), 2)
            note(f"{args.memories:,} memories imported and indexed in {loading:.0f} s", args)
            with review_page(env) if args.review_items else _nothing() as timed:
                if timed is not None:
                    last = f"/review?page={max(1, -(-args.review_items // 50))}"
                    review.first_page_ms = [timed("/review") for _ in range(5)]
                    review.last_page_ms = [timed(last) for _ in range(5)]
                counts = [int(c) for c in args.clients.split(",")]
                for clients in counts:
                    during = None
                    if timed is not None and clients == max(counts):
                        during = _sampler(timed, args.seconds, review.under_load_ms)
                    levels.append(level("search", clients, args.seconds, during))
                    note(_row(levels[-1]), args)
                for writers in (int(c) for c in args.writers.split(",")):
                    levels.append(level("write", writers, args.seconds, None))
                    note(_row(levels[-1]), args)
            with AriaMem.open() as mem:
                mem.admin.stop()
        finally:
            stop_service(home / "data" / "index")
            embedded.stop(home / "data" / "postgres")
    if args.json:
        print(
            json.dumps(
                {
                    "memories": args.memories,
                    "clients_are": "processes, each with its own AriaMem.open()",
                    "model_threads": args.threads or "torch's own",
                    "load_average_start": started_load,
                    "load_average_end": _load(),
                    "levels": [asdict(x) for x in levels],
                    "review": asdict(review),
                }
            )
        )
        return 0
    print(f"\n{args.memories:,} memories over {len(USERS)} users; each level {args.seconds:g} s;")
    threads = f"OMP_NUM_THREADS={args.threads}" if args.threads else "torch's own threads"
    print(f"the service's model with {threads}; clients are processes, each with its own")
    print(f"AriaMem.open(); load average (1, 5, 15 min) at the start {started_load}, at the")
    print(f"end {_load()}\n")
    print("| work | clients | done | per second | p50 | p99 | errors | load average (1 min) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for x in levels:
        print(_row(x))
    if args.review_items:
        print(f"\nreview page, {review.items:,} open items of one user (GET, ms):")
        print(f"- first page of 50: {_spread(review.first_page_ms)}")
        print(f"- last page: {_spread(review.last_page_ms)}")
        print(f"- first page while the most clients search: {_spread(review.under_load_ms)}")
        print(
            f"- before paging, every item and its two memories looked up one by one "
            f"(no rendering): {review.unpaged_lookups_s:.2f} s"
        )
    return 0


def _row(x: Level) -> str:
    return (
        f"| {x.job} | {x.clients} | {x.done:,} | {x.per_second:.1f}/s | {x.p50_ms:.0f} ms | "
        f"{x.p99_ms:.0f} ms | {x.errors} | {x.load_before:.1f} -> {x.load_after:.1f} |"
    )


def _spread(values: list[float]) -> str:
    if not values:
        return "not measured"
    return f"median {statistics.median(values):.0f}, max {max(values):.0f} ({len(values)} gets)"


def _sampler(
    timed: Callable[[str], float], seconds: float, into: list[float]
) -> Callable[[], None]:
    """GET /review now and then while the clients work (in this process, not one of them)."""

    def sample() -> None:
        end = time.perf_counter() + seconds * 0.9
        while time.perf_counter() < end:
            into.append(timed("/review"))
            time.sleep(0.5)

    return sample


def _load() -> str:
    return ", ".join(f"{x:.1f}" for x in os.getloadavg())


@contextmanager
def _nothing() -> Iterator[None]:
    yield None


def note(line: str, args: argparse.Namespace) -> None:
    print(line, file=sys.stderr if args.json else sys.stdout, flush=True)


if __name__ == "__main__":
    raise SystemExit(main())
