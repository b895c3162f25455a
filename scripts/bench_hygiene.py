"""Benchmark: does memory stay tidy over months? False merges first, then duplicates absorbed,
changed facts superseded, what waits for a person, and how often a question about a changed
fact gets the old value.

    python -m scripts.bench_hygiene [--realtalk DIR] [--locomo FILE] [--json]
    python -m scripts.bench_hygiene --modes rule --people nadia,kofi   (a quick look)
    python -m scripts.bench_hygiene --ollama-model qwen2.5:7b [--ollama-host URL]  (a real judge)

Two sets. The project's: eight people's timelines (scripts/hygiene_data.py: written for this
project, MIT, nothing fetched): stable facts, paraphrased repeats, facts that change over
months, look-alikes that must stay apart. The real chats': pairs of messages one person wrote
in two sessions of the RealTalk and LoCoMo chats, labelled by hand as a repeat, a change or two
different facts (scripts/hygiene_real_pairs.jsonl holds only file names, message ids and
labels; the texts are read from the folder and file given, never copied here).

Each memory goes through the public API the way a user's ``remember`` does, in the order said,
on the embedded defaults with all-MiniLM-L6-v2 in process; then one consolidation pass
(``memory.review.tidy``, what the daemon runs each interval). Three modes:

  as given        merge off: every memory stored as said;
  rule            no chat model: the write merges only repeats that differ in no particular,
                  the pass queues likely repeats and likely conflicts for review;
  scripted judge  the pass asks the configured chat model, played by the fake Ollama server
                  (tests/fakes/ollama_server.py) scripted with the sets' own answers (a repeat
                  is "duplicate", a later step of a changed fact "updates" the earlier, anything
                  else "unrelated", confidence 0.9): the ceiling a perfect judge reaches, not a
                  real model's figure. ``--ollama-model`` asks a real Ollama model instead.

The project's people are split in two halves: the bars were set on the first four (tune) and
are judged on the last four (held out); both are printed.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import sys
import tempfile
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aria_mem.api import AriaMem, MemoryStatus, Stage
from aria_mem.domain.hygiene import Outcome
from aria_mem.domain.joining import both_wordings
from aria_mem.domain.prompt import neutralize
from scripts.hygiene_data import TIMELINES, Said, Timeline

ROOT = Path(__file__).resolve().parent

COMPANION = "aria"
MODES = ("as given", "rule", "scripted judge")
TUNE = frozenset(t.user for t in TIMELINES[:4])
REAL_PAIRS = ROOT / "hygiene_real_pairs.jsonl"
_LINE = re.compile(r"^(?:(\d+)\.|-) \[[^\]]*\] (.*)$", re.M)


@dataclass
class Tally:
    memories_said: int = 0
    false_merges: int = 0
    wrong_supersessions: int = 0
    look_alikes_joined: int = 0
    look_alikes: int = 0
    active_left: int = 0
    ideal_left: int = 0
    repeats_possible: int = 0
    repeats_absorbed: int = 0
    repeats_waiting: int = 0
    changes: int = 0
    changes_superseded: int = 0
    changes_waiting: int = 0
    review_items: int = 0
    review_true: int = 0
    questions: int = 0
    old_in_prompt: int = 0
    current_in_prompt: int = 0
    notes: list[str] = field(default_factory=list)
    missed: list[str] = field(default_factory=list)
    """Repeats and changes neither merged (superseded) nor waiting in review."""
    waiting: list[str] = field(default_factory=list)
    """Repeats and changes waiting in review: the two wordings and why a person is asked."""

    def add(self, other: Tally) -> None:
        for name, value in vars(other).items():
            if isinstance(value, int):
                setattr(self, name, getattr(self, name) + value)

    def row(self) -> dict[str, object]:
        n = max(1, self.questions)
        return {
            "memories said": self.memories_said,
            "false merges": self.false_merges,
            "wrong supersessions": self.wrong_supersessions,
            "look-alikes joined": f"{self.look_alikes_joined}/{self.look_alikes}",
            "active at the end (ideal)": f"{self.active_left} ({self.ideal_left})",
            "repeats absorbed": f"{self.repeats_absorbed}/{self.repeats_possible}",
            "repeats waiting in review": self.repeats_waiting,
            "changes superseded": f"{self.changes_superseded}/{self.changes}",
            "changes waiting in review": self.changes_waiting,
            "review items (right to ask)": f"{self.review_items} ({self.review_true})",
            "questions: old value in prompt": f"{100 * self.old_in_prompt / n:.1f}%",
            "questions: current value in prompt": f"{100 * self.current_in_prompt / n:.1f}%",
        }


class Script:
    """The judge's answers from the sets' own labels, for the fake server's chat endpoint:
    ``pairs[(new, old)]`` is the verdict (texts as the prompt shows them, neutralised)."""

    def __init__(self) -> None:
        self.pairs: dict[tuple[str, str], str] = {}
        self.joined: dict[str, str] = {}
        """A joined wording it answered -> the older line it joined (a memory may take it)."""
        self.asked = 0

    def says(self, new: str, old: str, verdict: str) -> None:
        self.pairs[(neutralize(new), neutralize(old))] = verdict

    def _verdict(self, new: str, text: str) -> str | None:
        """Its verdict on ``text``, or on the wording a joined ``text`` was made from."""
        seen = set()
        while text not in seen:
            seen.add(text)
            verdict = self.pairs.get((new, text))
            if verdict is not None or text not in self.joined:
                return verdict
            text = self.joined[text]
        return None

    def __call__(self, messages: list[dict[str, Any]]) -> str:
        self.asked += 1
        lines = _LINE.findall(messages[-1]["content"])
        new = next((text for number, text in lines if not number), "")
        for number, text in lines:
            verdict = self._verdict(new, text) if number else None
            if verdict is not None:
                answer = {"verdict": verdict, "memory": int(number), "confidence": 0.9}
                if verdict == "duplicate":  # from the two lines shown, as a model could
                    merged = f"{text.rstrip('.')}; {new[0].lower()}{new[1:]}"
                    answer["merged"] = merged
                    self.joined[neutralize(" ".join(merged.split()))] = text
                    # or both whole, where the pass keeps both (a negation in one only)
                    whole = neutralize(" ".join(both_wordings(text, new).split()))
                    self.joined.setdefault(whole, text)
                return json.dumps({**answer, "reason": ""})
        return json.dumps({"verdict": "unrelated", "memory": 0, "confidence": 0.9, "reason": ""})

    def learn(self, timeline: Timeline) -> None:
        for new in timeline.said:
            for old in timeline.said:
                if new.group and new.group == old.group and new.key != old.key:
                    self.says(new.text, old.text, "duplicate")
                elif new.chain and new.chain == old.chain and old.step < new.step:
                    self.says(new.text, old.text, "updates")


def _ideal(timeline: Timeline) -> int:
    """Memories a tidy store keeps active: one per fact (group or chain counts once)."""
    return len({s.group or s.chain or s.key for s in timeline.said})


class Outcomes:
    """Where each memory went: merged on the write or by the pass (into which), superseded."""

    def __init__(self, mem: AriaMem, user: str) -> None:
        self.into: dict[uuid.UUID, uuid.UUID] = {}
        self.superseded: dict[uuid.UUID, uuid.UUID] = {}  # old -> new
        for action in mem.review.passes(user=user, companion=COMPANION, limit=100_000):
            if action.undone_at is not None or action.other_id is None:
                continue
            if action.outcome is Outcome.MERGED:
                self.into[action.memory_id] = action.other_id
            elif action.outcome is Outcome.SUPERSEDED:
                self.superseded[action.other_id] = action.memory_id
        self.why = {
            frozenset((i.memory_id, i.other_id)): i.reason
            for i in mem.review.list(user=user, companion=COMPANION)
        }
        self.asked = set(self.why)

    def standing(self, memory_id: uuid.UUID) -> uuid.UUID:
        """The memory that now stands for ``memory_id``, merged or superseded: a question
        about a memory moves to it (``domain.hygiene.moved_question``)."""
        seen = set()
        while memory_id not in seen and (memory_id in self.into or memory_id in self.superseded):
            seen.add(memory_id)
            memory_id = self.into.get(memory_id) or self.superseded[memory_id]
        return memory_id

    def holder(self, memory_id: uuid.UUID) -> uuid.UUID:
        seen = set()
        while memory_id in self.into and memory_id not in seen:
            seen.add(memory_id)
            memory_id = self.into[memory_id]
        return memory_id


def _waiting(label: str, first: Said, second: Said, why: str) -> str:
    return f"{label} {first.key!r} / {second.key!r}: {first.text!r} / {second.text!r} -- {why}"


def run_person(mem: AriaMem, timeline: Timeline, mode: str) -> Tally:
    tally = Tally(memories_said=len(timeline.said), ideal_left=_ideal(timeline))
    user = f"{timeline.user}-{MODES.index(mode)}"
    memory_of: dict[str, uuid.UUID] = {}
    for said in timeline.said:
        result = mem.remember(
            said.text,
            user=user,
            companion=COMPANION,
            memory_type=said.type,
            importance=said.importance,
            merge=mode != "as given",
        )
        memory_of[said.key] = result.memory.id
    if mode != "as given":
        mem.review.tidy(user=user, companion=COMPANION)
    done = Outcomes(mem, user)
    said_of: dict[uuid.UUID, list[Said]] = {}
    for said in timeline.said:
        said_of.setdefault(done.holder(memory_of[said.key]), []).append(said)
    for saids in said_of.values():
        first = saids[0]
        for said in saids[1:]:
            if said.group and said.group == first.group:
                tally.repeats_absorbed += 1
            else:
                tally.false_merges += 1
                tally.notes.append(f"merged {said.key!r} into {first.key!r}")
    by_key = {s.key: s for s in timeline.said}
    key_of = {memory_of[s.key]: s for s in timeline.said}
    for old_id, new_id in done.superseded.items():
        old, new = key_of.get(old_id), key_of.get(new_id)
        if old and new and new.chain and new.chain == old.chain and old.step < new.step:
            tally.changes_superseded += 1
        else:
            tally.wrong_supersessions += 1
            tally.notes.append(
                f"{new.key if new else new_id!r} superseded {old.key if old else old_id!r}"
            )
    groups: dict[str, list[Said]] = {}
    for said in timeline.said:
        if said.group:
            groups.setdefault(said.group, []).append(said)
    tally.repeats_possible = sum(len(g) - 1 for g in groups.values())
    for g in groups.values():
        for n, said in enumerate(g[1:], 1):
            # asked about with an earlier wording of it, or the one that wording went into
            # (a question follows its memory when that one is merged away or superseded)
            earlier = {memory_of[o.key] for o in g[:n]}
            earlier |= {done.standing(m) for m in earlier}
            itself = {memory_of[said.key], done.standing(memory_of[said.key])}
            pairs = [frozenset((m, i)) for m in earlier for i in itself if m != i]
            asked = any(p in done.asked for p in pairs)
            merged = done.holder(memory_of[g[0].key]) == done.holder(memory_of[said.key])
            tally.repeats_waiting += asked and not merged
            if asked and not merged:
                hit = next(p for p in pairs if p in done.why)
                named = next(iter(hit - itself), None)
                other = key_of.get(named, g[n - 1]) if named else g[n - 1]
                tally.waiting.append(_waiting("repeat", other, said, done.why[hit]))
            if not merged and not asked:
                tally.missed.append(f"repeat {g[0].key!r} / {said.key!r}")
    chained = [s for s in timeline.said if s.chain and s.step > 1]
    tally.changes = len(chained)
    for said in chained:
        before = [o for o in timeline.said if o.chain == said.chain and o.step == said.step - 1]
        # a question follows its memory when that one is merged away or superseded
        olds = {x for o in before for x in (memory_of[o.key], done.standing(memory_of[o.key]))}
        itself = {memory_of[said.key], done.standing(memory_of[said.key])}
        pairs = [frozenset((m, i)) for m in olds for i in itself if m != i]
        waiting = any(p in done.asked for p in pairs)
        tally.changes_waiting += waiting
        if waiting:
            why = next((done.why[p] for p in pairs if p in done.why), "")
            tally.waiting.append(_waiting("change", before[0], said, why))
        replaced = any(done.superseded.get(memory_of[b.key]) == memory_of[said.key] for b in before)
        if not waiting and not replaced:
            tally.missed.append(f"change {before[0].key!r} -> {said.key!r}")
    tally.look_alikes = len(timeline.look_alikes)
    tally.look_alikes_joined = sum(
        done.holder(memory_of[pair.first]) == done.holder(memory_of[pair.second])
        for pair in timeline.look_alikes
    )
    tally.active_left = len(
        mem.list(user=user, companion=COMPANION, status=MemoryStatus.ACTIVE, limit=10_000)
    )
    items = mem.review.list(user=user, companion=COMPANION)
    tally.review_items = len(items)
    for item in items:
        first_said = key_of.get(item.memory_id)
        second = key_of.get(item.other_id) if item.other_id else None
        facts = {first_said.chain or first_said.group} if first_said else set()
        facts &= {second.chain or second.group} if second else set()
        tally.review_true += bool(facts - {""})
    mem.relationship.set_stage(Stage.ESTABLISHED, user=user, companion=COMPANION)
    for question in timeline.questions:
        prompt = mem.search(question.text, user=user, companion=COMPANION).prompt
        tally.questions += 1
        tally.old_in_prompt += any(by_key[k].text in prompt for k in question.obsolete)
        tally.current_in_prompt += by_key[question.current].text in prompt
    return tally


@dataclass(frozen=True)
class RealPair:
    ref: str
    first: str
    second: str
    label: str  # repeat, change, different


def real_pairs(realtalk: Path | None, locomo: Path | None) -> list[RealPair]:
    """The labelled pairs whose chats were given, with their texts read from them."""
    texts: dict[str, dict[str, str]] = {}
    if realtalk is not None:
        for path in sorted(realtalk.glob("Chat_*.json")):
            chat = json.loads(path.read_text())
            texts[path.name] = {
                m["dia_id"]: m["clean_text"]
                for key, session in chat.items()
                if re.fullmatch(r"session_\d+", key)
                for m in session
            }
    if locomo is not None:
        for n, sample in enumerate(json.loads(locomo.read_text())):
            texts[f"{locomo.name}#{n}"] = {
                m["dia_id"]: m["text"]
                for key, session in sample["conversation"].items()
                if re.fullmatch(r"session_\d+", key)
                for m in session
            }
    pairs = []
    for line in REAL_PAIRS.read_text().splitlines():
        ref = json.loads(line)
        chat = texts.get(ref["file"])
        if chat is not None:
            name = f"{ref['file']} {ref['first']}/{ref['second']}"
            pairs.append(RealPair(name, chat[ref["first"]], chat[ref["second"]], ref["label"]))
    return pairs


def run_real(mem: AriaMem, pairs: list[RealPair], mode: str) -> Tally:
    tally = Tally(memories_said=2 * len(pairs))
    for n, pair in enumerate(pairs):
        user = f"real{n}-{MODES.index(mode)}"
        ids = [
            mem.remember(text, user=user, companion=COMPANION, merge=mode != "as given").memory.id
            for text in (pair.first, pair.second)
        ]
        if mode != "as given":
            mem.review.tidy(user=user, companion=COMPANION)
        done = Outcomes(mem, user)
        merged = done.holder(ids[0]) == done.holder(ids[1])
        superseded = done.superseded.get(ids[0]) == ids[1]
        asked = frozenset(ids) in done.asked
        tally.review_items += len(done.asked)
        if asked and pair.label != "different" and not (merged or superseded):
            why = done.why[frozenset(ids)]
            said = f"{pair.first[:200]!r} / {pair.second[:200]!r}"
            tally.waiting.append(f"{pair.label} {pair.ref}: {said} -- {why}")
        tally.review_true += asked and pair.label != "different"
        if pair.label == "repeat":
            tally.repeats_possible += 1
            tally.repeats_absorbed += merged
            tally.repeats_waiting += asked and not merged
        elif pair.label == "change":
            tally.changes += 1
            tally.changes_superseded += superseded
            tally.changes_waiting += asked and not superseded
        else:
            tally.look_alikes += 1
            tally.look_alikes_joined += merged
        if pair.label != "different" and not (merged or superseded or asked):
            tally.missed.append(f"{pair.label} {pair.ref}")
        if merged and pair.label != "repeat":
            tally.false_merges += 1
            tally.notes.append(f"merged a {pair.label} pair: {pair.ref}")
        if superseded and pair.label != "change":
            tally.wrong_supersessions += 1
            tally.notes.append(f"superseded in a {pair.label} pair: {pair.ref}")
        tally.active_left += len(
            mem.list(user=user, companion=COMPANION, status=MemoryStatus.ACTIVE, limit=10)
        )
        tally.ideal_left += 1 if pair.label != "different" else 2
    return tally


@contextlib.contextmanager
def judge_server(script: Script, model: str, host: str) -> Iterator[dict[str, Any]]:
    """The chat settings of the judge: the fake Ollama server playing ``script``, or a real
    Ollama model when one is named."""
    if model:
        yield {"provider": "ollama", "model": model, "host": host, "timeout": 120.0}
        return
    from tests.fakes.ollama_server import FakeOllama, FakeOllamaState

    with FakeOllama(FakeOllamaState(structured=script)) as fake:
        yield {"provider": "ollama", "model": "llama3.2", "host": fake.url, "timeout": 30.0}


def run_mode(
    mode: str,
    args: argparse.Namespace,
    pairs: list[RealPair],
    results: dict[str, Tally],
    log: Callable[[str], None],
) -> None:
    script = Script()
    for timeline in TIMELINES:
        script.learn(timeline)
    verdicts = {"repeat": "duplicate", "change": "updates"}
    for pair in pairs:
        if pair.label in verdicts:
            script.says(pair.second, pair.first, verdicts[pair.label])
    with (
        tempfile.TemporaryDirectory(prefix="aria-bench-hygiene-") as home,
        judge_server(script, args.ollama_model, args.ollama_host) as chat,
    ):
        os.environ["ARIA_MEM_HOME"] = home
        sections: dict[str, dict[str, Any]] = {
            "embedder": {"provider": "sentence-transformers", "model": "all-MiniLM-L6-v2"},
            "retrieval": {"min_similarity": 0.25, "timeout": 30.0},
            "hygiene": {
                "merge_similarity": args.merge_similarity,
                "conflict_similarity": args.conflict_similarity,
                "ask_similarity": args.ask_similarity,
                "judge": "on" if mode == "scripted judge" else "off",
            },
            "chat": chat,
        }
        with AriaMem.open(None, **sections) as mem:
            if pairs:
                tally = run_real(mem, pairs, mode)
                results["real chats"].add(tally)
                results["real chats"].notes += tally.notes
                results["real chats"].missed += tally.missed
                results["real chats"].waiting += tally.waiting
                log(f"{mode}, real chats: {json.dumps(tally.row())} {tally.notes}")
            for timeline in TIMELINES:
                if args.people and timeline.user not in args.people.split(","):
                    continue
                half = "tune" if timeline.user in TUNE else "held out"
                tally = run_person(mem, timeline, mode)
                results[half].add(tally)
                results[half].notes += tally.notes
                results[half].missed += [f"{timeline.user}: {m}" for m in tally.missed]
                results[half].waiting += [f"{timeline.user}: {w}" for w in tally.waiting]
                log(f"{mode}, {timeline.user} ({half}): {json.dumps(tally.row())} {tally.notes}")
            mem.admin.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--json", action="store_true", help="print JSON for scripts")
    parser.add_argument(
        "--merge-similarity", type=float, default=0.0, help="0: the model's own bar"
    )
    parser.add_argument(
        "--conflict-similarity", type=float, default=0.0, help="0: the model's own bar"
    )
    parser.add_argument(
        "--ask-similarity", type=float, default=0.0, help="0: the model's own ask bar (no judge)"
    )
    parser.add_argument(
        "--people", default="", help="only these people of the project's set (comma-separated)"
    )
    parser.add_argument("--realtalk", type=Path, help="the folder of RealTalk's Chat_*.json")
    parser.add_argument("--locomo", type=Path, help="LoCoMo's locomo-dev.json")
    parser.add_argument("--ollama-model", default="", help="judge with this real Ollama model")
    parser.add_argument("--ollama-host", default="http://127.0.0.1:11434")
    parser.add_argument(
        "--waiting",
        action="store_true",
        help="list each repeat and change waiting in review, with why a person is asked",
    )
    parser.add_argument(
        "--modes", default=",".join(MODES), help=f"some of: {', '.join(MODES)} (comma-separated)"
    )
    args = parser.parse_args(argv)
    modes = tuple(m for m in MODES if m in args.modes.split(","))
    pairs = real_pairs(args.realtalk, args.locomo)
    halves = ("tune", "held out", "real chats") if pairs else ("tune", "held out")
    results = {m: {h: Tally() for h in halves} for m in modes}
    log = (lambda _: None) if args.json else (lambda line: print(line, file=sys.stderr))
    for mode in modes:
        run_mode(mode, args, pairs, results[mode], log)
    judged = f"Ollama {args.ollama_model}" if args.ollama_model else "the scripted server"
    table = {m: {h: t.row() for h, t in r.items()} for m, r in results.items()}
    if args.json:
        missed = {m: [n for h in halves for n in results[m][h].missed] for m in modes}
        out: dict[str, object] = {"judge": judged, "table": table, "missed": missed}
        if args.waiting:
            out["waiting"] = {m: [w for h in halves for w in results[m][h].waiting] for m in modes}
        print(json.dumps(out, indent=2))
        return 0
    print(f"judge: {judged}; real-chat pairs: {len(pairs)}\n")
    rows = list(table[modes[0]][halves[0]])
    columns = [(mode, half) for mode in modes for half in halves]
    print("| | " + " | ".join(f"{m}, {h}" for m, h in columns) + " |")
    print("|---|" + "---:|" * len(columns))
    for row in rows:
        print(f"| {row} | " + " | ".join(str(table[m][h][row]) for m, h in columns) + " |")
    for mode in modes:
        notes = [n for half in halves for n in results[mode][half].notes]
        if notes:
            print(f"\n{mode}: {len(notes)} wrong merges or supersessions, e.g. {notes[:4]}")
    for mode in modes:
        unasked = [n for half in halves for n in results[mode][half].missed]
        if unasked:
            print(f"\n{mode}: {len(unasked)} repeats or changes neither done nor asked: {unasked}")
    for mode in modes if args.waiting else ():
        waiting = [w for half in halves for w in results[mode][half].waiting]
        print(f"\n{mode}: {len(waiting)} repeats or changes waiting in review:")
        for line in waiting:
            print(f"- {line}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
