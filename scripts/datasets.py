"""The one loader of the benchmarks' data sets: JSON Lines files in scripts/data, one record a
line, each line checked as it is read, so that a typo fails naming the file, the line and the
problem instead of skewing a figure.

Every line is a JSON object whose ``record`` says what it is; its other fields are exactly those
listed for that record below (a field marked optional may be left out). A set is made of owners
(a persona, a scene, a person), each a header line followed by the lines that name it:

- personas.jsonl, the set the retrieval was tuned on: ``persona`` (user; world: the words its
  generated background draws on), then its ``fact`` lines and its ``question`` lines (answers:
  fact keys; previous: the message before, for a follow-up).
- observations.jsonl, the set never tuned on: ``scene`` (its people; asked: the day its
  questions are asked; about), then its ``observation`` lines in session order and its ``ask``
  lines (answers: observation keys).
- background.jsonl and small_talk.jsonl, what the generated parts of the two retrieval sets
  draw on: ``template`` lines (a memory type and a text with {pool} fields) and ``pool`` lines
  (a name and its words), in the order the seeded generators pick from them.
- hygiene.jsonl, the memory-hygiene set: ``person`` (user, about), then its ``said`` lines in
  the order said (group: a paraphrase group; chain and step: the steps of a changed fact;
  trivial: stale and unimportant), its ``look-alike`` pairs and its ``question`` lines (chain:
  the changed fact asked about; the chain's last step answers, the earlier ones must not).
"""

from __future__ import annotations

import string
from collections.abc import Collection
from itertools import pairwise
from pathlib import Path

from scripts.jsonl import Line, Schema, owners, read
from scripts.records import (
    MEMORY_TYPES,
    Ask,
    ChangedQuestion,
    Fact,
    LookAlike,
    Observation,
    Persona,
    Question,
    Said,
    Scene,
    Templates,
    Timeline,
)

DATA = Path(__file__).resolve().parent / "data"

QUESTION_KINDS = ("direct", "paraphrase", "temporal", "follow_up", "name")
ASK_KINDS = ("single", "multi", "temporal", "open")
OBSERVATION_TYPES = frozenset(MEMORY_TYPES - {"EmotionalState", "Routine"})
WHY = ("opposite", "other entity", "other aspect", "other fact")

PERSONA_RECORDS: Schema = {
    "persona": {"user": "id", "world": "words"},
    "fact": {"user": "id", "key": "str", "type": "str", "said": "date", "importance": "share"}
    | {"text": "text"},
    "question": {"user": "id", "kind": "str", "answers": "strs", "text": "str"}
    | {"previous": "str?"},
}


def personas(path: Path = DATA / "personas.jsonl") -> tuple[Persona, ...]:
    made: list[Persona] = []
    for head, body in owners(read(path, PERSONA_RECORDS), "persona", "user"):
        facts: dict[str, Fact] = {}
        questions: list[Question] = []
        for line in body:
            if line.record == "fact":
                fact = Fact(
                    *_stated(line),
                )
                _known(line, fact.type, MEMORY_TYPES, "type")
                if fact.key in facts:
                    line.fail(f"key {fact.key!r} twice")
                facts[fact.key] = fact
                continue
            question = Question(
                line.text("text"),
                line.texts("answers"),
                line.text("kind"),
                line.text("previous") or None,
            )
            _known(line, question.kind, QUESTION_KINDS, "kind")
            _answers(line, question.answers, facts)
            if (question.kind == "follow_up") != (question.previous is not None):
                line.fail("a follow_up question, and only one, gives the previous message")
            questions.append(question)
        made.append(
            Persona(head.text("user"), tuple(facts.values()), tuple(questions), head.words("world"))
        )
    return tuple(made)


SCENE_RECORDS: Schema = {
    "scene": {"scene": "id", "people": "strs", "asked": "date", "about": "str"},
    "observation": {"scene": "id", "key": "str", "type": "str", "said": "date"}
    | {"importance": "share", "text": "text"},
    "ask": {"scene": "id", "kind": "str", "answers": "strs", "text": "str"},
}


def scenes(path: Path = DATA / "observations.jsonl") -> tuple[Scene, ...]:
    made: list[Scene] = []
    for head, body in owners(read(path, SCENE_RECORDS), "scene", "scene"):
        notes: dict[str, Observation] = {}
        asks: list[Ask] = []
        last = ""
        for line in body:
            if line.record == "observation":
                note = Observation(
                    *_stated(line),
                )
                _known(line, note.type, OBSERVATION_TYPES, "type")
                if note.key in notes:
                    line.fail(f"key {note.key!r} twice")
                if note.said < last:
                    line.fail(f"said {note.said}, before the observation above it")
                if note.text.lower().startswith("the user"):
                    line.fail("an observation names the person, never 'the user'")
                notes[note.key], last = note, note.said
                continue
            ask = Ask(
                line.text("text"), line.texts("answers"), line.text("kind"), head.text("asked")
            )
            _known(line, ask.kind, ASK_KINDS, "kind")
            _answers(line, ask.answers, notes)
            if ask.kind == "multi" and len(ask.answers) < 2:
                line.fail("a multi question needs two answers")
            asks.append(ask)
        if not last or head.text("asked") <= last:
            head.fail("its questions are asked after its last observation")
        made.append(
            Scene(head.text("scene"), head.texts("people"), tuple(notes.values()), tuple(asks))
        )
    return tuple(made)


TEMPLATE_RECORDS: Schema = {
    "template": {"type": "str", "text": "text"},
    "pool": {"name": "str", "words": "strs"},
}


def templates(name: str, filled: Collection[str]) -> Templates:
    """The templates and word pools of a generated part (data/NAME.jsonl); a template's fields
    name a pool or one of ``filled``, the words its generator supplies itself."""
    lines = read(DATA / f"{name}.jsonl", TEMPLATE_RECORDS)
    pools: dict[str, tuple[str, ...]] = {}
    for line in (line for line in lines if line.record == "pool"):
        if line.text("name") in pools:
            line.fail(f"pool {line.text('name')!r} twice")
        pools[line.text("name")] = line.texts("words")
    made: list[tuple[str, str]] = []
    for line in (line for line in lines if line.record == "template"):
        _known(line, line.text("type"), MEMORY_TYPES, "type")
        fields = {field for _, field, _, _ in string.Formatter().parse(line.text("text")) if field}
        for field in sorted(fields - pools.keys() - set(filled)):
            line.fail(f"{{{field}}} is no pool and nothing the generator fills")
        made.append((line.text("type"), line.text("text")))
    return Templates(tuple(made), pools)


HYGIENE_RECORDS: Schema = {
    "person": {"user": "id", "about": "str"},
    "said": {"user": "id", "key": "str", "type": "str", "said": "date", "importance": "share"}
    | {"group": "str?", "chain": "str?", "step": "step?", "trivial": "flag?", "text": "text"},
    "look-alike": {"user": "id", "first": "str", "second": "str", "why": "str"},
    "question": {"user": "id", "chain": "str", "text": "str"},
}


def timelines(path: Path = DATA / "hygiene.jsonl") -> tuple[Timeline, ...]:
    return tuple(
        _timeline(head, body)
        for head, body in owners(read(path, HYGIENE_RECORDS), "person", "user")
    )


def _timeline(head: Line, body: list[Line]) -> Timeline:
    said: dict[str, Said] = {}
    first: dict[str, Line] = {}
    """The first line of each group and chain, where a problem with the whole is reported."""
    groups: dict[str, int] = {}
    chains: dict[str, list[Said]] = {}
    pairs: list[LookAlike] = []
    questions: list[ChangedQuestion] = []
    for line in body:
        if line.record == "said":
            item = Said(
                *_stated(line),
                line.text("group"),
                line.text("chain"),
                line.whole("step"),
                line.fields.get("trivial") is True,
            )
            _said(line, item, said, chains)
            said[item.key] = item
            if item.group:
                groups[item.group] = groups.get(item.group, 0) + 1
                first.setdefault(f"group {item.group!r}", line)
            if item.chain:
                chains.setdefault(item.chain, []).append(item)
                first.setdefault(f"chain {item.chain!r}", line)
        elif line.record == "look-alike":
            pair = LookAlike(line.text("first"), line.text("second"), line.text("why"))
            _known(line, pair.why, WHY, "why")
            if pair.first == pair.second or not {pair.first, pair.second} <= said.keys():
                line.fail("a look-alike pairs two different keys said above")
            pairs.append(pair)
        else:
            steps = chains.get(line.text("chain")) or line.fail(f"no chain {line.text('chain')!r}")
            questions.append(
                ChangedQuestion(
                    line.text("text"),
                    steps[0].chain,
                    steps[-1].key,
                    tuple(s.key for s in steps[:-1]),
                )
            )
    for group, count in groups.items():
        if count < 2:
            first[f"group {group!r}"].fail(f"group {group!r} has one wording")
    asked = {q.chain for q in questions}
    for chain, steps in chains.items():
        if len(steps) < 2 or chain not in asked:
            first[f"chain {chain!r}"].fail(f"chain {chain!r} needs two steps and a question")
    return Timeline(head.text("user"), tuple(said.values()), tuple(pairs), tuple(questions))


def _said(line: Line, item: Said, said: dict[str, Said], chains: dict[str, list[Said]]) -> None:
    """Refuses a said line that breaks the hygiene set's rules, given the lines above it."""
    _known(line, item.type, MEMORY_TYPES, "type")
    if item.key in said:
        line.fail(f"key {item.key!r} twice")
    if said and item.said < list(said.values())[-1].said:
        line.fail(f"said {item.said}, before the line above it")
    if bool(item.chain) != bool(item.step):
        line.fail("a changed fact's line gives both its chain and its step")
    steps = chains.get(item.chain, [])
    if item.chain and item.step != len(steps) + 1:
        line.fail(f"chain {item.chain!r}: step {item.step} follows step {len(steps)}")
    if steps and any(a.said >= b.said for a, b in pairwise([*steps, item])):
        line.fail(f"chain {item.chain!r}: each step is said later than the one before")
    if item.trivial and (item.group or item.chain or item.importance > 0.2):
        line.fail("a trivial memory is said once, changes nothing and matters little")


def _stated(line: Line) -> tuple[str, str, str, str, float]:
    """What a fact, an observation and a said line share: key, type, text, date, importance."""
    return (
        line.text("key"),
        line.text("type"),
        line.text("text"),
        line.text("said"),
        line.number("importance"),
    )


def _known(line: Line, value: str, known: Collection[str], name: str) -> None:
    if value not in known:
        line.fail(f"{name} {value!r} is none of {', '.join(sorted(known))}")


def _answers(line: Line, answers: tuple[str, ...], keys: Collection[str]) -> None:
    unknown = [a for a in answers if a not in keys]
    if not answers or unknown:
        line.fail(f"answers {unknown or '(none)'} are not keys said above")
