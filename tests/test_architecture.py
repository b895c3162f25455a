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
            "The CLI, the daemon and the MCP server",
        ),
        ("services/writer.py", "from aria_mem.adapters import documents", "Services use ports"),
        ("domain/query.py", "import httpx", "The domain does no I/O"),
        ("ports.py", "from aria_mem.services import writer", "Layers"),
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
    """What a user of the API sees: everyday calls and three groups; the adapters and
    services it is built on stay private, and the groups are parts, not base classes."""
    from aria_mem import AriaMem
    from aria_mem.api import Admin, Conversations, Knowledge

    public = {name for name in dir(AriaMem) if not name.startswith("_")}
    internals = {"store", "index", "embedder", "chat_model", "reader", "indexer", "writer"}
    assert not public & (internals | {"retriever", "upkeep", "daemon_lock"})
    assert {"admin", "knowledge", "conversations"} <= public
    assert len(public) <= 30, sorted(public)
    for group in (Admin, Conversations, Knowledge):
        assert group not in AriaMem.__mro__
        assert all(getattr(group, n).__doc__ for n in dir(group) if not n.startswith("_"))
