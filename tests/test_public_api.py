"""The public names: every type a public call takes or returns, or a result's field holds, can
be imported from ``aria_mem``; nothing else is exported; the list is the one
docs/python-api.md documents; and ``aria_mem.testing`` gives a user's tests a working memory
with nothing to set up."""

from __future__ import annotations

import enum
import gc
import inspect
import re
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import aria_mem
from aria_mem.api.context import Context
from tests.conftest import ROOT

STARTS = ("AriaMem", "relay", "run_service", "init_config")
"""Where a program starts: the object, and the functions that stand beside it."""
ALIASES = {"MemoryRef"}
"""Exported type aliases: a checker reads them, ``get_type_hints`` sees through them."""


def _public() -> dict[str, Any]:
    return {name: getattr(aria_mem, name) for name in aria_mem.__all__}


def _leaves(hint: Any) -> Iterator[type]:
    """The classes a hint names: ``tuple[Ranked, ...] | None`` names ``Ranked``."""
    if typing.get_origin(hint) is typing.Literal:
        return
    if typing.get_origin(hint) is not None:
        for arg in typing.get_args(hint):
            yield from _leaves(arg)
    elif isinstance(hint, list):  # a Callable's parameters
        for arg in hint:
            yield from _leaves(arg)
    elif isinstance(hint, type):
        yield hint


def _hints(owner: Any, names: dict[str, Any]) -> dict[str, Any]:
    """The owner's annotations resolved with what ``aria_mem`` exports in scope: a name that
    resolves neither in its own module nor among the exports is a type a user cannot name."""
    try:
        return typing.get_type_hints(owner, localns=names | {"Context": Context})
    except NameError as exc:
        pytest.fail(f"{owner.__qualname__}: {exc} (not importable from aria_mem)")


def _members(cls: type) -> Iterator[tuple[str, Any]]:
    """A class's public callables and properties (and its constructor, unless only the API
    builds it: groups and ``Relay`` take the API's private Context)."""
    for name in dir(cls):
        if name.startswith("_") and name != "__init__":
            continue
        found = inspect.getattr_static(cls, name)
        function = found.fget if isinstance(found, property) else getattr(found, "__func__", found)
        if callable(function) and getattr(function, "__module__", "").startswith("aria_mem"):
            yield name, function


def _reached(starts: dict[str, Any], names: dict[str, Any]) -> dict[type, str]:
    """Every aria_mem class the public signatures and result fields reach, with where from.
    A port a user hands in (``Store``, ``VectorIndex``, ...) counts by its name: its own
    methods are for the adapters that implement it."""
    reached: dict[type, str] = {}
    todo: list[tuple[Any, str]] = [(value, "start") for value in starts.values()]
    while todo:
        value, where = todo.pop()
        owners: list[tuple[Any, str]] = []
        if isinstance(value, type):
            if not value.__module__.startswith("aria_mem") or value in reached:
                continue
            reached[value] = where
            if issubclass(value, BaseException | enum.Enum) or value.__module__.startswith(
                "aria_mem.ports"
            ):
                continue
            owners.append((value, value.__name__))
            owners += [(f, f"{value.__name__}.{n}") for n, f in _members(value)]
        elif callable(value):
            owners.append((value, value.__name__))
        for owner, label in owners:
            hints = _hints(owner, names)
            if label.endswith(".__init__") and Context in hints.values():
                continue
            todo += [
                (leaf, f"{label}: {key}")
                for key, hint in hints.items()
                if not key.startswith("_")
                for leaf in _leaves(hint)
            ]
    return reached


def test_every_type_a_public_signature_uses_is_exported_and_nothing_else() -> None:
    public = _public()
    reached = _reached({n: public[n] for n in STARTS}, public)
    exported = {value for value in public.values() if isinstance(value, type)}
    assert {t.__qualname__: w for t, w in reached.items() if t not in exported} == {}
    errors = {v for v in exported if issubclass(v, BaseException)}
    unused = exported - set(reached) - errors
    assert sorted(t.__qualname__ for t in unused) == [], "exported, yet no public call uses it"
    for name, value in public.items():  # each under its own name
        assert getattr(value, "__name__", name) == name or name in ALIASES, name
    assert {"ChatSession", "PreparedTurn", "Upkeep", "DaemonStart"}.isdisjoint(public)


def test_the_testing_module_uses_only_exported_types() -> None:
    import aria_mem.testing

    public = _public()
    names = public | {n: getattr(aria_mem.testing, n) for n in aria_mem.testing.__all__}
    reached = _reached({n: getattr(aria_mem.testing, n) for n in aria_mem.testing.__all__}, names)
    allowed = {v for v in names.values() if isinstance(v, type)}
    assert {t.__qualname__: w for t, w in reached.items() if t not in allowed} == {}


def _documented() -> list[str]:
    """The names in the list of docs/python-api.md's section "Every public name", each in
    backticks (the paragraph above the list may name some again)."""
    text = (ROOT / "docs" / "python-api.md").read_text()
    section = text.split("## Every public name", 1)[1].split("\n## ", 1)[0]
    listed = section.split("\n- ", 1)[1]
    return re.findall(r"`([A-Za-z_][A-Za-z0-9_]*)`", listed)


def test_the_exported_names_are_the_documented_ones_and_each_imports() -> None:
    documented = _documented()
    assert len(documented) == len(set(documented)), "a name documented twice"
    assert sorted(documented) == sorted(aria_mem.__all__)
    for name in documented:
        scope: dict[str, Any] = {}
        exec(f"from aria_mem import {name}", scope)
        assert scope[name] is getattr(aria_mem, name)
    with pytest.raises(ImportError):
        exec("from aria_mem import ChatSession", {})


def test_in_memory_remembers_and_finds_without_a_database_or_the_developers_config(
    isolated_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from aria_mem.config import load
    from aria_mem.testing import WordsEmbedder, in_memory

    isolated_env.mkdir(mode=0o700, parents=True, exist_ok=True)
    config = isolated_env / "config.toml"
    config.write_text('[identity]\nuser = "someone-else"\n[postgres]\ndsn = "postgresql://x/y"\n')
    monkeypatch.setenv("ARIA_MEM_RETRIEVAL_MIN_SIMILARITY", "0.99")
    assert load().identity.user == "someone-else"  # what AriaMem.open() would use
    with in_memory(user="sam") as memory:
        memory.remember("The user's sister loves pottery.")
        memory.remember("The user is allergic to peanuts.")
        found = memory.search("Does my sister like pottery?")
        folder = memory.settings.data_dir
        assert memory.settings.postgres.dsn == ""
    assert [r.memory.text for r in found.chosen] == ["The user's sister loves pottery."]
    assert found.chosen[0].memory.user_id == "sam" and "pottery" in found.prompt
    assert found.degraded == ()
    with in_memory(user="sam", retrieval={"min_similarity": 0.9}) as other:
        assert other.list() == []  # a fresh memory each time
        assert other.settings.retrieval.min_similarity == 0.9
    words = WordsEmbedder(dimension=16)
    assert words.embed_query("pottery class") == words.embed(["Pottery, class!"])[0]
    assert sum(x * x for x in words.embed_query("sister pottery")) == pytest.approx(1.0)
    del memory
    gc.collect()
    assert not folder.exists()


def test_the_docs_example_of_a_users_test_passes_as_written() -> None:
    section = (ROOT / "docs" / "python-api.md").read_text().split("## Testing your program")[1]
    found = re.search(r"```python\n(.*?)```", section, re.DOTALL)
    assert found is not None, "docs/python-api.md lost its example of a user's test"
    scope: dict[str, Any] = {}
    exec(compile(found.group(1), "docs/python-api.md", "exec"), scope)
    (example,) = [value for name, value in scope.items() if name.startswith("test_")]
    example()
