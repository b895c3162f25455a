"""The trip of one message is told three times, by the design, by docs/retrieval.md and by the
retriever: the same steps, numbered and named the same; and each step's rule, a domain module the
design names beside the step, imports no later step (directly or through another module)."""

from __future__ import annotations

import ast
import re
from collections import deque
from pathlib import Path

import pytest

from aria_mem.services.retriever import STEPS

ROOT = Path(__file__).resolve().parent.parent
DOMAIN = ROOT / "aria_mem" / "domain"
STEP = re.compile(r"^(\d+)\. \*\*(.+?)\*\*:", re.MULTILINE)
MODULE = re.compile(r"`domain/(\w+)\.py`")


def trip(doc: str) -> str:
    """The part of a document that tells the trip: from its first step to its last."""
    text = (ROOT / "docs" / doc).read_text(encoding="utf-8")
    steps = list(STEP.finditer(text))
    assert steps, f"docs/{doc} numbers no step as '1. **Name**: ...'"
    end = text.find("\n\n", steps[-1].end())
    return text[steps[0].start() : end if end >= 0 else len(text)]


@pytest.mark.parametrize("doc", ["design.md", "retrieval.md"])
def test_the_docs_number_and_name_the_steps_as_the_retriever_does(doc: str) -> None:
    told = [(int(n), name) for n, name in STEP.findall(trip(doc))]
    assert told == list(enumerate(STEPS, 1))


def step_modules() -> dict[str, int]:
    """Each domain module the design names beside a step, with that step's number."""
    text = trip("design.md")
    starts = list(STEP.finditer(text))
    found: dict[str, int] = {}
    for here, after in zip(starts, [*starts[1:], None], strict=True):
        body = text[here.start() : after.start() if after else len(text)]
        for module in MODULE.findall(body):
            assert module not in found, f"domain/{module}.py is named beside two steps"
            found[module] = int(here.group(1))
    return found


def domain_imports(module: str) -> set[str]:
    """The domain modules ``module`` imports itself (any import statement, anywhere in it)."""
    tree = ast.parse((DOMAIN / f"{module}.py").read_text(encoding="utf-8"))
    named: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            named.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            named.add(node.module)
            named.update(f"{node.module}.{alias.name}" for alias in node.names)
    prefix = "aria_mem.domain."
    return {
        name.removeprefix(prefix).split(".")[0]
        for name in named
        if name.startswith(prefix) and (DOMAIN / f"{name.removeprefix(prefix)}.py").exists()
    }


def reached_from(module: str) -> dict[str, list[str]]:
    """Every domain module ``module`` imports, directly or not, with the shortest path that
    gets there."""
    paths: dict[str, list[str]] = {}
    todo = deque([(module, [module])])
    while todo:
        current, path = todo.popleft()
        for imported in sorted(domain_imports(current)):
            if imported not in paths and imported != module:
                paths[imported] = [*path, imported]
                todo.append((imported, paths[imported]))
    return paths


def test_the_design_names_a_domain_module_for_the_steps_with_a_rule() -> None:
    modules = step_modules()
    assert {"query", "fusion", "confirmation", "repeats", "ranking", "selection"} <= set(modules)
    assert all((DOMAIN / f"{m}.py").exists() for m in modules)


def test_no_step_imports_a_later_step() -> None:
    steps = step_modules()
    later = [
        f"step {steps[module]} ({module}) reaches step {steps[other]}: {' -> '.join(path)}"
        for module in steps
        for other, path in reached_from(module).items()
        if steps.get(other, 0) > steps[module]
    ]
    assert later == []


def test_the_check_sees_an_import_through_another_module() -> None:
    """The selection (step 10) reaches the words of the repeat rule (step 9) through it: the
    walk follows imports beyond the first."""
    assert reached_from("selection")["words"] == ["selection", "repeats", "words"]
