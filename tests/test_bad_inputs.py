"""Bad input found from outside, round two: each gets exit 2 and one line naming the problem
and the fix, never a traceback; nothing stored changes (the export before and after is the
same); and each ends on its own (a child given a timeout: a hang fails the test, and no speed
is asserted). Plus: commands that take a memory id act on the configured user and companion
only, and another user's memory answers exactly as one that does not exist."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import ROOT, CliResult, closed_port

Cli = Callable[..., CliResult]
MINE = "The user keeps bees."
BOBS = "Bob's bank PIN is 4921."


def _one_error_line(result: CliResult, case: str) -> str:
    assert "Traceback" not in result.stderr, (case, result.stderr)
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, (case, result.stderr)
    return lines[0]


def _export(cli: Cli, env: dict[str, str]) -> list[dict[str, object]]:
    done = cli("export", "--everything", env=env)
    assert done.code == 0, done.stderr
    return sorted(
        (json.loads(line) for line in done.stdout.splitlines()), key=lambda r: json.dumps(r)
    )


def _seed(cli: Cli, env: dict[str, str]) -> tuple[str, str]:
    mine = cli("remember", MINE, "--json", env=env)
    bobs = cli("remember", BOBS, "--user", "bob", "--json", env=env)
    assert mine.code == 0 and bobs.code == 0, (mine.stderr, bobs.stderr)
    return json.loads(mine.stdout)["memory"]["id"], json.loads(bobs.stdout)["memory"]["id"]


@pytest.mark.slow
def test_each_bad_input_is_one_line_exit_2_and_changes_nothing(
    cli: Cli, env: dict[str, str], tmp_path: Path
) -> None:
    mine, _bobs = _seed(cli, env)
    bad_host = tmp_path / "bad-host.toml"
    bad_host.write_text('[embedder]\nhost = "not a url"\n')
    far_line = tmp_path / "far.jsonl"
    record = json.loads(cli("list", "--json", env=env).stdout)[0]
    far = {**record, "id": "5b0e7d3a-8b6f-4c1e-9a57-2f0c1d9e8a11", "text": "Far ahead."}
    far_line.write_text(json.dumps({**far, "expires_at": "9999-12-31T00:00:00+00:00"}) + "\n")
    early_line = tmp_path / "early.jsonl"
    early_line.write_text(json.dumps({**far, "created_at": "0001-01-01T00:00:00+00:00"}) + "\n")
    without_host = {k: v for k, v in env.items() if k != "ARIA_MEM_EMBEDDER_HOST"}
    cases: dict[str, tuple[list[str], dict[str, str] | None, str]] = {
        "limit-1e22": (
            ["list", "--limit", "10000000000000000000000"],
            {},
            "limit must be a whole number from 1 to 2147483647",
        ),
        "limit-0": (["list", "--limit", "0"], {}, "limit must be a whole number from 1"),
        "learn-bad-ipv6": (["learn", "http://[::1"], {}, "is not a valid address"),
        "learn-bad-port": (["learn", "http://example.org:port/"], {}, "is not a valid address"),
        "learn-no-host": (["learn", "https:///x"], {}, "names no host"),
        "config-dev-zero": (["--config", "/dev/zero", "list"], {}, "is not a regular file"),
        "config-bad-host": (["--config", str(bad_host), "list"], None, "[embedder] host"),
        "env-bad-host": (["list"], {"ARIA_MEM_EMBEDDER_HOST": "not a url"}, "[embedder] host"),
        "env-bad-chat-host": (["list"], {"ARIA_MEM_CHAT_HOST": "http://[::1"}, "[chat] host"),
        "expires-9999-12-31": (
            ["remember", "A fact.", "--expires", "9999-12-31"],
            {},
            "from 0001-01-02 to 9999-12-30 (UTC)",
        ),
        "import-9999-12-31": (["import", str(far_line)], {}, "from 0001-01-02 to 9999-12-30"),
        "import-0001-01-01": (["import", str(early_line)], {}, "from 0001-01-02 to 9999-12-30"),
        "edit-expires-and-no-expiry": (
            ["edit", mine[:8], "--expires", "30d", "--no-expiry"],
            {},
            "not both",
        ),
    }
    before = _export(cli, env)
    for case, (args, extra, message) in cases.items():
        result = cli(*args, env=without_host if extra is None else {**env, **extra}, timeout=60)
        assert result.code == 2, (case, result.stdout, result.stderr)
        text = " ".join(result.stderr.split())
        assert message in text, (case, result.stderr)
        _one_error_line(result, case)
        assert _export(cli, env) == before, case


ENDLESS = {
    "zeros": (["cat", "/dev/zero"], False, "longer than 1,024 KB"),
    "zeros-skip-invalid": (["cat", "/dev/zero"], True, "without a line end"),
    "blank-lines": (["yes", ""], False, "more than 5,000,000 lines"),
    "garbage-skip-invalid": (["yes", "x"], True, "100,000 invalid ones"),
}


@pytest.mark.parametrize("case", sorted(ENDLESS))
def test_import_from_an_endless_stdin_ends_and_imports_nothing(
    env: dict[str, str], embedded_dsn: str, case: str
) -> None:
    source, skip_invalid, expected = ENDLESS[case]
    args = [sys.executable, "-m", "aria_mem", "import", "-"]
    feeder = subprocess.Popen(source, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        done = subprocess.run(
            [*args, *(["--skip-invalid"] if skip_invalid else [])],
            stdin=feeder.stdout,
            capture_output=True,
            text=True,
            timeout=180,
            env={**os.environ, "NO_COLOR": "1", "COLUMNS": "200", **env},
            cwd=ROOT,
        )
    finally:
        feeder.kill()
        feeder.wait()
    assert done.returncode == 2, done.stderr
    assert _one_error_line(CliResult(2, "", done.stderr), case).startswith("error:")
    assert expected in done.stderr
    assert "nothing was imported" in done.stderr


@pytest.mark.slow
def test_commands_by_id_act_on_the_configured_user_only(cli: Cli, env: dict[str, str]) -> None:
    mine, bobs = _seed(cli, env)
    unknown_prefix = next(p for p in ("0000", "ffff", "aaaa") if not bobs.startswith(p))
    commands = (
        ["show"],
        ["edit", "--text", "Bob's PIN is 0000."],
        ["pin"],
        ["archive"],
        ["confirm"],
        ["forget", "--yes"],
    )
    before = _export(cli, env)
    for command in commands:
        name, *rest = command
        stolen = cli(name, bobs[:8], *rest, env=env)
        nothing = cli(name, unknown_prefix, *rest, env=env)
        assert stolen.code == nothing.code == 1, (command, stolen.stderr)
        assert stolen.stderr.replace(bobs[:8], "X") == nothing.stderr.replace(
            unknown_prefix, "X"
        ), command
        whole = cli(name, bobs, *rest, env=env)
        assert whole.code == 1 and "No memory with id" in whole.stderr, (command, whole.stderr)
        assert BOBS not in stolen.stdout + whole.stdout
    assert _export(cli, env) == before

    as_owner = cli("edit", bobs[:8], "--importance", "0.9", "--user", "bob", env=env)
    assert as_owner.code == 0, as_owner.stderr
    shown = json.loads(cli("show", bobs[:8], "--user", "bob", "--json", env=env).stdout)
    assert shown["importance"] == 0.9
    assert cli("pin", mine[:8], env=env).code == 0


def test_a_type_given_in_any_case_is_shown_by_its_name(cli: Cli, env: dict[str, str]) -> None:
    done = cli("remember", "The user is allergic to peanuts.", "--type", "profilefact", env=env)
    assert done.code == 0, done.stderr
    assert "(ProfileFact)" in done.stdout
    listed = json.loads(cli("list", "--json", env=env).stdout)
    assert [m["type"] for m in listed] == ["ProfileFact"]


def test_postgres_retries_are_not_printed_ahead_of_the_error(cli: Cli) -> None:
    dsn = f"postgresql://nobody@127.0.0.1:{closed_port()}/nothing?connect_timeout=2"
    done = cli("list", env={"ARIA_MEM_POSTGRES_DSN": dsn}, timeout=120)
    assert done.code == 1
    line = _one_error_line(done, "closed port")
    assert line.startswith("error:") and "connection refused" in line
    assert "psycopg.pool" not in done.stderr


def test_a_page_trafilatura_gives_up_on_goes_through_its_fallback(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A short page makes trafilatura try justext, which needs lxml.html.clean (a separate
    package since lxml 6): without it the fallback crashes instead of reading the page."""
    from aria_mem.adapters.page_text import main_text

    caplog.set_level(logging.DEBUG, logger="trafilatura.external")
    html = (
        "<html><head><title>Bees</title></head><body><div><p>Bees make honey from nectar "
        "they gather.</p></div></body></html>"
    )
    title, text = main_text(html)
    assert "justext" in caplog.text
    assert title == "Bees" and "honey" in text
