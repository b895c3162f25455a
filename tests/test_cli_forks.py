"""The tests' forked commands (tests/cli_forks.py) behave as ``aria-mem`` started afresh: the
same output, exit code, stdin, environment and umask, and a timeout that kills."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.cli_forks import Forks, needs_fresh
from tests.conftest import ROOT, TERMINAL, CliResult


def _fresh(*args: str, env: dict[str, str], input: str | None = None) -> CliResult:
    done = subprocess.run(
        [sys.executable, "-m", "aria_mem", *args],
        capture_output=True,
        text=True,
        env={**os.environ, **TERMINAL, **env},
        input=input,
        timeout=120,
        cwd=ROOT,
    )
    return CliResult(done.returncode, done.stdout, done.stderr)


def test_a_forked_command_says_what_a_fresh_one_says(
    cli: Callable[..., CliResult], _cli_forks: Forks
) -> None:
    """Output, exit code, stdin and the environment: a bad line read from stdin, a bad setting
    from an environment variable, an argument of 100,000 characters."""
    assert not needs_fresh({**os.environ, **TERMINAL}, _cli_forks.env)  # these are forked
    bad = {"ARIA_MEM_EMBEDDER_PROVIDER": "nonsense"}
    for args, env, text in (
        (("--help",), {}, None),
        (("remember", "x" * 100_000), bad, None),
        (("import", "-"), {}, '{"text": "The user swims."}\nnot json\n'),
        (("remember", "The user swims."), bad, None),
    ):
        forked, fresh = cli(*args, env=env, input=text), _fresh(*args, env=env, input=text)
        said = (forked.code, forked.stdout, forked.stderr)
        assert said == (fresh.code, fresh.stdout, fresh.stderr), args
    assert "line 2: not valid JSON" in cli("import", "-", input="{}\nnot json\n").stderr
    assert "got 'nonsense'" in cli("list", env=bad).stderr


def test_a_command_that_outlives_its_timeout_is_killed(_cli_forks: Forks, tmp_path: Path) -> None:
    with pytest.raises(subprocess.TimeoutExpired):
        _cli_forks.run(["--help"], dict(os.environ), tmp_path, None, 0.001)


def test_settings_read_at_import_start_a_fresh_process() -> None:
    server = {"PATH": "/bin", "COLUMNS": "200"}
    assert not needs_fresh({"PATH": "/usr/bin", "COLUMNS": "200", "ARIA_MEM_HOME": "/h"}, server)
    assert needs_fresh({"PATH": "/bin", "COLUMNS": "80"}, server)
    assert needs_fresh({"PATH": "/bin", "COLUMNS": "200", "PYTHONPROFILEIMPORTTIME": "1"}, server)
