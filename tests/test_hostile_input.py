"""No input may break the store: every bad input named in issue 8 gets one clear line, exit 2
(a usage error) and no change to stored data; never a traceback. Plus the faults that must not
lose or mislead: a poison row already stored, PostgreSQL connection problems, terminal escape
sequences in memory text, a hung embedder, concurrent first use, concurrent imports."""

from __future__ import annotations

import io
import ipaddress
import json
import os
import socket
import subprocess
import sys
import threading
import uuid
from collections.abc import Callable, Iterator, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import psycopg
import pytest

from aria_mem.adapters.postgres import embedded
from aria_mem.errors import ServiceError
from tests.conftest import ROOT, CliResult, closed_port
from tests.fakes.ollama_server import FakeOllama

Cli = Callable[..., CliResult]


def _count(dsn: str) -> int:
    with psycopg.connect(dsn) as conn:
        row = conn.execute("SELECT count(*) FROM memories").fetchone()
    assert row is not None
    return int(row[0])


def _raw_cli(args: Sequence[str | bytes], env: dict[str, str]) -> CliResult:
    """The CLI with arguments given as bytes where a test needs bytes that are not UTF-8."""
    done = subprocess.run(
        [sys.executable, "-m", "aria_mem", *args],
        capture_output=True,
        env={**os.environ, "COLUMNS": "200", "NO_COLOR": "1", **env},
        timeout=120,
        cwd=ROOT,
    )
    return CliResult(
        done.returncode,
        done.stdout.decode(errors="replace"),
        done.stderr.decode(errors="replace"),
    )


def _assert_refused(result: CliResult, message: str) -> None:
    assert result.code == 2, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    assert message in " ".join(result.stderr.split()), result.stderr


# -- arguments ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["remember", b"caf\xe9 au lait"], "argument 2 (b'caf\\xe9 au lait') is not valid UTF-8"),
        (["remember", "fact", "--user", b"\xff\xfe"], "is not valid UTF-8"),
        (["remember", "fact", "--expires", "99999999999d"], "too far ahead"),
        (["remember", "fact", "--expires", "99999999w"], "too far ahead"),
        (["remember", "fact", "--expires", "0d"], "already past"),
        (["remember", "fact", "--expires", "1999-01-01"], "already past"),
        (["remember", "fact", "--reason", "r" * 120_000], "reason is 120000 characters"),
        (["remember", "fact", "--user", "al\u202eice"], "control or invisible characters"),
        (["remember", "fact", "--user", "al\x1bice"], "control or invisible characters"),
        (["remember", "fact", "--companion", "ar\u2066ia"], "control or invisible characters"),
        (["search", "hello", "--user", "me\u200f"], "control or invisible characters"),
    ],
    ids=[
        "invalid-utf8-text",
        "invalid-utf8-user",
        "expires-days-overflow",
        "expires-weeks-overflow",
        "expires-0d",
        "expires-in-the-past",
        "reason-120KB",
        "bidi-override-in-user",
        "escape-in-user",
        "bidi-isolate-in-companion",
        "rtl-mark-in-search-user",
    ],
)
def test_bad_arguments_are_refused_and_nothing_is_stored(
    env: dict[str, str], embedded_dsn: str, args: list[str | bytes], message: str
) -> None:
    _assert_refused(_raw_cli(args, env), message)
    assert _count(embedded_dsn) == 0


def test_edit_refuses_a_past_expiry_and_an_oversized_reason(
    cli: Cli, env: dict[str, str], embedded_dsn: str
) -> None:
    made = json.loads(cli("remember", "The user swims.", "--json", env=env).stdout)
    mid = made["memory"]["id"]
    _assert_refused(cli("edit", mid, "--expires", "0d", env=env), "already past")
    _assert_refused(cli("edit", mid, "--reason", "r" * 5000, env=env), "reason is 5000")
    shown = json.loads(cli("show", mid, "--json", env=env).stdout)
    assert shown["expires_at"] is None and shown["reason"] == ""


def test_markup_in_an_id_is_printed_as_it_is(cli: Cli, env: dict[str, str]) -> None:
    shown = cli("stage", "--user", "[/]", env=env)
    assert shown.code == 0, shown.stderr
    assert "[/] / aria: early" in shown.stdout


def test_a_short_prefix_with_markup_is_a_clear_error(cli: Cli, env: dict[str, str]) -> None:
    result = cli("show", "[bold]x", env=env)
    assert result.code == 1 and "Traceback" not in result.stderr
    assert "'[bold]x' is not a memory id" in result.stderr


# -- configuration -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "variables", "message"),
    [
        ("[embedder]\ntimeout = 1e309\n", {}, "[embedder] timeout (from"),
        ("[retrieval]\ntimeout = inf\n", {}, "must be a finite number"),
        ("[embedder]\nbatch_size = 1.5\n", {}, "must be a whole number, got 1.5"),
        ("[embedder]\nbatch_size = 100000000000000000000\n", {}, "between 1 and 4096"),
        ("", {"ARIA_MEM_EMBEDDER_BATCH_SIZE": "1e20"}, "must be a whole number, got '1e20'"),
        ("[chat]\ncontext_window = 1e23\n", {}, "must be a whole number"),
        ("[chat]\ncontext_window = 100000000000000000000000\n", {}, "between 256 and"),
        ("", {"ARIA_MEM_EMBEDER_MODEL": "x"}, "Unknown environment variable"),
    ],
    ids=[
        "timeout-1e309",
        "timeout-inf",
        "batch-1.5",
        "batch-1e20-int",
        "batch-1e20-env",
        "context-window-1e23-float",
        "context-window-1e23-int",
        "unknown-variable",
    ],
)
def test_bad_settings_are_refused_by_name(
    cli: Cli,
    isolated_env: Path,
    body: str,
    variables: dict[str, str],
    message: str,
) -> None:
    isolated_env.mkdir(parents=True, exist_ok=True)
    (isolated_env / "config.toml").write_text(body)
    _assert_refused(cli("status", env=variables), message)


def test_a_home_that_cannot_exist_is_a_clear_error(cli: Cli) -> None:
    result = cli("remember", "fact", env={"ARIA_MEM_HOME": "/dev/null/aria"})
    _assert_refused(result, "Cannot create the")
    assert "ARIA_MEM_HOME" in result.stderr


# -- import --------------------------------------------------------------------------------


def _line(**changes: Any) -> str:
    record: dict[str, Any] = {
        "id": str(uuid.uuid4()),
        "user_id": "me",
        "companion_id": "aria",
        "type": "Goal",
        "text": "The user wants to run a marathon.",
        "created_at": "2026-01-01T00:00:00+00:00",
    }
    record.update(changes)
    return json.dumps(record)


GOOD = _line(text="The user keeps bees.")
TWIN = str(uuid.uuid4())

BAD_LINES = {
    "poison-expiry": (_line(expires_at="0001-01-01T00:00:00+14:00"), "outside what can be stored"),
    "poison-created": (_line(created_at="9999-12-31T23:59:59-12:00"), "outside what can be stored"),
    "nul-in-text": (_line(text="bees\u0000honey"), "NUL"),
    "nul-in-user": (_line(user_id="m\u0000e"), "NUL"),
    "nul-in-companion": (_line(companion_id="ar\u0000ia"), "NUL"),
    "nul-in-reason": (_line(reason="because\u0000"), "NUL"),
    "lone-surrogate": (_line(text="bees \ud800"), "not valid UTF-8"),
    "bidi-in-user": (_line(user_id="me\u202e"), "control or invisible"),
    "use-count-1e30": (_line(use_count=1e30), "use_count must be a whole number"),
    "use-count-10**30": (_line(use_count=10**30), "use_count must be a whole number from 0"),
    "reason-10MB": (_line(reason="r" * 10_000_000), "longer than 1,024 KB"),
    "json-100000-deep": ("[" * 100_000, "nested too deeply"),
    "json-2MB": ("[" * 2_000_000, "longer than 1,024 KB"),
    "json-20000-deep": ("[" * 20_000 + "]" * 20_000, "nested too deeply"),
    "duplicate-id": (
        _line(id=TWIN, text="one") + "\n" + _line(id=TWIN, text="two"),
        "is already on line",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD_LINES))
def test_a_bad_import_line_is_named_stores_nothing_and_can_be_skipped(
    env: dict[str, str], embedded_dsn: str, tmp_path: Path, case: str, isolated_env: Path
) -> None:
    """Each bad line through the API the CLI calls (the CLI's own handling of a bad file, its
    exit code and message, is the test after this one)."""
    from aria_mem import AriaMem, ValidationError
    from aria_mem.config import load

    line, message = BAD_LINES[case]
    path = tmp_path / "in.jsonl"
    path.write_text(GOOD + "\n" + line + "\n", encoding="utf-8", errors="surrogatepass")
    with AriaMem(load(environ={**os.environ, **env})) as memory:
        with pytest.raises(ValidationError) as refused:
            memory.transfer.import_file(path)
        told = " ".join(str(refused.value).split())
        assert message in told and ("line 2" in told or "line 3" in told)
        assert _count(embedded_dsn) == 0

        skipped = memory.transfer.import_file(path, skip_invalid=True)
        assert skipped.problems and message in " ".join(skipped.problems)
        assert "The user keeps bees." in {m.text for m in memory.list()}
        assert _count(embedded_dsn) == (2 if case == "duplicate-id" else 1)
        # The store is still whole: every call can read it.
        memory.transfer.export(io.StringIO())
        assert memory.admin.status().ok


def test_a_file_of_bad_lines_is_refused_by_the_cli_line_by_line(
    cli: Cli, env: dict[str, str], embedded_dsn: str, tmp_path: Path
) -> None:
    cases = ("nul-in-text", "bidi-in-user", "json-20000-deep", "use-count-1e30")
    path = tmp_path / "in.jsonl"
    lines = [GOOD, *(BAD_LINES[case][0] for case in cases)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8", errors="surrogatepass")
    refused = cli("import", str(path), env=env)
    assert refused.code == 2 and "Traceback" not in refused.stderr
    for number, case in enumerate(cases, start=2):
        assert f"line {number}" in refused.stderr and BAD_LINES[case][1] in " ".join(
            refused.stderr.split()
        )
    assert _count(embedded_dsn) == 0
    skipped = cli("import", str(path), "--skip-invalid", "--json", env=env)
    assert skipped.code == 0, skipped.stderr
    assert len(json.loads(skipped.stdout)["invalid_lines"]) == len(cases)
    texts = {m["text"] for m in json.loads(cli("list", "--json", env=env).stdout)}
    assert texts == {"The user keeps bees."}
    assert cli("export", env=env).code == 0 and cli("status", env=env).code == 0


def test_import_refuses_a_file_that_is_not_a_regular_file(cli: Cli, env: dict[str, str]) -> None:
    _assert_refused(cli("import", "/dev/zero", env=env), "is not a regular file")


def test_two_imports_of_the_same_facts_at_once_both_succeed(
    env: dict[str, str], embedded_dsn: str, tmp_path: Path
) -> None:
    facts = [f"The user has visited city number {i}." for i in range(400)]
    paths = []
    for name in ("a", "b"):  # the same facts under different ids
        path = tmp_path / f"{name}.jsonl"
        path.write_text("\n".join(_line(text=text) for text in facts) + "\n")
        paths.append(path)
    runs = [
        subprocess.Popen(
            [sys.executable, "-m", "aria_mem", "import", str(p), "--no-index", "--json"],
            cwd=ROOT,
            env={**os.environ, **env},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for p in paths
    ]
    outputs = [run.communicate(timeout=120) for run in runs]
    assert [run.returncode for run in runs] == [0, 0], outputs
    assert _count(embedded_dsn) == 400
    merged = sum(json.loads(out)["merged_duplicates"] for out, _ in outputs)
    assert merged == 400


def test_a_line_only_postgresql_refuses_is_skipped_with_skip_invalid(
    env: dict[str, str], embedded_dsn: str, cli: Cli, tmp_path: Path
) -> None:
    """Whatever layer finds the fault: a trigger stands in for any check only PostgreSQL
    makes. Without --skip-invalid nothing is stored; with it, only the refused line is left
    out (the batch is split until it stands alone)."""
    with psycopg.connect(embedded_dsn, autocommit=True) as conn:
        conn.execute(
            "CREATE FUNCTION refuse_marked() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
            " IF NEW.text LIKE '%REFUSE%' THEN RAISE check_violation USING MESSAGE ="
            " 'the database refuses this line'; END IF; RETURN NEW; END $$"
        )
        conn.execute(
            "CREATE TRIGGER refuse_marked BEFORE INSERT OR UPDATE ON memories"
            " FOR EACH ROW EXECUTE FUNCTION refuse_marked()"
        )
    lines = [_line(text=f"The user likes song {i}.") for i in range(20)]
    lines[13] = _line(text="REFUSE me")
    path = tmp_path / "in.jsonl"
    path.write_text("\n".join(lines) + "\n")
    refused = cli("import", str(path), env=env)
    _assert_refused(refused, "the database refuses this line")
    assert _count(embedded_dsn) == 0
    skipped = cli("import", str(path), "--skip-invalid", "--json", env=env)
    assert skipped.code == 0, skipped.stderr
    summary = json.loads(skipped.stdout)
    assert summary["inserted"] == 19
    assert summary["invalid_lines"] == [
        "line 14: PostgreSQL refused the data: the database refuses this line"
    ]
    assert _count(embedded_dsn) == 19


# -- learn ---------------------------------------------------------------------------------


@pytest.fixture
def site() -> Iterator[str]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            return

        def do_GET(self) -> None:
            if self.path == "/binary":
                body = b"text\x00with a NUL"
            elif self.path == "/huge":
                self.send_response(200)
                self.send_header("Content-Type", "text/plain")
                self.end_headers()
                try:
                    for _ in range(700):
                        self.wfile.write(b"x" * 10_000)
                except OSError:
                    pass
                return
            elif self.path == "/drip":
                self.send_response(200)
                self.send_header("Content-Type", "text/plain")
                self.end_headers()
                try:
                    for _ in range(600):
                        self.wfile.write(b"x")
                        self.wfile.flush()
                        threading.Event().wait(0.5)
                except OSError:
                    pass
                return
            elif self.path == "/hop":
                self.send_response(302)
                self.send_header("Location", "/page")
                self.end_headers()
                return
            elif self.path == "/away":
                self.send_response(302)
                self.send_header("Location", "ftp://127.0.0.1/file.txt")
                self.end_headers()
                return
            else:
                body = b"A page about bees and honey."
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    class Server(ThreadingHTTPServer):
        daemon_threads = True
        block_on_close = False

    server = Server(("127.0.0.1", 0), Handler)
    threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    ).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_learn_refuses_nul_other_schemes_and_huge_pages(
    cli: Cli, env: dict[str, str], tmp_path: Path, site: str
) -> None:
    binary = tmp_path / "notes.txt"
    binary.write_bytes(b"bees\x00honey")
    _assert_refused(cli("learn", str(binary), env=env), "contains NUL bytes")
    _assert_refused(cli("learn", f"{site}/binary", env=env), "contains NUL bytes")
    _assert_refused(cli("learn", "ftp://example.org/notes.txt", env=env), "Only http:// and")
    _assert_refused(cli("learn", f"{site}/huge", env=env), "larger than 5 MB")
    _assert_refused(cli("learn", f"{site}/away", env=env), "does not follow")
    hopped = cli("learn", f"{site}/hop", "--json", env=env)
    assert hopped.code == 0, hopped.stderr
    assert json.loads(hopped.stdout)["source"] == f"{site}/page"


def test_learn_gives_up_on_a_page_that_drips_at_its_deadline(site: str) -> None:
    from aria_mem.adapters import documents

    with pytest.raises(ServiceError, match="gave up"):
        documents.read(f"{site}/drip", deadline=1.5)


def test_the_redirect_policy_keeps_public_pages_away_from_local_addresses() -> None:
    from aria_mem.adapters.documents import read, redirect_allowed
    from aria_mem.domain.addresses import why_not_public

    for local in ("127.0.0.1", "10.1.2.3", "169.254.169.254", "::1"):
        assert why_not_public(ipaddress.ip_address(local)) is not None, local
    assert why_not_public(ipaddress.ip_address("93.184.216.34")) is None
    with pytest.raises(ServiceError, match="Could not find the host nowhere.invalid"):
        read("http://nowhere.invalid/page", public_only=True)  # a name that resolves to nothing
    assert redirect_allowed(origin_public=True, target_public=True, target_scheme="https")
    assert not redirect_allowed(origin_public=True, target_public=False, target_scheme="http")
    assert redirect_allowed(origin_public=False, target_public=False, target_scheme="http")
    assert not redirect_allowed(origin_public=False, target_public=False, target_scheme="file")


# -- faults that must not lose or mislead -----------------------------------------------------


def test_a_poison_row_already_stored_is_reported_and_can_be_forgotten(
    cli: Cli, env: dict[str, str], embedded_dsn: str
) -> None:
    cli("remember", "The user keeps bees.", env=env)
    poison = uuid.uuid4()
    with psycopg.connect(embedded_dsn, autocommit=True) as conn:
        conn.execute(
            "INSERT INTO memories (id, user_id, companion_id, type, text, normalized_text,"
            " importance, emotional_significance, confidence, expires_at)"
            " VALUES (%s, 'me', 'aria', 'Goal', 'old row', 'old row', 0.5, 0, 0.8,"
            " '0001-01-01T00:00:00+14:00')",
            (poison,),
        )
    for args in (["list"], ["show", str(poison)], ["export"], ["sync"], ["reindex"]):
        done = cli(*args, env=env)
        assert done.code == 0 and "Traceback" not in done.stderr, (args, done.stderr)
    status = cli("status", "--json", env=env)
    assert status.code == 1
    data = json.loads(status.stdout)["checks"]["data"]
    assert data["ok"] is False and data["unreadable"] == 1
    assert cli("forget", str(poison), "--yes", env=env).code == 0
    assert cli("status", env=env).code == 0


def _listening_but_silent() -> tuple[socket.socket, int]:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    return server, int(server.getsockname()[1])


@pytest.mark.slow
def test_postgresql_connection_problems_say_what_they_are(
    cli: Cli, fake_ollama: FakeOllama
) -> None:
    silent, silent_port = _listening_but_silent()
    try:
        cases = {
            "postgresql://postgres@127.0.0.1:5432/no_such_db_aria": "has no database",
            f"postgresql://postgres@127.0.0.1:{closed_port()}/postgres": "connection refused",
            "postgresql://postgres@127.0.0.1:5432/postgres?sslmode=bogus": "invalid sslmode",
            f"postgresql://postgres@127.0.0.1:{silent_port}/postgres": "timed out after 1s",
        }
        for dsn, message in cases.items():
            done = cli(
                "list",
                env={
                    "ARIA_MEM_POSTGRES_DSN": dsn,
                    "ARIA_MEM_POSTGRES_CONNECT_TIMEOUT": "1",
                    "ARIA_MEM_EMBEDDER_HOST": fake_ollama.url,
                },
            )
            assert done.code == 1 and "Traceback" not in done.stderr, done.stderr
            assert message in done.stderr, (dsn, done.stderr)
    finally:
        silent.close()
    _assert_refused(
        cli("list", env={"ARIA_MEM_POSTGRES_DSN": "not a dsn"}), "not a valid connection string"
    )


HOSTILE = "Note \x1b[2J\x1b]0;pwned\x07 and \u202eevil\u202c done"


def test_terminal_output_never_carries_raw_escape_sequences(cli: Cli, env: dict[str, str]) -> None:
    made = cli("remember", HOSTILE, "--json", env=env)
    assert made.code == 0, made.stderr
    mid = json.loads(made.stdout)["memory"]["id"]
    for args in (["list"], ["show", mid], ["search", "Note pwned evil", "--explain"]):
        out = cli(*args, env={**env, "ARIA_MEM_RETRIEVAL_MIN_SIMILARITY": "0"})
        assert out.code == 0, out.stderr
        for raw in ("\x1b", "\x07", "\u202e", "\u202c"):
            assert raw not in out.stdout and raw not in out.stderr, (args, raw)
        assert "\\x1b" in out.stdout, args  # shown, as a visible escape


def test_a_hung_embedder_cannot_hold_search_past_its_timeout(
    cli: Cli, env: dict[str, str], fake_ollama: FakeOllama
) -> None:
    cli("remember", "The user keeps bees.", env=env)
    fake_ollama.state.embed_delay = 120
    # Without the fix this took the 30 s warm-up and then waited for the abandoned call at
    # exit; the subprocess timeout (well above the 2 s promise) only catches a hang.
    done = cli("search", "bees", "--json", env=env, timeout=60)
    fake_ollama.state.embed_delay = 0
    assert done.code == 0, done.stderr
    assert any("took longer than 2s" in r for r in json.loads(done.stdout)["degraded"])


@pytest.mark.slow
def test_first_use_by_eight_processes_at_once_loses_nothing(
    isolated_env: Path, fake_ollama: FakeOllama
) -> None:
    """A home whose embedded PostgreSQL was never started: its start is serialised."""
    env = {**os.environ, "ARIA_MEM_EMBEDDER_HOST": fake_ollama.url}
    script = (
        "import subprocess, sys\n"
        "runs = [subprocess.run([sys.executable, '-m', 'aria_mem', 'remember',\n"
        "        f'Writer {sys.argv[1]} fact {i}.'], capture_output=True, text=True)\n"
        "        for i in range(5)]\n"
        "print([r.returncode for r in runs])\n"
        "for r in runs:\n"
        "    if r.returncode:\n"
        "        print(r.stderr[-1000:], file=sys.stderr)\n"
    )
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", script, str(n)],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in range(8)
    ]
    pgdata = isolated_env / "data" / "postgres"
    try:
        done = [w.communicate(timeout=300) for w in writers]
        outputs = [out for out, _ in done]
        failures = [errors for _, errors in done if errors]
        assert all(out.strip() == "[0, 0, 0, 0, 0]" for out in outputs), (outputs, failures)
        dsn = embedded.ensure_running(pgdata)
        assert _count(dsn) == 40
        with psycopg.connect(dsn) as conn:
            pending = conn.execute(
                "SELECT count(*) FROM memories WHERE index_state = 'pending'"
            ).fetchone()
        assert pending == (0,)  # the index hand-over between processes lost no write
    finally:
        embedded.stop(pgdata)
