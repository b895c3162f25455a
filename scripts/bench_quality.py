"""Benchmark: how often retrieval finds a memory that answers the question.

    python scripts/bench_quality.py [--background 1000] [--min-similarity 0.25]
                                    [--dates-in-text] [--timing-passes 3] [--json]

Six people, each with ~24 facts from long conversations buried among ``--background``
generated everyday memories (scripts/quality: written for this project, MIT, nothing fetched),
and 84 questions whose answers are known facts, of five kinds: direct, paraphrase (never said
in those words), temporal, follow_up (needs the message before) and name (a rare name). Every
memory goes through the public API on the embedded defaults (embedded PostgreSQL, Qdrant
Edge) with all-MiniLM-L6-v2 in process; each relationship is "established", and the clock is
set just after the last memory.

Sources, all with the same model and data:
  cosine   plain similarity: the index's own 10 nearest, no floor, no ranking;
  lexical  PostgreSQL's word matches alone, in their order;
  dense    the whole pipeline on the nearest vectors alone (the seed's retrieval);
  fused    the whole pipeline on both, fused (what ships).
For the pipelines the ranked list is what goes into the prompt, in order, then what the cap
cut. hit@k: a question counts when any answering memory is among the first k; recall@10: the
share of its answering memories among the first 10.

Then, for each pipeline, the retrieval overhead on these conversational texts with their real
vectors: the whole retrieval minus its embedding call (profile, word search, index search,
validation, ranking, the prompt), every question ``--timing-passes`` more times, p50 and p95.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT.parent))

from quality.background import background  # noqa: E402
from quality.personas import PERSONAS, Fact, Persona, Question  # noqa: E402

from aria_mem.api import AriaMem  # noqa: E402
from aria_mem.domain.models import MEMORIES_COLLECTION, SearchScope, Stage  # noqa: E402
from aria_mem.domain.retrieval import SearchResult  # noqa: E402

COMPANION = "aria"
MODES = ("dense", "fused")
KS = (5, 10)


@dataclass
class Tally:
    questions: int = 0
    hits: dict[int, int] | None = None
    recall: float = 0.0

    def add(self, found: Sequence[bool], answers: int, ranked_answers: int) -> None:
        self.hits = self.hits or {k: 0 for k in KS}
        self.questions += 1
        for k in KS:
            self.hits[k] += any(found[:k])
        self.recall += ranked_answers / answers

    def row(self) -> dict[str, float]:
        hits = self.hits or {k: 0 for k in KS}
        n = max(1, self.questions)
        return {
            **{f"hit@{k}": round(100 * hits[k] / n, 1) for k in KS},
            "recall@10": round(100 * self.recall / n, 1),
            "questions": self.questions,
        }


def memory_ids(persona: Persona, facts: Sequence[Fact]) -> dict[str, uuid.UUID]:
    return {
        f.key: uuid.uuid5(uuid.NAMESPACE_URL, f"aria-bench/{persona.user}/{f.key}") for f in facts
    }


def dated(fact: Fact) -> str:
    """The memory's text with the day it was said, as a date-aware index would see it."""
    said = datetime.fromisoformat(fact.said)
    return f"{fact.text} (said on {said.day} {said:%B %Y})"


def write_lines(
    path: Path, count: int, dates_in_text: bool = False
) -> dict[str, dict[str, uuid.UUID]]:
    """The data set as export lines; returns each person's fact ids by key."""
    ids: dict[str, dict[str, uuid.UUID]] = {}
    with path.open("w", encoding="utf-8") as out:
        for persona in PERSONAS:
            facts = [*persona.facts, *background(persona, count)]
            ids[persona.user] = memory_ids(persona, facts)
            for fact in facts:
                said = f"{fact.said}T12:00:00+00:00"
                record = {
                    "id": str(ids[persona.user][fact.key]),
                    "user_id": persona.user,
                    "companion_id": COMPANION,
                    "type": fact.type,
                    "text": dated(fact) if dates_in_text else fact.text,
                    "importance": fact.importance,
                    "confidence": 0.9,
                    "created_at": said,
                    "updated_at": said,
                }
                out.write(json.dumps(record) + "\n")
    return ids


def ranked(result: SearchResult) -> list[uuid.UUID]:
    """What the pipeline put first: the profile, then the relevant memories, then those the
    cap cut, in score order."""
    order = [r.memory.id for r in result.chosen]
    order += [d.memory_id for d in result.dropped if d.reason.value == "cut_by_cap"]
    return order


def run(args: argparse.Namespace, home: Path) -> dict[str, object]:
    os.environ["ARIA_MEM_HOME"] = str(home)
    lines = home / "memories.jsonl"
    ids = write_lines(lines, args.background, args.dates_in_text)
    clock_now = datetime(2025, 1, 15, tzinfo=UTC)
    embedder = {"provider": "sentence-transformers", "model": "all-MiniLM-L6-v2"}
    retrieval = {"min_similarity": args.min_similarity, "timeout": 30.0}
    tallies: dict[str, dict[str, Tally]] = {m: {} for m in ("cosine", "lexical", *args.modes)}
    overheads: dict[str, dict[str, float]] = {}
    started = time.perf_counter()
    with AriaMem.open(None, embedder=embedder, retrieval=retrieval) as mem:
        report = mem.transfer.import_file(lines)
        setup = time.perf_counter() - started
        for persona in PERSONAS:
            mem.relationship.set_stage(Stage.ESTABLISHED, user=persona.user, companion=COMPANION)
    # The index and the in-process model are the aria-mem service's (another process), as for
    # any command or chat. The baselines below reach past the public API on purpose (its
    # private adapters): plain cosine and plain words are not what it offers.
    for mode in args.modes:
        with AriaMem.open(
            None, embedder=embedder, retrieval={**retrieval, "candidates": mode}
        ) as m:
            m._context.retriever._clock = lambda: clock_now
            for persona in PERSONAS:
                for question in persona.questions:
                    result = ask(m, persona, question)
                    score(tallies[mode], question, ids[persona.user], ranked(result))
            overheads[mode] = time_overhead(m, args.timing_passes)
    with AriaMem.open(None, embedder=embedder, retrieval=retrieval) as mem:
        model = mem._context.embedder.model_name
        for persona in PERSONAS:
            for question in persona.questions:
                query = (
                    f"{question.previous}\n{question.text}" if question.previous else question.text
                )
                vector = mem._context.embedder.embed_query(query)
                hits = mem._context.index.search(
                    MEMORIES_COLLECTION, vector, SearchScope(persona.user, COMPANION, model), 10
                )
                score(tallies["cosine"], question, ids[persona.user], [h.id for h in hits])
                words = mem._context.store.reads.lexical_candidates(
                    persona.user, COMPANION, query, 10
                )
                score(tallies["lexical"], question, ids[persona.user], [h.id for h in words])
    return {
        "memories": report.lines,
        "setup_seconds": round(setup, 1),
        "results": {
            mode: {kind: t.row() for kind, t in sorted(by_kind.items())}
            for mode, by_kind in tallies.items()
        },
        "overhead_ms": overheads,
    }


def ask(mem: AriaMem, persona: Persona, question: Question) -> SearchResult:
    return mem.search(
        question.text, previous=question.previous, user=persona.user, companion=COMPANION
    )


def time_overhead(mem: AriaMem, passes: int) -> dict[str, float]:
    """Retrieval without its embedding call, on these conversational texts and real vectors:
    every question ``passes`` times, after the scoring pass warmed everything up."""
    totals: list[float] = []
    stages: dict[str, list[float]] = {}
    for _ in range(passes):
        for persona in PERSONAS:
            for question in persona.questions:
                timings = dict(ask(mem, persona, question).timings.items())
                totals.append(timings["total"] - timings.get("embed", 0.0))
                for stage, value in timings.items():
                    stages.setdefault(stage, []).append(value)
    ordered = sorted(totals)
    summary = {"p50": statistics.median(ordered), "p95": ordered[int(0.95 * (len(ordered) - 1))]}
    summary |= {stage: statistics.median(v) for stage, v in stages.items() if stage != "total"}
    return {k: round(v, 2) for k, v in summary.items()}


def score(
    by_kind: dict[str, Tally], question: Question, ids: dict[str, uuid.UUID], order: list[uuid.UUID]
) -> None:
    answers = {ids[key] for key in question.answers}
    found = [i in answers for i in order]
    for kind in ("all", question.kind):
        by_kind.setdefault(kind, Tally()).add(found, len(answers), sum(found[:10]))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--background", type=int, default=1000, help="generated memories per person"
    )
    parser.add_argument("--min-similarity", type=float, default=0.25)
    parser.add_argument("--modes", default=",".join(MODES))
    parser.add_argument(
        "--dates-in-text",
        action="store_true",
        help="write the day each memory was said into its text (measures a date-aware index)",
    )
    parser.add_argument(
        "--timing-passes",
        type=int,
        default=3,
        help="times each question is asked again to time the retrieval overhead",
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    args.modes = tuple(args.modes.split(","))
    with tempfile.TemporaryDirectory(prefix="aria-quality-") as tmp:
        outcome = run(args, Path(tmp))
    if args.json:
        print(json.dumps(outcome, indent=2))
        return
    results = outcome["results"]
    assert isinstance(results, dict)
    print(f"setup {outcome['setup_seconds']} s")
    print("| source | kind | questions | hit@5 | hit@10 | recall@10 |")
    print("|---|---|---|---|---|---|")
    for mode, by_kind in results.items():
        for kind, row in by_kind.items():
            cells = [mode, kind, *(row[c] for c in ("questions", "hit@5", "hit@10", "recall@10"))]
            print("| " + " | ".join(str(c) for c in cells) + " |")
    overheads = outcome["overhead_ms"]
    assert isinstance(overheads, dict)
    print(
        f"\nretrieval overhead on these texts (everything but the embedding call), "
        f"{outcome['memories']} memories, ms:"
    )
    print("| source | p50 | p95 | stage medians |")
    print("|---|---:|---:|---|")
    for mode, summary in overheads.items():
        parts = " ".join(f"{k} {v:.2f}" for k, v in summary.items() if k not in ("p50", "p95"))
        print(f"| {mode} | {summary['p50']:.2f} | {summary['p95']:.2f} | {parts} |")


if __name__ == "__main__":
    main()
