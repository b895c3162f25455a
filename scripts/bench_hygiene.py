"""Benchmark: does memory stay tidy over months? Duplicates absorbed, false merges, changed
facts superseded, and how often a question about a changed fact gets the old value.

    python scripts/bench_hygiene.py [--json]

Eight people's timelines (scripts/hygiene_data.py: written for this project, MIT, nothing
fetched): stable facts, paraphrased repeats, facts that change over months, look-alikes that
must stay apart. Each memory goes through the public API in the order it was said, on the
embedded defaults with all-MiniLM-L6-v2 in process, in three modes:

  as given  merge off: every memory stored as said (what aria-mem did before);
  rule      merge on, no chat model: repeats merged by the model's bar and the lexical check,
            likely conflicts queued for review (nothing superseded without a judgement);
  oracle    merge on, and a scripted judge that knows the data set's answers (a repeat is a
            "duplicate", a later step of a changed fact "updates" the earlier): the ceiling a
            perfect chat model's judgement reaches. No real chat model runs on this machine,
            so there is no figure for one here; the judge is reached past the public API
            (its writer) because the API asks the chat model only during extraction.

The people are split in two halves: the bars were set on the first four (tune) and are judged
on the last four (held out); both are printed.

Counts: repeats absorbed (a wording merged into a memory of its own group) against the most
that could be; false merges (merged into another fact's memory); look-alike pairs that ended
as one memory; changed facts whose earlier steps were superseded by a later one; review items
(and how many are right to ask: the two memories are one fact said again, or one fact
that changed). Questions: after the last memory, each question about a
changed fact is asked as a message (relationship "established"); "old value" is the share
whose prompt holds an obsolete step's text, "current" the share that holds the current one.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT.parent))

from hygiene_data import TIMELINES, Said, Timeline  # noqa: E402

from aria_mem.api import AriaMem, MemoryStatus, Stage  # noqa: E402
from aria_mem.domain.models import MemoryType, NewMemory  # noqa: E402

COMPANION = "aria"
MODES = ("as given", "rule", "oracle")
TUNE = frozenset(t.user for t in TIMELINES[:4])


@dataclass
class Tally:
    memories_said: int = 0
    active_left: int = 0
    ideal_left: int = 0
    repeats_possible: int = 0
    repeats_absorbed: int = 0
    false_merges: int = 0
    look_alikes_joined: int = 0
    look_alikes: int = 0
    changes: int = 0
    changes_superseded: int = 0
    wrong_supersessions: int = 0
    review_items: int = 0
    review_true: int = 0
    questions: int = 0
    old_in_prompt: int = 0
    current_in_prompt: int = 0
    notes: list[str] = field(default_factory=list)

    def add(self, other: Tally) -> None:
        for name, value in vars(other).items():
            if isinstance(value, int):
                setattr(self, name, getattr(self, name) + value)

    def row(self) -> dict[str, object]:
        n = max(1, self.questions)
        return {
            "memories said": self.memories_said,
            "active at the end (ideal)": f"{self.active_left} ({self.ideal_left})",
            "repeats absorbed": f"{self.repeats_absorbed}/{self.repeats_possible}",
            "false merges": self.false_merges,
            "look-alikes joined": f"{self.look_alikes_joined}/{self.look_alikes}",
            "changes superseded": f"{self.changes_superseded}/{self.changes}",
            "wrong supersessions": self.wrong_supersessions,
            "review items (right to ask)": f"{self.review_items} ({self.review_true})",
            "questions: old value in prompt": f"{100 * self.old_in_prompt / n:.1f}%",
            "questions: current value in prompt": f"{100 * self.current_in_prompt / n:.1f}%",
        }


class OracleJudge:
    """A chat model that answers the judgement call from the data set's own answers."""

    def __init__(self, timeline: Timeline) -> None:
        self._by_text = {s.text: s for s in timeline.said}

    @property
    def model_name(self) -> str:
        return "oracle"

    def stream(self, messages: Sequence[dict[str, str]]) -> Iterator[str]:
        yield self.complete(messages)

    def complete(
        self, messages: Sequence[dict[str, str]], *, json_schema: dict[str, Any] | None = None
    ) -> str:
        asked = messages[-1]["content"]
        new = self._by_text.get(json.loads(asked.split("\n", 1)[0].removeprefix("NEW: ")))
        known = [json.loads(m) for m in re.findall(r"^\d+\. (.*)$", asked, re.M)]
        for number, text in enumerate(known, start=1):
            old = self._by_text.get(text)
            if new is None or old is None:
                continue
            if new.group and new.group == old.group:
                return json.dumps({"verdict": "duplicate", "memory": number, "reason": "same"})
            if new.chain and new.chain == old.chain and old.step < new.step:
                return json.dumps({"verdict": "updates", "memory": number, "reason": "changed"})
        return json.dumps({"verdict": "unrelated", "memory": 0, "reason": ""})

    def context_length(self) -> int | None:
        return 8192

    def check(self) -> None:
        return None


def _ideal(timeline: Timeline) -> int:
    """Memories a tidy store keeps active: one per fact (group or chain counts once)."""
    kept = {s.group or s.chain or s.key for s in timeline.said}
    return len(kept)


def run_person(mem: AriaMem, timeline: Timeline, mode: str) -> Tally:
    tally = Tally(memories_said=len(timeline.said), ideal_left=_ideal(timeline))
    user = f"{timeline.user}-{MODES.index(mode)}"
    writer = mem._context.writer  # the judge is reached past the API (module docstring)
    judge = OracleJudge(timeline) if mode == "oracle" else None
    memory_of: dict[str, uuid.UUID] = {}
    said_of: dict[uuid.UUID, list[Said]] = {}
    for said in timeline.said:
        new = NewMemory(
            user_id=user,
            companion_id=COMPANION,
            text=said.text,
            type=MemoryType(said.type),
            importance=said.importance,
        )
        result = writer.remember(new, merge=mode != "as given", judge=judge)
        memory_of[said.key] = result.memory.id
        said_of.setdefault(result.memory.id, []).append(said)
        if result.merged:
            target = said_of[result.memory.id][0]
            same = said.group and any(s.group == said.group for s in said_of[result.memory.id][:-1])
            if same:
                tally.repeats_absorbed += 1
            else:
                tally.false_merges += 1
                tally.notes.append(f"merged {said.key!r} into {target.key!r}")
        if result.superseded is not None:
            old = said_of.get(result.superseded.id, [])
            if said.chain and any(o.chain == said.chain and o.step < said.step for o in old):
                tally.changes_superseded += 1
            else:
                tally.wrong_supersessions += 1
                tally.notes.append(f"{said.key!r} superseded {[o.key for o in old]}")
    groups: dict[str, int] = {}
    for said in timeline.said:
        if said.group:
            groups[said.group] = groups.get(said.group, 0) + 1
    tally.repeats_possible = sum(n - 1 for n in groups.values())
    tally.changes = sum(1 for s in timeline.said if s.chain and s.step > 1)
    tally.look_alikes = len(timeline.look_alikes)
    tally.look_alikes_joined = sum(
        memory_of[pair.first] == memory_of[pair.second] for pair in timeline.look_alikes
    )
    tally.active_left = len(
        mem.list(user=user, companion=COMPANION, status=MemoryStatus.ACTIVE, limit=10_000)
    )
    items = mem.review.list(user=user, companion=COMPANION)
    tally.review_items = len(items)
    key_of = {memory_id: saids for memory_id, saids in said_of.items()}
    for item in items:
        first = key_of.get(item.memory_id, [])
        second = key_of.get(item.other_id, []) if item.other_id else []
        facts = {s.chain or s.group for s in first} & {s.chain or s.group for s in second}
        tally.review_true += bool(facts - {""})
    mem.relationship.set_stage(Stage.ESTABLISHED, user=user, companion=COMPANION)
    by_key = {s.key: s for s in timeline.said}
    for question in timeline.questions:
        prompt = mem.search(question.text, user=user, companion=COMPANION).prompt
        tally.questions += 1
        tally.old_in_prompt += any(by_key[k].text in prompt for k in question.obsolete)
        tally.current_in_prompt += by_key[question.current].text in prompt
    return tally


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--json", action="store_true", help="print JSON for scripts")
    parser.add_argument(
        "--merge-similarity", type=float, default=0.0, help="0: the model's own bar"
    )
    parser.add_argument(
        "--conflict-similarity", type=float, default=0.0, help="0: the model's own bar"
    )
    args = parser.parse_args(argv)
    results: dict[str, dict[str, Tally]] = {
        m: {"tune": Tally(), "held out": Tally()} for m in MODES
    }
    with tempfile.TemporaryDirectory(prefix="aria-bench-hygiene-") as home:
        os.environ["ARIA_MEM_HOME"] = home
        embedder = {"provider": "sentence-transformers", "model": "all-MiniLM-L6-v2"}
        retrieval = {"min_similarity": 0.25, "timeout": 30.0}
        hygiene = {
            "merge_similarity": args.merge_similarity,
            "conflict_similarity": args.conflict_similarity,
        }
        with AriaMem.open(None, embedder=embedder, retrieval=retrieval, hygiene=hygiene) as mem:
            for mode in MODES:
                for timeline in TIMELINES:
                    half = "tune" if timeline.user in TUNE else "held out"
                    tally = run_person(mem, timeline, mode)
                    results[mode][half].add(tally)
                    results[mode][half].notes += tally.notes
            mem.admin.stop()
    table = {
        mode: {half: t.row() for half, t in halves.items()} for mode, halves in results.items()
    }
    if args.json:
        print(json.dumps(table, indent=2))
        return 0
    rows = list(next(iter(next(iter(table.values())).values())))
    columns = [(mode, half) for mode in MODES for half in ("tune", "held out")]
    print("| | " + " | ".join(f"{m}, {h}" for m, h in columns) + " |")
    print("|---|" + "---:|" * len(columns))
    for row in rows:
        print(f"| {row} | " + " | ".join(str(table[m][h][row]) for m, h in columns) + " |")
    for mode in MODES:
        notes = results[mode]["tune"].notes + results[mode]["held out"].notes
        if notes:
            print(f"\n{mode}: {len(notes)} wrong merges or supersessions, e.g. {notes[:3]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
