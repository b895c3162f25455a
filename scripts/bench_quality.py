"""Benchmark: how often retrieval finds a memory that answers the question, on two data sets.

    python -m scripts.bench_quality [--sets personas,observations] [--background 1000]
                                    [--small-talk 500]
                                    [--min-similarity 0.25] [--dates-in-text]
                                    [--timing-passes 3] [--json]

Both written for this project (scripts/quality: MIT, nothing fetched), in different styles:
  personas      six people, each with ~24 facts from long conversations ("The user ...")
                buried among ``--background`` generated everyday memories, and 84 questions of
                five kinds: direct, paraphrase, temporal, follow_up (needs the message before),
                name. The set the retrieval was tuned on.
  observations  four scenes of third-person notes about three or four named people who share
                names, places and hobbies, over a year of dated sessions (413 notes), and
                193 questions of four kinds: single, multi (two facts joined), temporal, open.
                Each scene is buried among ``--small-talk`` generated notes about the same
                people. Never tuned on: a change ships only if it does not lose here.
Every memory goes through the public API on the embedded defaults (embedded PostgreSQL, Qdrant
Edge) with all-MiniLM-L6-v2 in process; each relationship is "established", and each user's
clock is set to when their questions are asked (personas: just after the last memory;
observations: the scene's question date, about two weeks after its last session).

Sources, all with the same model and data:
  cosine   plain similarity: the index's own 10 nearest, no floor, no ranking;
  lexical  PostgreSQL's word matches alone, in their order;
  dense    the whole pipeline on the nearest vectors alone (no word matches);
  fused-no-repeats  the whole pipeline on both, fused, with near-repeats ranked as they
           come (to show what ranking them lower does);
  fused-no-time  the whole pipeline on both, fused, without the time signal (a message that
           names a date lifts the memories dated in it);
  fused    the whole pipeline on both, fused, near-repeats of a better candidate ranked lower
           (what ships);
  relevance the fused candidates in order of relevance alone, before the ranking formula and
           the profile: what the two kinds of evidence find, apart from what the design's
           formula (importance, recency, use) and the profile then do to the order.
For the pipelines the ranked list is what goes into the prompt, in order, then what the cap
cut. hit@k: a question counts when any answering memory is among the first k; recall@10: the
share of its answering memories among the first 10.

Then, for each pipeline, the retrieval overhead on these texts with their real vectors: the
whole retrieval minus its embedding call, every question ``--timing-passes`` more times.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields, replace
from datetime import datetime
from pathlib import Path

from aria_mem.api import AriaMem, hooks
from aria_mem.domain.fusion import DEFAULT_FUSION, FusionWeights
from aria_mem.domain.models import MEMORIES_COLLECTION, SearchScope, Stage
from aria_mem.domain.repeats import DEFAULT_REPEATS, RepeatRule
from aria_mem.domain.retrieval import SearchResult
from scripts.quality.sets import SET_NAMES, QualitySet, Query, observations, personas

COMPANION = "aria"
MODES = ("dense", "fused-no-repeats", "fused-no-time", "fused")
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


def write_lines(path: Path, data: QualitySet) -> None:
    """The data set as export lines."""
    with path.open("w", encoding="utf-8") as out:
        for item in data.items:
            said = f"{item.said}T12:00:00+00:00"
            record = {
                "id": str(item.id),
                "user_id": item.user,
                "companion_id": COMPANION,
                "type": item.type,
                "text": item.text,
                "importance": item.importance,
                "confidence": 0.9,
                "created_at": said,
                "updated_at": said,
            }
            out.write(json.dumps(record) + "\n")


def ranked(result: SearchResult) -> list[uuid.UUID]:
    """What the pipeline put first: the profile, then the relevant memories, then those the
    cap cut, in score order."""
    order = [r.memory.id for r in result.chosen]
    order += [d.memory_id for d in result.dropped if d.reason.value == "cut_by_cap"]
    return order


def by_relevance(result: SearchResult) -> list[uuid.UUID]:
    """The fused candidates best first, as fusion ordered them."""
    return sorted(result.evidence, key=lambda mid: result.evidence[mid].fused_rank)


def run(args: argparse.Namespace, home: Path, data: QualitySet) -> dict[str, object]:
    """Every source on one data set, in a home of its own."""
    os.environ["ARIA_MEM_HOME"] = str(home)
    lines = home / "memories.jsonl"
    home.mkdir(parents=True, exist_ok=True)
    write_lines(lines, data)
    embedder = {"provider": "sentence-transformers", "model": "all-MiniLM-L6-v2"}
    retrieval = {"min_similarity": args.min_similarity, "timeout": 30.0}
    sources = ("cosine", "lexical", *args.modes, *(("relevance",) if "fused" in args.modes else ()))
    tallies: dict[str, dict[str, Tally]] = {m: {} for m in sources}
    overheads: dict[str, dict[str, float]] = {}
    started = time.perf_counter()
    with AriaMem.open(None, embedder=embedder, retrieval=retrieval) as mem:
        report = mem.transfer.import_file(lines)
        setup = time.perf_counter() - started
        for user in data.users:
            mem.relationship.set_stage(Stage.ESTABLISHED, user=user, companion=COMPANION)
    # The index and the in-process model are the aria-mem service's (another process), as for
    # any command or chat. The baselines below reach past the public API on purpose (its
    # private adapters): plain cosine and plain words are not what it offers.
    for mode in args.modes:
        candidates = "dense" if mode == "dense" else "fused"
        with AriaMem.open(
            None, embedder=embedder, retrieval={**retrieval, "candidates": candidates}
        ) as m:
            hooks.search_here(m)  # in this process, where its retriever is changed
            m._context.retriever._fusion = args.fusion
            m._context.retriever._repeats = None if mode == "fused-no-repeats" else args.repeats
            if mode == "fused-no-time":
                m._context.retriever._when = None
            elif mode not in MODES:
                variant(mode)(m)
            for query in data.queries:
                m._context.retriever._clock = _fixed(data.clock[query.user])
                result = ask(m, query)
                score(tallies[mode], query, ranked(result))
                if mode == "fused":
                    score(tallies["relevance"], query, by_relevance(result))
            if args.timing_passes:
                overheads[mode] = time_overhead(m, data, args.timing_passes)
    with AriaMem.open(None, embedder=embedder, retrieval=retrieval) as mem:
        model = mem._context.embedder.model_name
        for query in data.queries:
            text = f"{query.previous}\n{query.text}" if query.previous else query.text
            vector = mem._context.embedder.embed_query(text)
            hits = mem._context.index.search(
                MEMORIES_COLLECTION, vector, SearchScope(query.user, COMPANION, model), 10
            )
            score(tallies["cosine"], query, [h.id for h in hits])
            words = mem._context.store.reads.lexical_candidates(query.user, COMPANION, text, 10)
            score(tallies["lexical"], query, [h.id for h in words])
        mem.admin.stop()
    return {
        "memories": report.lines,
        "setup_seconds": round(setup, 1),
        "results": {
            mode: {kind: t.row() for kind, t in sorted(by_kind.items())}
            for mode, by_kind in tallies.items()
        },
        "overhead_ms": overheads,
    }


def variant(text: str) -> Callable[[AriaMem], None]:
    """A fused pipeline with other settings, to measure them: "time=0.2,recency=0.05", any
    field of RankingWeights, TimeRule or FusionWeights."""
    changes = dict(item.split("=", 1) for item in text.split(","))

    def configure(mem: AriaMem) -> None:
        r = mem._context.retriever
        for name, raw in changes.items():
            for attr in ("_weights", "_when", "_fusion"):
                current = getattr(r, attr)
                if current is not None and name in {f.name for f in fields(current)}:
                    kind = type(getattr(current, name))
                    value = kind(float(raw)) if kind in (int, bool) else kind(raw)
                    setattr(r, attr, replace(current, **{name: value}))
                    break
            else:
                raise SystemExit(f"--variant: no setting {name!r}")

    return configure


def _fixed(moment: datetime) -> Callable[[], datetime]:
    return lambda: moment


def ask(mem: AriaMem, query: Query) -> SearchResult:
    return mem.search(query.text, previous=query.previous, user=query.user, companion=COMPANION)


def time_overhead(mem: AriaMem, data: QualitySet, passes: int) -> dict[str, float]:
    """Retrieval without its embedding call, on these conversational texts and real vectors:
    every question ``passes`` times, after the scoring pass warmed everything up."""
    totals: list[float] = []
    stages: dict[str, list[float]] = {}
    for _ in range(passes):
        for query in data.queries:
            timings = dict(ask(mem, query).timings.items())
            totals.append(timings["total"] - timings.get("embed", 0.0))
            for stage, value in timings.items():
                stages.setdefault(stage, []).append(value)
    ordered = sorted(totals)
    summary = {"p50": statistics.median(ordered), "p95": ordered[int(0.95 * (len(ordered) - 1))]}
    summary |= {stage: statistics.median(v) for stage, v in stages.items() if stage != "total"}
    return {k: round(v, 2) for k, v in summary.items()}


def score(by_kind: dict[str, Tally], query: Query, order: list[uuid.UUID]) -> None:
    found = [i in query.answers for i in order]
    for kind in ("all", query.kind):
        by_kind.setdefault(kind, Tally()).add(found, len(query.answers), sum(found[:10]))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--background", type=int, default=1000, help="generated memories per person"
    )
    parser.add_argument(
        "--small-talk", type=int, default=500, help="generated notes per observation scene"
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
    parser.add_argument(
        "--sets", default=",".join(SET_NAMES), help="personas (tuned on), observations (not)"
    )
    parser.add_argument(
        "--lexical-weight",
        type=float,
        default=DEFAULT_FUSION.lexical_weight,
        help="fusion's word weight, to measure another (default: what ships)",
    )
    parser.add_argument(
        "--lexical-candidates",
        type=int,
        default=DEFAULT_FUSION.lexical_candidates,
        help="how many word matches fusion reads, to measure another (default: what ships)",
    )
    parser.add_argument(
        "--repeat-bar",
        type=float,
        default=DEFAULT_REPEATS.overlap_bar,
        help="word overlap from which a near-repeat is ranked lower, to measure another",
    )
    parser.add_argument(
        "--repeat-weight",
        type=float,
        default=DEFAULT_REPEATS.weight,
        help="how much a near-repeat loses per unit of overlap beyond the bar (0: off)",
    )
    parser.add_argument(
        "--variant",
        action="append",
        default=[],
        help='a fused pipeline with other settings, e.g. "time=0.2" (repeatable)',
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    args.modes = (*args.modes.split(","), *args.variant)
    args.fusion = FusionWeights(args.lexical_weight, args.lexical_candidates)
    args.repeats = RepeatRule(args.repeat_bar, args.repeat_weight)
    chosen = {
        "personas": lambda: personas(args.background, args.dates_in_text),
        "observations": lambda: observations(args.small_talk, args.dates_in_text),
    }
    outcomes: dict[str, dict[str, object]] = {}
    with tempfile.TemporaryDirectory(prefix="aria-quality-") as tmp:
        for name in args.sets.split(","):
            if name not in chosen:
                parser.error(f"--sets takes {', '.join(SET_NAMES)}; got {name!r}")
            outcomes[name] = run(args, Path(tmp) / name, chosen[name]())
    if args.json:
        print(json.dumps(outcomes, indent=2))
        return
    for name, outcome in outcomes.items():
        show(name, outcome)


def show(name: str, outcome: dict[str, object]) -> None:
    results = outcome["results"]
    assert isinstance(results, dict)
    print(f"\n## {name}: {outcome['memories']} memories, set up in {outcome['setup_seconds']} s\n")
    print("| source | kind | questions | hit@5 | hit@10 | recall@10 |")
    print("|---|---|---|---|---|---|")
    for mode, by_kind in results.items():
        for kind, row in by_kind.items():
            cells = [mode, kind, *(row[c] for c in ("questions", "hit@5", "hit@10", "recall@10"))]
            print("| " + " | ".join(str(c) for c in cells) + " |")
    overheads = outcome["overhead_ms"]
    assert isinstance(overheads, dict)
    print("\nretrieval overhead on these texts (everything but the embedding call), ms:")
    print("| source | p50 | p95 | stage medians |")
    print("|---|---:|---:|---|")
    for mode, summary in overheads.items():
        parts = " ".join(f"{k} {v:.2f}" for k, v in summary.items() if k not in ("p50", "p95"))
        print(f"| {mode} | {summary['p50']:.2f} | {summary['p95']:.2f} | {parts} |")


if __name__ == "__main__":
    main()
