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
from tests.fakes.ollama_server import FakeOllama
from tests.fakes.pdf import make_pdf

Cli = Callable[..., CliResult]

PAGE = """<html><head><title>Gift ideas</title><style>body{}</style></head><body>
<h1>Gift ideas for a potter</h1><script>alert('x')</script>
<p>A potter loves a good set of trimming tools.</p><p>Kiln time makes a fine present.</p>
</body></html>"""


ARTICLE = """<html><head><title>Kiln care | Clay Corner</title></head><body>
<nav><a href="/">Home</a> | <a href="/shop">Shop</a> | <a href="/login">Login</a></nav>
<div class="cookie-banner">We use cookies. <button>Accept all cookies</button></div>
<article><h1>Looking after an electric kiln</h1>
<p>An electric kiln lasts for decades when its elements are checked every twenty firings and
the shelves are kept free of glaze drips.</p>
<p>Vacuum the firing chamber after each bisque firing, because dust from greenware settles in
the element grooves and shortens their life.</p>
<p>Replace the thermocouple when the kiln starts to under-fire cones by more than half a
cone.</p></article>
<footer>2026 Clay Corner - Privacy - Terms</footer></body></html>"""

KILN_PDF = make_pdf(
    [
        ["Firing schedules for stoneware.", "Bisque to cone 04, glaze to cone 6."],
        ["Cool the kiln slowly to keep glazes from crazing."],
    ],
    title="Firing schedules",
)

SITE = {
    "/gifts": ("text/html; charset=utf-8", PAGE.encode()),
    "/kiln-care": ("text/html; charset=utf-8", ARTICLE.encode()),
    "/firing.pdf": ("application/pdf", KILN_PDF),
}


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
def fake_ollama(concept_ollama: FakeOllama) -> FakeOllama:
    """The searches here need vectors that follow meaning."""
    return concept_ollama


@pytest.fixture
def site() -> Iterator[str]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            return

        def do_GET(self) -> None:
            kind, body = SITE.get(self.path, ("text/html; charset=utf-8", b"missing"))
            self.send_response(200 if self.path in SITE else 404)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    ).start()
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


def _learned_texts(dsn: str) -> list[str]:
    with psycopg.connect(dsn) as conn:
        return [r[0] for r in conn.execute("SELECT text FROM knowledge_items ORDER BY 1")]


def test_a_page_is_learned_without_its_menus_cookie_banner_and_footer(
    cli: Cli, env: dict[str, str], site: str, embedded_dsn: str
) -> None:
    learned = cli("learn", f"{site}/kiln-care", "--json", env=env)
    assert learned.code == 0, learned.stderr
    assert json.loads(learned.stdout)["title"] == "Kiln care | Clay Corner"
    text = " ".join(_learned_texts(embedded_dsn))
    assert "Vacuum the firing chamber after each bisque firing" in text
    assert "thermocouple" in text
    for boilerplate in ("Accept all cookies", "We use cookies", "Login", "Privacy"):
        assert boilerplate not in text


def test_a_pdf_is_learned_from_a_file_and_from_the_web(
    cli: Cli, env: dict[str, str], site: str, tmp_path: Path, embedded_dsn: str
) -> None:
    path = tmp_path / "firing.pdf"
    path.write_bytes(KILN_PDF)
    from_file = cli("learn", str(path), "--json", env=env)
    assert from_file.code == 0, from_file.stderr
    assert json.loads(from_file.stdout)["title"] == "Firing schedules"
    text = " ".join(_learned_texts(embedded_dsn))
    assert "Bisque to cone 04, glaze to cone 6." in text and "keep glazes from crazing" in text
    from_web = cli("learn", f"{site}/firing.pdf", "--json", env=env)
    assert from_web.code == 0, from_web.stderr
    assert json.loads(from_web.stdout)["passages"] >= 1
    assert len(json.loads(cli("knowledge", "list", "--json", env=env).stdout)) == 2

    before = _learned_texts(embedded_dsn)
    broken = tmp_path / "broken.pdf"
    broken.write_bytes(KILN_PDF[: len(KILN_PDF) // 3])
    refused = cli("learn", str(broken), env=env)
    assert refused.code == 2 and "broken.pdf" in refused.stderr, refused.stderr
    blank = tmp_path / "scan.pdf"
    blank.write_bytes(make_pdf([[]]))
    refused = cli("learn", str(blank), env=env)
    assert refused.code == 2 and "no text in it" in refused.stderr
    assert _learned_texts(embedded_dsn) == before


def test_bad_locations_are_refused(
    cli: Cli, env: dict[str, str], site: str, tmp_path: Path
) -> None:
    assert cli("learn", str(tmp_path / "nope.md"), env=env).code == 2
    (tmp_path / "image.png").write_bytes(b"\x89PNG")
    refused = cli("learn", str(tmp_path / "image.png"), env=env)
    assert refused.code == 2 and "only text, Markdown, HTML and PDF" in refused.stderr
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


def test_a_page_nested_too_deep_for_the_extractor_is_still_read_whole() -> None:
    from aria_mem.adapters.page_text import main_text

    deep = "<div>" * 100_000 + "<p>Glaze at cone six.</p>" + "</div>" * 100_000
    title, text = main_text(f"<html><head><title>Deep</title></head><body>{deep}</body></html>")
    assert title == "Deep" and "Glaze at cone six." in text
