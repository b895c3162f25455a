"""A PDF `learn` reads (a person's file, or a public page a model asked for over MCP) is bounded
in the work it makes, not only in bytes, pages and characters: pages that share one content
stream are read once (a stranger's audit: 42 KB with 200 pages sharing a 560 KB stream took
5.4 s of CPU, growing with the pages), and reading stops after ``MAX_PDF_SECONDS``."""

from __future__ import annotations

import io

import pytest
from pypdf import PdfWriter
from pypdf.generic import DecodedStreamObject, DictionaryObject, IndirectObject, NameObject

from aria_mem.adapters import page_text
from aria_mem.errors import UsageError
from tests.fakes.pdf import make_pdf


def _resources(writer: PdfWriter, font: str) -> IndirectObject:
    """Resources of their own, their /F1 the standard Type 1 ``font``."""
    named = DictionaryObject(
        {
            NameObject("/Type"): NameObject("/Font"),
            NameObject("/Subtype"): NameObject("/Type1"),
            NameObject("/BaseFont"): NameObject(font),
        }
    )
    fonts = DictionaryObject({NameObject("/F1"): writer._add_object(named)})
    return writer._add_object(DictionaryObject({NameObject("/Font"): fonts}))


def _sharing(pages: int, lines: int) -> bytes:
    """``pages`` pages drawn by one content stream of ``lines`` lines of text."""
    writer = PdfWriter()
    drawn = "".join(
        f"BT /F1 12 Tf 72 {700 - (n % 50) * 12} Td (The user note {n}) Tj ET\n"
        for n in range(lines)
    )
    stream = DecodedStreamObject()
    stream.set_data(drawn.encode())
    stream_ref = writer._add_object(stream)
    resources = _resources(writer, "/Helvetica")
    for _ in range(pages):
        page = writer.add_blank_page(612, 792)
        page[NameObject("/Contents")] = stream_ref
        page[NameObject("/Resources")] = resources
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def test_pages_sharing_one_content_stream_are_read_once() -> None:
    _, text = page_text.pdf_text(_sharing(pages=300, lines=200), "shared.pdf")
    assert text.count("The user note 7\n") == 1
    assert text.count("The user note 199") == 1


def test_reading_a_pdf_stops_past_its_time(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(page_text, "MAX_PDF_SECONDS", 0.0)
    monkeypatch.setattr(page_text, "PDF_SECONDS_PER_PAGE", 0.0)
    pdf = make_pdf([["The user swims."], ["The user rows."]])
    with pytest.raises(UsageError, match=r"took more than 0 s to read \(0 of 2 pages\)"):
        page_text.pdf_text(pdf, "slow.pdf")


def test_pages_drawn_by_one_stream_with_their_own_fonts_are_each_read() -> None:
    """One stream, each page its own resources: the same operators name other fonts or
    forms, so other text (from a stranger's review: only the first page's was kept)."""
    writer = PdfWriter()
    stream = DecodedStreamObject()
    stream.set_data(b"BT /F1 12 Tf 72 700 Td (Page text) Tj ET\n")
    stream_ref = writer._add_object(stream)
    for font in ("/Helvetica", "/Courier", "/Times-Roman"):
        page = writer.add_blank_page(612, 792)
        page[NameObject("/Contents")] = stream_ref
        page[NameObject("/Resources")] = _resources(writer, font)
    out = io.BytesIO()
    writer.write(out)
    _, text = page_text.pdf_text(out.getvalue(), "fonts.pdf")
    assert text.count("Page text") == 3
