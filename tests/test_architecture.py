"""The layers hold: import-linter's contracts pass, a deliberate violation makes them fail,
and no module grows past the size a maintainer can read in one sitting."""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Iterable
from pathlib import Path

import grimp
import pytest

from tests.conftest import ROOT

LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")
MAX_MODULE_LINES = 400


def _lint(where: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(LINT_IMPORTS), "--config", "pyproject.toml", "--no-cache"],
        cwd=where,
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": str(LINT_IMPORTS.parent), "PYTHONPATH": str(where)},
    )


def test_the_import_contracts_are_kept() -> None:
    done = _lint(ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "4 kept, 0 broken" in done.stdout


@pytest.mark.parametrize(
    ("module", "line", "contract"),
    [
        (
            "cli/admin.py",
            "from aria_mem.adapters.postgres import embedded",
            "The CLI, the daemon, the MCP server and the review page",
        ),
        ("services/writer.py", "from aria_mem.adapters import documents", "Services use ports"),
        ("domain/query.py", "import httpx", "The domain does no I/O"),
        ("ports/__init__.py", "from aria_mem.services import writer", "Layers"),
        ("private.py", "from aria_mem import config", "Layers"),
        ("errors.py", "from aria_mem.domain import words", "Layers"),
    ],
)
def test_a_deliberate_violation_breaks_a_contract(
    tmp_path: Path, module: str, line: str, contract: str
) -> None:
    shutil.copytree(ROOT / "aria_mem", tmp_path / "aria_mem")
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    target = tmp_path / "aria_mem" / module
    target.write_text(target.read_text() + f"\n{line}  # deliberate violation\n")
    done = _lint(tmp_path)
    assert done.returncode != 0
    assert "BROKEN" in done.stdout and contract in done.stdout, done.stdout


def test_no_module_is_over_four_hundred_lines() -> None:
    sizes = {
        str(path.relative_to(ROOT)): len(path.read_text().splitlines())
        for path in (ROOT / "aria_mem").rglob("*.py")
    }
    assert {p: n for p, n in sizes.items() if n > MAX_MODULE_LINES} == {}


def _circles(graph: grimp.ImportGraph, modules: Iterable[str]) -> list[list[str]]:
    """The import circles among ``modules``: each strongly connected set of two or more
    modules (Tarjan's algorithm), sorted, so a failure names every module of each circle.
    Imports inside functions and under ``TYPE_CHECKING`` count: they are a circle of
    meaning even where Python would not trip on it."""
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(module: str) -> None:
        order[module] = low[module] = len(order)
        stack.append(module)
        for imported in sorted(graph.find_modules_directly_imported_by(module)):
            if imported not in order:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in stack:
                low[module] = min(low[module], order[imported])
        if low[module] == order[module]:
            circle = stack[stack.index(module) :]
            del stack[stack.index(module) :]
            if len(circle) > 1:
                found.append(sorted(circle))

    for module in sorted(modules):
        if module not in order:
            visit(module)
    return sorted(found)


def test_no_import_circle_anywhere_in_the_package() -> None:
    """A reader can start from any module and meet only modules below it: no two modules
    import each other, directly or round a longer circle (issue 37)."""
    graph = grimp.build_graph("aria_mem", cache_dir=None)
    assert _circles(graph, graph.modules) == []


def test_the_circle_finder_names_every_module_of_a_circle() -> None:
    graph = grimp.ImportGraph()
    for importer, imported in [("p.a", "p.b"), ("p.b", "p.c"), ("p.c", "p.a"), ("p.c", "p.d")]:
        graph.add_import(importer=importer, imported=imported)
    graph.add_import(importer="p.e", imported="p.e")
    assert _circles(graph, graph.modules) == [["p.a", "p.b", "p.c"]]
    graph.remove_import(importer="p.c", imported="p.a")
    assert _circles(graph, graph.modules) == []


def test_every_module_lies_in_a_layer_of_the_contracts() -> None:
    """Each module of the package is, or is inside, a module the layers contract names, so
    a new loose module at the top of the package fails here until it is given its layer."""
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    (layered,) = [c for c in contracts["contracts"] if c["type"] == "layers"]
    named = {
        name.strip() for layer in layered["layers"] for name in layer.replace(":", "|").split("|")
    }
    package = ROOT / "aria_mem"
    modules = {
        ".".join(("aria_mem", *path.relative_to(package).with_suffix("").parts))
        for path in package.rglob("*.py")
        if path.name != "__init__.py"
    } | {
        ".".join(("aria_mem", *path.parent.relative_to(package).parts))
        for path in package.rglob("__init__.py")
        if path.parent != package
    }
    loose = {
        module
        for module in modules - {"aria_mem.__main__"}
        if not any(module == name or module.startswith(name + ".") for name in named)
    }
    assert loose == set(), f"give these a layer in pyproject.toml: {sorted(loose)}"


_FLAG = re.compile(r"(?<![\w-])--[a-z][a-z-]+")
_COMMAND = re.compile(r"`aria-mem [^`]*`|aria-mem [a-z][a-z-]*(?: --[a-z][a-z-]*)*")
"""A whole command to run (`aria-mem tidy --list`) is advice, not a flag of the one that failed."""
_LONE_FLAG = re.compile(r"--[a-z][a-z-]*(=.*)?")
"""A string that is one flag and nothing else is an argument to another program (initdb)."""


def _message_texts(tree: ast.AST) -> list[tuple[int, str]]:
    """The text of every string value in a module, docstrings aside: an f-string's parts
    joined, ``{}`` for what it formats, so a command quoted across its parts is still seen
    whole. Every string and not only those inside a ``raise``: an error's words are often
    made elsewhere, by a helper (``_refuse``) or as a way out handed to ``check_folder``."""
    notes = {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
    }
    texts: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            notes.update(id(part) for part in node.values)
            parts = [p.value if isinstance(p, ast.Constant) else "{}" for p in node.values]
            texts.append((node.lineno, "".join(str(part) for part in parts)))
    texts += [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in notes
    ]
    return texts


def _flags_named(source: str) -> list[tuple[int, str]]:
    return [
        (line, text)
        for line, text in _message_texts(ast.parse(source))
        if _FLAG.search(_COMMAND.sub("", text)) and not _LONE_FLAG.fullmatch(text)
    ]


def test_no_error_raised_outside_the_cli_names_a_cli_flag() -> None:
    """Outside the CLI an error says its way out in plain words and names the argument in
    ``option``; the CLI adds its flag (``cli.app.FLAGS``)."""
    found = [
        f"{path.relative_to(ROOT)}:{line}: {text}"
        for path in sorted((ROOT / "aria_mem").rglob("*.py"))
        if "cli" not in path.relative_to(ROOT / "aria_mem").parts
        for line, text in _flags_named(path.read_text())
    ]
    assert found == []


def test_the_flag_scan_sees_an_error_s_words_made_away_from_the_raise() -> None:
    """The shapes that slipped past a scan of ``raise`` alone (config.py's ``_elsewhere`` and
    transfer.py's ``_refuse`` before 9ae6348), and what it must leave alone."""
    helper = (
        "def _elsewhere(path):\n"
        "    return 'give a config file of your own (--config or $ARIA_MEM_CONFIG)'\n"
        "check_file(path, 'config file', _elsewhere(path))\n"
    )
    refuse = (
        "def _refuse(path, problems):\n"
        "    return ValidationError(f'{path} {problems[0]}; pass '\n"
        "                           '--skip-invalid to import the valid lines only')\n"
    )
    assert [line for line, _ in _flags_named(helper)] == [2]
    assert [line for line, _ in _flags_named(refuse)] == [2]
    advice = (
        '"""Run `aria-mem init --force` or --config."""\n'
        "x = 'run aria-mem tidy --list to see them'\n"
        "subprocess.run(['initdb', '--auth=trust', f'--pgdata={path}'])\n"
    )
    assert _flags_named(advice) == []


def test_the_cli_adds_its_flag_to_an_error_that_names_its_option() -> None:
    from aria_mem.cli.app import with_flag
    from aria_mem.errors import UsageError, ValidationError

    refused = ValidationError(
        "nothing was imported — or import the valid lines only", option="skip_invalid"
    )
    assert with_flag(refused).endswith("the valid lines only (--skip-invalid)")
    assert refused.option == "skip_invalid" and "--" not in str(refused)
    assert with_flag(UsageError("plain")) == "plain"


def test_an_import_refusal_names_skip_invalid_to_the_api_and_the_flag_to_the_cli() -> None:
    """The API user learns the argument's name from the message; the CLI shows its flag in
    its place, once."""
    import io

    from aria_mem.cli.app import with_flag
    from aria_mem.errors import ValidationError
    from aria_mem.services.transfer import read_stream

    for body in (b"not json\n", b"not json\n{}\n"):
        with pytest.raises(ValidationError) as refused:
            read_stream(io.BytesIO(body), "memories.jsonl", skip_invalid=False)
        assert str(refused.value).endswith("import the valid lines only (skip_invalid)")
        shown = with_flag(refused.value)
        assert shown.endswith("import the valid lines only (--skip-invalid)")
        assert "skip_invalid" not in shown


def test_the_facade_shows_no_adapter_and_composes_its_groups() -> None:
    """What a user of the API sees: everyday calls and four groups; the adapters and
    services it is built on stay private, and nothing is inherited: ``AriaMem`` and each
    group hold one context instead."""
    from aria_mem import AriaMem
    from aria_mem.api import Admin, Conversations, Knowledge, Transfer

    public = {name for name in dir(AriaMem) if not name.startswith("_")}
    internals = {"store", "index", "embedder", "chat_model", "reader", "indexer", "writer"}
    assert not public & (internals | {"retriever", "upkeep", "daemon_lock", "context"})
    assert {"admin", "knowledge", "conversations", "transfer"} <= public
    assert len(public) <= 30, sorted(public)
    for part in (AriaMem, Admin, Conversations, Knowledge, Transfer):
        assert part.__mro__ == (part, object), part.__mro__
        assert all(getattr(part, n).__doc__ for n in dir(part) if not n.startswith("_")), part


def test_the_api_names_are_listed_once_and_typed_for_users(tmp_path: Path) -> None:
    """The names type checkers see (the re-exports) are the names the package hands out at
    run time, and a user's script and test checked by mypy against the package see their
    types (``aria_mem.testing`` included): a wrong keyword is an error, a right call is not.
    tests/test_public_api.py holds which names those are."""
    import ast

    import aria_mem.api

    tree = ast.parse((ROOT / "aria_mem" / "api" / "__init__.py").read_text())
    typed = {
        alias.asname
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("aria_mem")
        for alias in node.names
    }
    assert typed == set(aria_mem.api.__all__)
    script = tmp_path / "user_script.py"
    script.write_text(
        "from aria_mem import AriaMem, SearchResult, Settings, WriteResult\n"
        "from aria_mem.testing import in_memory\n"
        "def go(memory: AriaMem) -> None:\n"
        "    kept: WriteResult = memory.remember('x', importance=0.5)\n"
        "    found: SearchResult = memory.search('x')\n"
        "    memory.remember('x', emotion=0.3)\n"
        "def test_go() -> None:\n"
        "    with in_memory(user='sam', retrieval={'min_similarity': 0.3}) as memory:\n"
        "        settings: Settings = memory.settings\n"
        "        go(memory)\n"
    )
    checked = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", str(script)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    errors = [line for line in checked.stdout.splitlines() if ": error:" in line]
    assert len(errors) == 1 and 'keyword argument "emotion"' in errors[0], checked.stdout
