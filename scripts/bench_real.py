"""Benchmark: how often retrieval finds an answering memory on real conversations.

    python -m scripts.bench_real --data DIR [--sets realtalk,locomo] [--modes dense,fused]
                                 [--json] [--save FILE]
    make bench-real DATA=DIR

DIR holds the two public data sets as their authors publish them; nothing of them is in this
repository, and nothing is fetched:
  DIR/realtalk/Chat_*.json   REALTALK: ten real 21-day messaging-app chats. Every message is a
                             memory ("<speaker>: <text>", dated at the message); questions with
                             evidence dia_ids, categories 1 fact, 2 date, 3 inference.
  DIR/locomo/locomo-dev.json LoCoMo, the development half only (conv-26, -30, -41, -42, -43):
                             the session observations are the memories (dated at their
                             session); a question's evidence dia_ids map to the observations
                             that cite them; categories 1 multi, 2 temporal, 3 open, 4 single.
Each conversation is one user. Questions are asked as of the day after the conversation's last
session, through the public API's clock (``search(..., now=...)``).

Every memory goes through the public API on the embedded defaults (embedded PostgreSQL, Qdrant
Edge) with all-MiniLM-L6-v2 in process and its suggested similarity bar; each relationship is
"established". Sources:
  cosine   plain similarity: the index's own 10 nearest, no floor, no ranking;
  lexical  PostgreSQL's word matches alone, in their order;
  dense    the whole pipeline on the nearest vectors alone;
  fused-no-time  the whole pipeline on both, fused, without the time signal;
  fused    the whole pipeline on both, fused (what ships).
hit@k: a question counts when any answering memory is among the first k of what the pipeline
ranked (what goes into the prompt, then what the cap cut); recall@10: the share of its
answering memories among the first 10.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

from aria_mem.api import AriaMem, hooks
from aria_mem.config import SUGGESTED_MIN_SIMILARITY
from aria_mem.domain.fusion import DEFAULT_FUSION, FusionWeights, relevance
from aria_mem.domain.models import MEMORIES_COLLECTION, SearchScope, Stage
from aria_mem.domain.ranking import DEFAULT_WEIGHTS, RankingWeights
from aria_mem.domain.repeats import DEFAULT_REPEATS
from aria_mem.domain.retrieval import SearchResult
from aria_mem.domain.selection import select
from aria_mem.domain.time_signal import DEFAULT_TIME, asked
from aria_mem.domain.validation import MAX_TEXT_CHARS
from scripts.bench_quality import by_relevance, ranked, variant

COMPANION = "aria"
MODEL = "all-MiniLM-L6-v2"
KS = (1, 3, 5, 10)
SETS = ("realtalk", "locomo")
LOCOMO_DEV = ("conv-26", "conv-30", "conv-41", "conv-42", "conv-43")
REALTALK_KINDS = {1: "fact", 2: "date", 3: "inference"}
LOCOMO_KINDS = {1: "multi", 2: "temporal", 3: "open", 4: "single"}
NAMESPACE = uuid.UUID("5f0d1c8e-35a1-4d7e-9a51-3c1f0a2b7e35")


@dataclass
class Question:
    user: str
    text: str
    kind: str
    answers: frozenset[uuid.UUID]


@dataclass
class RealSet:
    memories: list[dict[str, object]] = field(default_factory=list)
    questions: list[Question] = field(default_factory=list)
    clock: dict[str, datetime] = field(default_factory=dict)

    @property
    def users(self) -> list[str]:
        return list(self.clock)


@dataclass
class Tally:
    questions: int = 0
    hits: dict[int, int] = field(default_factory=lambda: dict.fromkeys(KS, 0))
    recall: float = 0.0

    def add(self, found: Sequence[bool], answers: int) -> None:
        self.questions += 1
        for k in KS:
            self.hits[k] += any(found[:k])
        self.recall += sum(found[:10]) / answers

    def row(self) -> dict[str, float]:
        n = max(1, self.questions)
        return {
            **{f"hit@{k}": round(100 * self.hits[k] / n, 1) for k in KS},
            "recall@10": round(100 * self.recall / n, 1),
            "questions": self.questions,
        }


def memory_line(user: str, key: str, text: str, said: datetime) -> dict[str, object]:
    stamp = said.isoformat()
    return {
        "id": str(uuid.uuid5(NAMESPACE, f"{user}/{key}")),
        "user_id": user,
        "companion_id": COMPANION,
        "type": "EpisodicEvent",
        "text": text,
        "importance": 0.5,
        "confidence": 0.9,
        "created_at": stamp,
        "updated_at": stamp,
    }


def realtalk(folder: Path) -> RealSet:
    """Every message a memory; the questions whose evidence names a stored message."""
    data = RealSet()
    files = sorted(folder.glob("Chat_*.json"), key=lambda p: int(p.name.split("_")[1]))
    if not files:
        raise SystemExit(f"no Chat_*.json in {folder} — give the REALTALK folder")
    for path in files:
        chat = json.loads(path.read_text(encoding="utf-8"))
        user = "realtalk-" + path.name.split("_")[1]
        ids: dict[str, uuid.UUID] = {}
        last = datetime.min.replace(tzinfo=UTC)
        for key, messages in chat.items():
            if not re.fullmatch(r"session_\d+", key) or not isinstance(messages, list):
                continue
            for message in messages:
                text = (message.get("clean_text") or message.get("text") or "").strip()
                if not text:
                    continue
                said = datetime.strptime(message["date_time"], "%d.%m.%Y, %H:%M:%S")
                said = said.replace(tzinfo=UTC)
                said_text = f"{message['speaker']}: {text}"[:MAX_TEXT_CHARS]  # a few are longer
                line = memory_line(user, message["dia_id"], said_text, said)
                data.memories.append(line)
                ids[message["dia_id"]] = uuid.UUID(str(line["id"]))
                last = max(last, said)
        data.clock[user] = _day_after(last)
        for qa in chat["qa"]:
            answers = frozenset(ids[e] for e in qa.get("evidence") or () if e in ids)
            kind = REALTALK_KINDS.get(qa.get("category"))
            if answers and kind:
                data.questions.append(Question(user, qa["question"], kind, answers))
    return data


def locomo(path: Path) -> RealSet:
    """The session observations as memories; questions of categories 1-4 with evidence."""
    data = RealSet()
    samples = json.loads(path.read_text(encoding="utf-8"))
    for sample in samples:
        if sample["sample_id"] not in LOCOMO_DEV:
            continue  # the other half judges this work from outside
        user = "locomo-" + sample["sample_id"]
        conversation = sample["conversation"]
        citing: dict[str, list[uuid.UUID]] = {}
        last = datetime.min.replace(tzinfo=UTC)
        for key, by_speaker in sample["observation"].items():
            session = key.removesuffix("_observation")
            said = _locomo_date(conversation[f"{session}_date_time"])
            last = max(last, said)
            for speaker, notes in by_speaker.items():
                for i, (text, evidence) in enumerate(notes):
                    line = memory_line(user, f"{session}/{speaker}/{i}", text, said)
                    data.memories.append(line)
                    cited = [evidence] if isinstance(evidence, str) else evidence
                    for dia in cited:
                        citing.setdefault(dia, []).append(uuid.UUID(str(line["id"])))
        data.clock[user] = _day_after(last)
        for qa in sample["qa"]:
            kind = LOCOMO_KINDS.get(qa.get("category"))
            answers = frozenset(m for e in qa.get("evidence") or () for m in citing.get(e, ()))
            if answers and kind:
                data.questions.append(Question(user, qa["question"], kind, answers))
    return data


def _locomo_date(text: str) -> datetime:
    """Read as LoCoMo writes it: 7:48 pm on 21 May, 2023."""
    return datetime.strptime(text, "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)


def _day_after(last: datetime) -> datetime:
    return (last + timedelta(days=1)).replace(hour=12, minute=0, second=0)


Configure = Callable[[AriaMem], None]


def _nothing(mem: AriaMem) -> None:
    return None


def _no_time(mem: AriaMem) -> None:
    mem._context.retriever._when = None


MODES: dict[str, tuple[str, Configure]] = {
    "dense": ("dense", _nothing),
    "fused-no-time": ("fused", _no_time),
    "fused": ("fused", _nothing),
}
"""Each pipeline mode: its candidate source and what it changes on the retriever."""


def fused_variant(text: str) -> tuple[str, Configure]:
    """A fused pipeline with other settings (``bench_quality.variant``)."""
    return "fused", variant(text)


def replay(result: SearchResult, spec: str, message: str, now: datetime) -> list[uuid.UUID]:
    """The ranking step again on one search's fused candidates, with other settings ("time=0.2,
    recency=0.05": fields of RankingWeights, FusionWeights or TimeRule; "time_rule=off"): the
    pure steps after the candidates are found, so a variant costs no search."""
    weights, fusion, rule = DEFAULT_WEIGHTS, DEFAULT_FUSION, DEFAULT_TIME
    use_time = True
    for item in filter(None, spec.split(",")):
        name, raw = item.split("=", 1)
        if name == "time_rule":
            use_time = raw != "off"
            continue
        for current in (weights, fusion, rule):
            if name in {f.name for f in fields(current)}:
                kind = type(getattr(current, name))
                value = kind(float(raw)) if kind in (int, bool) else kind(raw)
                updated = replace(current, **{name: value})
                if isinstance(updated, RankingWeights):
                    weights = updated
                elif isinstance(updated, FusionWeights):
                    fusion = updated
                else:
                    rule = updated
                break
        else:
            raise SystemExit(f"--replay: no setting {name!r}")
    found = result.evidence
    rows = {r.memory.id: r.memory for r in result.chosen}
    rows |= {d.memory_id: d.memory for d in result.dropped if d.memory is not None}
    candidates = [
        (rows[mid], relevance(e.similarity, e.lexical_score, fusion))
        for mid, e in sorted(found.items(), key=lambda item: item[1].fused_rank)
        if mid in rows and e.similarity is not None
    ]
    selection = select(
        profile_pool=[r.memory for r in result.profile],
        candidates=candidates,
        stage=result.stage,
        min_similarity=result.selection.threshold,
        now=now,
        weights=weights,
        repeats=DEFAULT_REPEATS,
        question=asked(message, now, rule) if use_time else None,
        time_rule=rule,
    )
    order = [r.memory.id for r in selection.chosen]
    return order + [d.memory_id for d in selection.dropped if d.reason.value == "cut_by_cap"]


QUERY_VECTORS: dict[str, list[float]] = {}
"""Each question's vector, embedded once for every mode: on a busy machine the service's
model is the slow part, and the vector is the same whatever the mode."""


def embed_once(mem: AriaMem) -> None:
    embedder = mem._context.embedder
    embed = embedder.embed_query

    def embed_query(text: str) -> list[float]:
        if text not in QUERY_VECTORS:
            QUERY_VECTORS[text] = embed(text)
        return QUERY_VECTORS[text]

    embedder.embed_query = embed_query  # type: ignore[method-assign]


def run(args: argparse.Namespace, home: Path, data: RealSet) -> dict[str, object]:
    """Every source on one data set, in a home of its own."""
    os.environ["ARIA_MEM_HOME"] = str(home)
    home.mkdir(parents=True, exist_ok=True)
    lines = home / "memories.jsonl"
    with lines.open("w", encoding="utf-8") as out:
        for record in data.memories:
            out.write(json.dumps(record) + "\n")
    embedder = {"provider": "sentence-transformers", "model": MODEL}
    retrieval = {"min_similarity": SUGGESTED_MIN_SIMILARITY[MODEL], "timeout": 60.0}
    modes = list(args.modes)
    sources = ["cosine", "lexical", *modes, *(["relevance"] if "fused" in modes else [])]
    tallies: dict[str, dict[str, Tally]] = {s: {} for s in sources}
    started = time.perf_counter()
    with AriaMem.open(None, embedder=embedder, retrieval=retrieval) as mem:
        report = mem.transfer.import_file(lines)
        setup = time.perf_counter() - started
        print(f"{home.name}: {report.lines} memories imported ({setup:.0f} s)", file=sys.stderr)
        for user in data.users:
            mem.relationship.set_stage(Stage.ESTABLISHED, user=user, companion=COMPANION)
    for mode in modes:
        candidates, configure = MODES[mode] if mode in MODES else fused_variant(mode)
        with AriaMem.open(
            None, embedder=embedder, retrieval={**retrieval, "candidates": candidates}
        ) as m:
            configure(m)
            hooks.search_here(m)  # in this process, where its retriever is changed
            embed_once(m)
            for q in data.questions:
                result = m.search(q.text, user=q.user, companion=COMPANION, now=data.clock[q.user])
                score(tallies[mode], q, ranked(result))
                if mode == "fused":
                    score(tallies["relevance"], q, by_relevance(result))
                    for spec in args.replay:
                        order = replay(result, spec, q.text, data.clock[q.user])
                        score(tallies.setdefault(f"replay {spec}", {}), q, order)
        print(f"{home.name}: {mode} asked ({time.perf_counter() - started:.0f} s)", file=sys.stderr)
    if args.no_baselines:
        tallies.pop("cosine"), tallies.pop("lexical")
    with AriaMem.open(None, embedder=embedder, retrieval=retrieval) as mem:
        # Plain cosine and plain words reach past the public API on purpose: they are not
        # what it offers.
        model = mem._context.embedder.model_name
        embed_once(mem)
        for q in data.questions if not args.no_baselines else ():
            vector = mem._context.embedder.embed_query(q.text)
            hits = mem._context.index.search(
                MEMORIES_COLLECTION, vector, SearchScope(q.user, COMPANION, model), 10
            )
            score(tallies["cosine"], q, [h.id for h in hits])
            words = mem._context.store.reads.lexical_candidates(q.user, COMPANION, q.text, 10)
            score(tallies["lexical"], q, [h.id for h in words])
        mem.admin.stop()
    return {
        "memories": report.lines,
        "setup_seconds": round(setup, 1),
        "results": {
            mode: {kind: t.row() for kind, t in sorted(by_kind.items())}
            for mode, by_kind in tallies.items()
        },
    }


def score(by_kind: dict[str, Tally], q: Question, order: list[uuid.UUID]) -> None:
    found = [i in q.answers for i in order]
    for kind in ("all", q.kind):
        by_kind.setdefault(kind, Tally()).add(found, len(q.answers))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data", type=Path, required=True, help="holds realtalk/ and locomo/")
    parser.add_argument("--sets", default=",".join(SETS))
    parser.add_argument("--modes", default=",".join(MODES))
    parser.add_argument(
        "--variant",
        action="append",
        default=[],
        help='a fused pipeline with other settings, e.g. "time=0.2" (repeatable)',
    )
    parser.add_argument(
        "--replay",
        action="append",
        default=[],
        help='the ranking again on the fused candidates with other settings, e.g. "time=0.2"',
    )
    parser.add_argument(
        "--no-baselines", action="store_true", help="leave out plain cosine and plain words"
    )
    parser.add_argument(
        "--home",
        type=Path,
        help="keep the homes here between runs (an unchanged import keeps its vectors)",
    )
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--save", type=Path, help="also write the figures as JSON here")
    args = parser.parse_args()
    args.modes = tuple(args.modes.split(","))
    unknown = [m for m in args.modes if m not in MODES]
    if unknown:
        parser.error(f"--modes takes {', '.join(MODES)}; got {', '.join(unknown)}")
    args.modes += tuple(args.variant)
    loaders = {
        "realtalk": lambda: realtalk(args.data / "realtalk"),
        "locomo": lambda: locomo(args.data / "locomo" / "locomo-dev.json"),
    }
    outcomes: dict[str, dict[str, object]] = {}
    with tempfile.TemporaryDirectory(prefix="aria-real-") as tmp:
        for name in args.sets.split(","):
            if name not in loaders:
                parser.error(f"--sets takes {', '.join(SETS)}; got {name!r}")
            data = loaders[name]()
            outcome = run(args, (args.home or Path(tmp)) / name, data)
            outcome["questions"] = len(data.questions)
            outcomes[name] = outcome
    if args.save:
        args.save.write_text(json.dumps(outcomes, indent=2), encoding="utf-8")
    if args.json:
        print(json.dumps(outcomes, indent=2))
        return
    for name, outcome in outcomes.items():
        show(name, outcome)


def show(name: str, outcome: dict[str, object]) -> None:
    results = outcome["results"]
    assert isinstance(results, dict)
    print(
        f"\n## {name}: {outcome['memories']} memories, {outcome['questions']} questions,"
        f" set up in {outcome['setup_seconds']} s\n"
    )
    columns = [f"hit@{k}" for k in KS] + ["recall@10"]
    print("| source | kind | questions | " + " | ".join(columns) + " |")
    print("|---|---|---:|" + "---:|" * len(columns))
    for mode, by_kind in results.items():
        for kind, row in by_kind.items():
            cells = [mode, kind, row["questions"], *(row[c] for c in columns)]
            print("| " + " | ".join(str(c) for c in cells) + " |")


if __name__ == "__main__":
    main()
