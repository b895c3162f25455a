"""``scripts/bench_retrieval.py --through-service``: the synthetic sizes as a program using
aria-mem meets them, through the public API as a client of the aria-mem service.

Memories and queries made as the in-process rows make them (``bench_retrieval.build`` and
``run_queries``: "The user" and ten Zipf-drawn words, a random unit vector each; a query is a
stored memory's vector plus noise, with three of its words and two others), but written as a
program writes them: one JSON Lines file imported by ``AriaMem.transfer.import_file``, which
the service stores and indexes, embedding each text with the fake Ollama server of the tests
over HTTP. The fake hands out the vectors drawn here, by text (a query's with the instruction
the service puts before it), and the run stops if the service asked for any other text, so
the searches find what the in-process rows find. The table is analysed after the import, as
there. Each query is then asked by ``AriaMem.search``, which the service runs whole (the
last column counts the searches it ran). Per query, as ``bench_retrieval.real_data``
measures: "pipeline" is the service's own stages less the embedding call, "client" the wall
time of ``search`` less the same call, and "there and back" the wall time less the
retrieval's own total.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np

from aria_mem.adapters.postgres.store import PostgresStore
from scripts.bench_retrieval import CHUNK, DIM, TYPES, Served, sentence
from tests.fakes import vectors


class _Vectors:
    """The fake Ollama's embedding: the vector drawn for a text, else its usual one. Kept as
    one array and a row per text (a million lists of floats would not fit)."""

    def __init__(self, n: int, extra: int) -> None:
        self.array = np.zeros((n + extra, DIM), dtype=np.float32)
        self.row: dict[str, int] = {}
        self.missed = 0
        """Texts asked for that were never drawn: none, or the rows measure another search."""

    def put(self, text: str, vector: np.ndarray) -> None:
        at = self.row.setdefault(text, len(self.row))
        self.array[at] = vector

    def __call__(self, text: str, dim: int) -> list[float]:
        at = self.row.get(text)
        if at is None:
            self.missed += 1
            return vectors.embed(text, dim)
        found: list[float] = self.array[at].tolist()
        return found


def _write(n: int, users: int, rng: np.random.Generator, table: _Vectors, lines: Path) -> None:
    """The N memories as an export's lines, each text's vector in ``table``."""
    stamp = (datetime.now(UTC) - timedelta(days=1)).isoformat()  # as make_memory dates them
    with lines.open("w", encoding="utf-8") as out:
        for start in range(0, n, CHUNK):
            size = min(CHUNK, n - start)
            drawn = rng.normal(size=(size, DIM)).astype(np.float32)
            drawn /= np.linalg.norm(drawn, axis=1, keepdims=True)
            for j in range(size):
                i = start + j
                text = " ".join(["The user", *sentence(rng, 10)]) + f" ({i})."
                table.put(text, drawn[j])
                line = {
                    "id": str(uuid.uuid4()),
                    "user_id": f"user{i % users}",
                    "companion_id": "aria",
                    "type": TYPES[i % len(TYPES)].value,
                    "text": text,
                    "importance": (i % 10) / 10,
                    "emotional_significance": (i % 7) / 7,
                    "confidence": 0.8,
                    "pinned": i % 97 == 0,
                    "use_count": i % 30,
                    "created_at": stamp,
                    "updated_at": stamp,
                }
                out.write(json.dumps(line) + "\n")


def through_service(n: int, users: int, queries: int, rng: np.random.Generator) -> list[str]:
    """The rows for one size, printed as they come."""
    from aria_mem.api import AriaMem
    from aria_mem.domain.instructions import prefixes
    from aria_mem.domain.query import build_query
    from scripts.bench_retrieval import answered_by_service
    from tests.fakes.ollama_server import FakeOllama, FakeOllamaState

    users = min(users, n)
    model = "mxbai-embed-large"
    asking = prefixes(model)[0]  # what the service puts before a query it embeds
    table = _Vectors(n, queries + 20)
    rows: list[str] = []
    home_before = os.environ.get("ARIA_MEM_HOME")
    try:
        with (
            tempfile.TemporaryDirectory(prefix="aria-bench-served-") as tmp,
            FakeOllama(FakeOllamaState(dim=DIM, embed=table)) as fake,
        ):
            home = Path(tmp)
            os.environ["ARIA_MEM_HOME"] = str(home)
            lines = home / "memories.jsonl"
            t0 = time.perf_counter()
            _write(n, users, rng, table, lines)
            embedder = {"provider": "ollama", "model": model, "host": fake.url}
            mem = AriaMem.open(None, embedder=embedder, retrieval={"timeout": 30.0})
            try:
                imported = mem.transfer.import_file(lines)
                store = mem._context.store
                assert isinstance(store, PostgresStore)
                with store.db.connection() as conn:
                    conn.execute(
                        "ANALYZE memories"
                    )  # as bench_retrieval.build does, and autovacuum
                setup = time.perf_counter() - t0
                print(
                    f"  {n:,} memories imported and indexed in {setup:.0f} s ({imported})",
                    file=sys.stderr,
                    flush=True,
                )
                served_before = answered_by_service(mem.settings.index_dir)
                texts = list(table.row)
                measured = Served()
                chosen = 0
                for q in range(queries + 20):
                    user = q % users
                    at = int(rng.integers(n // users)) * users + user  # one of the user's memories
                    base = table.array[table.row[texts[at]]]
                    noisy = base + rng.normal(scale=0.02, size=DIM).astype(np.float32)
                    own = [w for w in texts[at].split() if w.startswith("word")]
                    message = "Tell me about " + " ".join(
                        [*rng.choice(own, size=3), *sentence(rng, 2)]
                    )
                    table.put(asking + build_query(message, None), noisy / np.linalg.norm(noisy))
                    started = time.perf_counter()
                    result = mem.search(message, user=f"user{user}", companion="aria")
                    wall = (time.perf_counter() - started) * 1000
                    if q < 20:
                        continue
                    chosen += len(result.chosen)
                    measured.add(wall, result)
                served = answered_by_service(mem.settings.index_dir) - served_before
            finally:
                try:
                    mem.admin.stop()
                finally:
                    mem.close()
    finally:  # the service and its home are gone; so is the variable that named them
        if home_before is None:
            os.environ.pop("ARIA_MEM_HOME", None)
        else:
            os.environ["ARIA_MEM_HOME"] = home_before
    if table.missed:
        raise SystemExit(f"{table.missed} texts were embedded that the benchmark never drew")
    for what, _count, p50, p95, parts in measured.rows(served, queries + 20):
        rows.append(
            f"| edge, through the service | {n:,} | {what} | {p50:.2f} | {p95:.2f} | "
            f"{parts} | {chosen / queries:.1f} | {setup:.0f} s |"
        )
        print(rows[-1], flush=True)
    return rows
