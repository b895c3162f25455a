"""Knowledge the companion reads: chunking, `learn` from a file or a URL, retrieval under its
own section (never as a fact about the user), forgetting, and re-indexing."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import psycopg
import pytest

from aria_mem.domain.chunking import chunk, html_to_text
from tests.conftest import CliResult
from tests.fakes.concepts import concept_embed
from tests.fakes.ollama_server import FakeOllama, FakeOllamaState

Cli = Callable[..., CliResult]

PAGE = """<html><head><title>Gift ideas</title><style>body{}</style></head><body>
<h1>Gift ideas for a potter</h1><script>alert('x')</script>
<p>A potter loves a good set of trimming tools.</p><p>Kiln time makes a fine present.</p>
</body></html>"""


def test_html_becomes_text_without_scripts_or_styles() -> None:
    title, text = html_to_text(PAGE)
    assert title == "Gift ideas"
    assert "alert" not in text and "body{}" not in text
    assert "A potter loves a good set of trimming tools." in text


def test_chunks_respect_the_size_and_keep_every_word() -> None:
    text = "\n\n".join(f"Paragraph {i}. " + "Sentence about clay. " * (i * 10) for i in range(1, 6))
    pieces = chunk(text, max_chars=300)
    assert all(len(p) <= 300 for p in pieces)
    assert " ".join(pieces).split() == text.split()
    assert chunk("# Title\n\nShort.\n\nAnother short line.") == [
        "# Title Short. Another short line."
    ]


@pytest.fixture
def env(embedded_dsn: str) -> Iterator[dict[str, str]]:
    with FakeOllama(FakeOllamaState(dim=16, embed=concept_embed)) as fake:
        yield {"ARIA_MEM_POSTGRES_DSN": embedded_dsn, "ARIA_MEM_EMBEDDER_HOST": fake.url}


@pytest.fixture
def site() -> Iterator[str]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            return

        def do_GET(self) -> None:
            body = PAGE.encode() if self.path == "/gifts" else b"missing"
            self.send_response(200 if self.path == "/gifts" else 404)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_learned_passages_come_back_as_knowledge_not_memories(
    cli: Cli, env: dict[str, str], site: str, tmp_path: Path
) -> None:
    learned = cli("learn", f"{site}/gifts", "--json", env=env)
    assert learned.code == 0, learned.stderr
    summary = json.loads(learned.stdout)
    assert summary["title"] == "Gift ideas" and summary["indexed"] == summary["passages"] >= 1
    cli("remember", "The user's sister loves pottery.", env=env)
    env = {**env, "MEMORY_MIN_SIMILARITY": "0.3"}  # concept vectors put the page at 0.447
    found = json.loads(cli("search", "a gift for my sister", "--json", env=env).stdout)
    assert found["knowledge"]
    assert {k["title"] for k in found["knowledge"]} == {"Gift ideas"}
    assert all(
        "potter" not in m["text"].lower() or m["text"] == "The user's sister loves pottery."
        for m in found["memories"]
    )
    prompt = found["prompt"]
    assert prompt.index("RELEVANT MEMORY DATA") < prompt.index("KNOWLEDGE DATA")
    assert "not facts about the user" in prompt
    other = json.loads(
        cli("search", "a gift for my sister", "--companion", "nova", "--json", env=env).stdout
    )
    assert other["knowledge"] == []  # knowledge belongs to the companion that learned it


def test_learning_again_replaces_and_forgetting_removes_vectors(
    cli: Cli, env: dict[str, str], tmp_path: Path, embedded_dsn: str
) -> None:
    doc = tmp_path / "notes.md"
    doc.write_text("# Kilns\n\nA kiln fires pottery at high heat to harden the clay.\n")
    first = json.loads(cli("learn", str(doc), "--json", env=env).stdout)
    doc.write_text(
        "# Kilns\n\nGlaze pottery before the second firing in the kiln.\n\n"
        "Electric kilns suit beginners making pottery at home.\n"
    )
    second = json.loads(cli("learn", str(doc), "--json", env=env).stdout)
    assert second["source_id"] == first["source_id"] and second["replaced"] == 1
    listed = json.loads(cli("knowledge", "list", "--json", env=env).stdout)
    assert [(s["title"], s["passages"]) for s in listed] == [("Kilns", 2)]
    texts = [
        k["text"]
        for k in json.loads(cli("search", "pottery", "--json", env=env).stdout)["knowledge"]
    ]
    assert texts and all("high heat" not in t for t in texts)
    gone = cli("knowledge", "forget", first["source_id"][:8], "--json", env=env)
    assert gone.code == 0 and json.loads(gone.stdout)["passages"] == 2
    assert json.loads(cli("search", "pottery", "--json", env=env).stdout)["knowledge"] == []
    status = json.loads(cli("status", "--json", env=env).stdout)
    assert status["checks"]["index"]["collections"]["knowledge"]["points"] == 0
    with psycopg.connect(embedded_dsn) as conn:
        assert conn.execute("SELECT count(*) FROM knowledge_items").fetchone() == (0,)


def test_bad_locations_are_refused(
    cli: Cli, env: dict[str, str], site: str, tmp_path: Path
) -> None:
    assert cli("learn", str(tmp_path / "nope.md"), env=env).code == 2
    (tmp_path / "image.png").write_bytes(b"\x89PNG")
    refused = cli("learn", str(tmp_path / "image.png"), env=env)
    assert refused.code == 2 and "only text, Markdown and HTML" in refused.stderr
    missing = cli("learn", f"{site}/nothing", env=env)
    assert missing.code == 1 and "answered 404" in missing.stderr


def test_reindex_re_embeds_knowledge_too(
    cli: Cli, env: dict[str, str], tmp_path: Path, embedded_dsn: str
) -> None:
    doc = tmp_path / "notes.md"
    doc.write_text("Pottery kilns reach 1200 degrees.\n")
    cli("learn", str(doc), env=env)
    done = cli("reindex", "--model", "nomic-embed-text", "--json", env=env)
    assert done.code == 0, done.stderr
    with psycopg.connect(embedded_dsn) as conn:
        models = conn.execute("SELECT DISTINCT indexed_model FROM knowledge_items").fetchall()
    assert models == [("ollama/nomic-embed-text",)]
