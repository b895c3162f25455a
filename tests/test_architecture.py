"""The layers hold: import-linter's contracts pass, a deliberate violation makes them fail,
and no module grows past the size a maintainer can read in one sitting."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

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
    run time, and a user's script checked by mypy against the package sees their types: a
    wrong keyword is an error, a right call is not."""
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
        "from aria_mem import AriaMem, SearchResult, WriteResult\n"
        "def go(memory: AriaMem) -> None:\n"
        "    kept: WriteResult = memory.remember('x', importance=0.5)\n"
        "    found: SearchResult = memory.search('x')\n"
        "    memory.remember('x', emotion=0.3)\n"
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
