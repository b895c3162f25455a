"""The text worth learning from a web page or a PDF.

A page's main text comes from trafilatura, which leaves out what surrounds it (menus, cookie
banners, footers, share buttons): those would otherwise become "knowledge" and be put into
prompts. A PDF's text comes from pypdf, page by page, bounded in pages and characters.
Both libraries are imported only when a page or a PDF is read.
"""

from __future__ import annotations

import io
import logging
import time
from typing import Any

from aria_mem.domain.chunking import html_to_text
from aria_mem.errors import AriaMemError, UsageError

MAX_PDF_PAGES = 2_000
MAX_TEXT_CHARS = 5_000_000
"""As much text as a 5 MB text file holds; a PDF's compressed streams can hold far more."""
MAX_PDF_SECONDS = 30.0
PDF_SECONDS_PER_PAGE = 0.05
"""Reading a PDF's pages stops past ``MAX_PDF_SECONDS`` or this much a page, whichever is more
(a book of 2,000 pages: 100 s; checked between pages): a PDF of a few hundred KB can make pypdf
work for minutes (a stranger's audit: 42 KB, 200 pages sharing one 560 KB content stream, 5.4 s
of CPU, growing with the pages), and `learn` is open to a model over MCP. One page is bounded
only by pypdf's own limit on a stream (75 MB decompressed)."""


def main_text(html: str, url: str | None = None) -> tuple[str, str]:
    """(title, text) of an HTML page: the page's <title>, and its main text with paragraphs
    apart. A page trafilatura finds no main text in (a bare list, a tiny page) is read
    whole, as before."""
    import trafilatura

    logging.getLogger("trafilatura").setLevel(logging.ERROR)
    title, whole = html_to_text(html)
    try:
        found = trafilatura.bare_extraction(
            html,
            url=url,
            include_comments=False,
            include_tables=True,
            with_metadata=True,
        )
    except Exception:  # a page its parser cannot take (lxml's depth and size limits)
        found = None
    text = getattr(found, "text", None) if found is not None else None
    if not text or not text.strip():
        return title, whole
    paragraphs = [line.strip() for line in text.splitlines() if line.strip()]
    return title or str(getattr(found, "title", "") or ""), "\n\n".join(paragraphs)


def pdf_text(data: bytes, where: str) -> tuple[str, str]:
    """(title, text) of a PDF: its metadata title (or ""), and its pages' text."""
    logging.getLogger("pypdf").setLevel(logging.ERROR)
    try:
        title, pages = _pdf_pages(data, where)
    except AriaMemError:
        raise
    except Exception as exc:  # a parser of any file given: whatever breaks it, say so
        raise UsageError(f"{where} is not a PDF that can be read ({exc})") from exc
    text = "\n\n".join(page for page in pages if page)
    if not text:
        raise UsageError(f"{where} has no text in it (a scan? run OCR on it first)")
    return title, text


def _pdf_pages(data: bytes, where: str) -> tuple[str, list[str]]:
    from pypdf import PdfReader

    reader = PdfReader(io.BytesIO(data))
    if reader.is_encrypted:
        raise UsageError(f"{where} is an encrypted PDF — save a copy without a password")
    if len(reader.pages) > MAX_PDF_PAGES:
        raise UsageError(
            f"{where} has {len(reader.pages):,} pages; at most {MAX_PDF_PAGES:,} are "
            "learned — split it"
        )
    pages: list[str] = []
    size = 0
    read: set[tuple[object, ...]] = set()
    allowed = max(MAX_PDF_SECONDS, PDF_SECONDS_PER_PAGE * len(reader.pages))
    deadline = time.monotonic() + allowed
    for number, page in enumerate(reader.pages, start=1):
        if time.monotonic() > deadline:
            raise UsageError(
                f"{where} took more than {allowed:g} s to read ({number - 1:,} of "
                f"{len(reader.pages):,} pages) — split it, or learn its text instead"
            )
        drawn = _drawing(page)
        if drawn is not None and drawn in read:  # drawn as a page read before: the same text
            continue
        if drawn is not None:
            read.add(drawn)
        text = page.extract_text() or ""
        size += len(text)
        if size > MAX_TEXT_CHARS:
            raise UsageError(
                f"{where} holds more than {MAX_TEXT_CHARS // 1_000_000} million characters "
                "of text — split it"
            )
        pages.append(text.strip())
    title = str((reader.metadata.title if reader.metadata else None) or "").strip()
    return title, pages


def _drawing(page: Any) -> tuple[object, ...] | None:
    """What a page's text follows from, when other pages can share it: its content streams
    and its resources (fonts, forms: one stream drawn with other fonts is other text, from a
    stranger's review), each as the object it is (number, generation), in order. None when
    either is inline in the page or inherited: such a page is read."""
    contents = page.get("/Contents")
    parts = list(contents) if isinstance(contents, list) else [contents]
    named = [*parts, page.get("/Resources")]  # none: inherited from the tree, read each time
    if not all(hasattr(p, "idnum") for p in named):
        return None
    return tuple((p.idnum, p.generation) for p in named)
