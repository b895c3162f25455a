"""An import of more memories than one indexing batch while the embedding model fails: the
summary counts every memory left pending (as PostgreSQL does), not the one batch the indexer
tried before it gave up; `sync` indexes them all once the model is back."""

from __future__ import annotations

import json
import socket
import uuid
from collections.abc import Callable
from pathlib import Path

import psycopg

from aria_mem.services.indexer import DEFAULT_BATCH
from tests.conftest import CliResult
from tests.fakes.ollama_server import FakeOllama

Cli = Callable[..., CliResult]

MEMORIES = 1_200
"""Between four and five indexing batches."""


def _write_memories(path: Path, count: int, start: int = 0) -> Path:
    with path.open("w") as out:
        for n in range(start, start + count):
            record = {
                "id": str(uuid.uuid5(uuid.NAMESPACE_URL, f"aria-mem-test/{n}")),
                "user_id": "sam",
                "companion_id": "aria",
                "type": "EpisodicEvent",
                "text": f"The user went on walk number {n} along the river.",
                "created_at": "2026-01-01T00:00:00+00:00",
            }
            out.write(json.dumps(record) + "\n")
    return path


def _pending(dsn: str) -> tuple[int, int]:
    """(pending memories, pending memories the indexer has tried), from PostgreSQL."""
    with psycopg.connect(dsn) as conn:
        row = conn.execute(
            "SELECT count(*), count(*) FILTER (WHERE index_attempts > 0) FROM memories"
            " WHERE index_state = 'pending'"
        ).fetchone()
    assert row is not None
    return int(row[0]), int(row[1])


def _closed_port() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}"


def test_import_with_a_failing_model_reports_every_pending_memory_and_sync_indexes_them(
    cli: Cli, env: dict[str, str], embedded_dsn: str, fake_ollama: FakeOllama, tmp_path: Path
) -> None:
    assert MEMORIES > 4 * DEFAULT_BATCH
    source = _write_memories(tmp_path / "walks.jsonl", MEMORIES)
    fake_ollama.state.fail_embed_with = 500

    done = cli("import", str(source), env=env)
    assert done.code == 0, done.stderr
    said = " ".join(done.stdout.split())
    assert f"Imported {MEMORIES:,} memories: {MEMORIES:,} new" in said
    pending, tried = _pending(embedded_dsn)
    assert pending == MEMORIES
    assert f"{pending:,} not indexed yet (Ollama at {fake_ollama.url} failed to embed" in said
    assert "`aria-mem sync` or the daemon indexes them" in said
    assert tried == DEFAULT_BATCH  # one batch failed, and the indexer did not try the others

    nobody = _closed_port()
    again = cli("import", str(source), "--json", env={**env, "ARIA_MEM_EMBEDDER_HOST": nobody})
    assert again.code == 0, again.stderr
    summary = json.loads(again.stdout)
    assert summary["unchanged"] == MEMORIES and summary["indexed"] == 0
    assert summary["pending"] == _pending(embedded_dsn)[0] == MEMORIES
    assert summary["index_failed"] == DEFAULT_BATCH
    assert f"No embedding model answered at {nobody}" in summary["index_errors"][0]

    fake_ollama.state.fail_embed_with = None
    synced = cli("sync", "--json", env=env)
    assert synced.code == 0, synced.stderr
    report = json.loads(synced.stdout)
    assert report["indexed"] == MEMORIES and report["failed"] == 0
    assert _pending(embedded_dsn) == (0, 0)
    status = json.loads(cli("status", "--json", env=env).stdout)
    assert status["checks"]["index"]["collections"]["memories"]["points"] == MEMORIES


def test_import_with_the_model_answering_indexes_every_batch(
    cli: Cli, env: dict[str, str], embedded_dsn: str, tmp_path: Path
) -> None:
    source = _write_memories(tmp_path / "walks.jsonl", 3 * DEFAULT_BATCH + 7)
    done = cli("import", str(source), "--json", env=env)
    assert done.code == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["indexed"] == 3 * DEFAULT_BATCH + 7
    assert summary["index_failed"] == 0 and summary["pending"] == 0
    assert _pending(embedded_dsn) == (0, 0)


def test_import_without_indexing_says_how_many_wait(
    cli: Cli, env: dict[str, str], embedded_dsn: str, tmp_path: Path
) -> None:
    source = _write_memories(tmp_path / "walks.jsonl", DEFAULT_BATCH + 1)
    done = cli("import", str(source), "--no-index", env=env)
    assert done.code == 0, done.stderr
    assert _pending(embedded_dsn) == (DEFAULT_BATCH + 1, 0)
    assert f"{DEFAULT_BATCH + 1:,} wait for the index" in " ".join(done.stdout.split())
