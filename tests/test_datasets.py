"""The benchmarks' data sets (scripts/data/*.jsonl) load through their one loader, and a broken
line fails naming its file and line rather than skewing a figure."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scripts import datasets
from scripts.jsonl import DataError


def test_the_shipped_sets_load_whole() -> None:
    personas, scenes, timelines = datasets.personas(), datasets.scenes(), datasets.timelines()
    assert [p.user for p in personas] == ["maya", "sam", "aiko", "omar", "greta", "leo"]
    assert sum(len(p.questions) for p in personas) == 84
    assert sum(len(s.observations) for s in scenes) == 413
    assert sum(len(s.asks) for s in scenes) == 193
    assert len(timelines) == 8 and sum(len(t.said) for t in timelines) == 382
    nadia = timelines[0]
    asked = nadia.questions[0]
    assert (nadia.user, asked.chain) == ("nadia", "city")
    city = [s.key for s in nadia.said if s.chain == "city"]
    assert asked.current == city[-1] and asked.obsolete == tuple(city[:-1])


def _write(tmp_path: Path, *lines: dict[str, object] | str) -> Path:
    path = tmp_path / "data" / "set.jsonl"
    path.parent.mkdir()
    path.write_text("".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines))
    return path


PERSONA: dict[str, object] = {"record": "persona", "user": "ann", "world": {"names": ["Bo"]}}
FACT: dict[str, object] = {"record": "fact", "user": "ann", "key": "cat", "type": "ProfileFact"}
FACT |= {"said": "2024-01-02", "importance": 0.5, "text": "The user has a cat."}
QUESTION: dict[str, object] = {
    "record": "question",
    "user": "ann",
    "kind": "direct",
    "answers": ["cat"],
}
QUESTION |= {"text": "Do I have a pet?"}


def test_a_well_formed_file_gives_the_records(tmp_path: Path) -> None:
    [ann] = datasets.personas(_write(tmp_path, PERSONA, FACT, QUESTION))
    assert ann.facts[0].text == "The user has a cat." and ann.questions[0].answers == ("cat",)
    assert ann.world == {"names": ("Bo",)}


@pytest.mark.parametrize(
    ("broken", "problem"),
    [
        ('{"record": "fact", ', "data/set.jsonl:2: not JSON"),
        ({k: v for k, v in FACT.items() if k != "said"}, "data/set.jsonl:2: a fact needs a 'said'"),
        (FACT | {"colour": "red"}, "data/set.jsonl:2: a fact has no field 'colour'"),
        (FACT | {"said": "2024-13-01"}, "data/set.jsonl:2: said '2024-13-01' is not an ISO date"),
        (FACT | {"importance": 2}, "data/set.jsonl:2: importance 2 is not a number from 0 to 1"),
        (FACT | {"type": "Fact"}, "data/set.jsonl:2: type 'Fact' is none of"),
        (FACT | {"user": "bob"}, "data/set.jsonl:2: user 'bob' is not the persona"),
        (QUESTION | {"answers": ["dog"]}, "data/set.jsonl:2: answers ['dog'] are not keys"),
    ],
)
def test_a_broken_line_is_named_with_its_problem(
    tmp_path: Path, broken: dict[str, object] | str, problem: str
) -> None:
    with pytest.raises(DataError, match="^" + problem.replace("[", r"\[")):
        datasets.personas(_write(tmp_path, PERSONA, broken, FACT, QUESTION))
