"""Benchmark: does retrieval add to the wait before the first token?

    python -m scripts.bench_chat [--turns 40] [--analysis-ms 150]

A chat turn runs retrieval (embed + search + PostgreSQL + rank) at the same time as the
analysis of which companion message the user is replying to. Here the analysis is made the
slower of the two (a stand-in for a short model call, --analysis-ms), and the time from the
user's message to the first streamed token is measured three ways, medians over the turns:
with retrieval in parallel (what `chat` does), with retrieval run before the analysis, and
with no retrieval at all. Everything is real but the models: embedded PostgreSQL, Qdrant Edge,
and the ollama client talking to the fake Ollama server over HTTP.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from aria_mem.adapters.chat.ollama import OllamaChat
from aria_mem.adapters.embedders.ollama import OllamaEmbedder
from aria_mem.adapters.postgres import embedded
from aria_mem.adapters.postgres.store import PostgresStore
from aria_mem.adapters.qdrant_edge import EdgeIndex
from aria_mem.config import ChatSettings
from aria_mem.domain.budget import Turn
from aria_mem.domain.models import NewMemory
from aria_mem.domain.reply_target import reply_target
from aria_mem.services.chat import ChatSession
from aria_mem.services.indexer import Indexer
from aria_mem.services.retriever import Retriever
from aria_mem.services.writer import MemoryWriter
from tests.fakes.concepts import concept_embed
from tests.fakes.ollama_server import FakeOllama, FakeOllamaState


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--turns", type=int, default=40)
    parser.add_argument("--analysis-ms", type=float, default=150.0)
    args = parser.parse_args()

    def slow_analysis(history: Sequence[Turn], message: str) -> str | None:
        time.sleep(args.analysis_ms / 1000)
        return reply_target(history, message)

    with (
        tempfile.TemporaryDirectory(prefix="aria-bench-") as tmp,
        FakeOllama(FakeOllamaState(dim=16, embed=concept_embed)) as fake,
    ):
        work = Path(tmp)
        store = PostgresStore(embedded.ensure_running(work / "pg"))
        store.migrate()
        index = EdgeIndex(work / "index")
        embedder = OllamaEmbedder("mxbai-embed-large", host=fake.url)
        writer = MemoryWriter(
            store.memories, store.relationships, Indexer(store.queue, index, embedder)
        )
        for i in range(300):
            writer.remember(
                NewMemory(
                    user_id="me",
                    companion_id="aria",
                    text=f"The user's sister story number {i} about pottery.",
                )
            )
        retriever = Retriever(store.reads, index, embedder, timeout=5)
        settings = ChatSettings(extract_memories=False)
        results: dict[str, list[float]] = {}
        for mode in ("parallel", "sequential", "no retrieval"):
            session = ChatSession(
                conversations=store.conversations,
                reads=store.reads,
                retriever=retriever,
                chat_model=OllamaChat("llama3.2", host=fake.url),
                writer=None,
                settings=settings,
                user_id="me",
                companion_id="aria",
                new_conversation=True,
                analyze=slow_analysis,
            )
            times = []
            for turn in range(args.turns + 3):
                message = f"my sister asked about pottery again ({turn})"
                started = time.perf_counter()
                if mode == "sequential":
                    retriever.retrieve("me", "aria", message)
                if mode == "no retrieval":
                    slow_analysis(session.history, message)
                    prepared = None
                    stream = session._model.stream([{"role": "user", "content": message}])
                else:
                    prepared = session.prepare(message)
                    stream = session.reply(prepared)
                next(iter(stream))
                elapsed = (time.perf_counter() - started) * 1000
                for _ in stream:
                    pass
                if turn >= 3:
                    times.append(elapsed)
            results[mode] = times
            session.close()
        retriever.close()
        store.close()
        index.close()
        embedded.stop(work / "pg")
    print(
        f"\nTime to first token, analysis {args.analysis_ms:.0f} ms, median of {args.turns} turns:"
    )
    print("| retrieval | p50 ms | p95 ms | added by retrieval (p50) |")
    print("|---|---:|---:|---:|")
    base = statistics.median(results["no retrieval"])
    for mode, times in results.items():
        ordered = sorted(times)
        p50, p95 = statistics.median(ordered), ordered[int(0.95 * (len(ordered) - 1))]
        print(f"| {mode} | {p50:.1f} | {p95:.1f} | {p50 - base:+.1f} |")


if __name__ == "__main__":
    main()
