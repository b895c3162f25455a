"""Turning a document into knowledge passages: plain text from HTML, then paragraphs merged
up to a size a prompt can carry, long paragraphs split at sentence ends."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from typing import ClassVar

MAX_CHUNK_CHARS = 800
MIN_CHUNK_CHARS = 40

_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_BLANK = re.compile(r"\n\s*\n")


class _TextExtractor(HTMLParser):
    _SKIP: ClassVar[frozenset[str]] = frozenset(
        {"script", "style", "noscript", "template", "svg", "head"}
    )
    _BLOCK: ClassVar[frozenset[str]] = frozenset(
        {
            "p",
            "div",
            "section",
            "article",
            "li",
            "br",
            "h1",
            "h2",
            "h3",
            "h4",
            "h5",
            "h6",
            "tr",
            "blockquote",
            "pre",
            "header",
            "footer",
            "main",
        }
    )

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.title = ""
        self._skip = 0
        self._in_title = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "title":
            self._in_title = True
        elif tag in self._SKIP:
            self._skip += 1
        elif tag in self._BLOCK:
            self.parts.append("\n\n")

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False
        elif tag in self._SKIP and self._skip:
            self._skip -= 1
        elif tag in self._BLOCK:
            self.parts.append("\n\n")

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data
        elif not self._skip:
            self.parts.append(data)


def html_to_text(html: str) -> tuple[str, str]:
    """(title, text) of an HTML page."""
    parser = _TextExtractor()
    parser.feed(html)
    parser.close()
    text = "".join(parser.parts)
    lines = [" ".join(line.split()) for line in text.split("\n")]
    return " ".join(parser.title.split()), "\n".join(lines)


def chunk(text: str, max_chars: int = MAX_CHUNK_CHARS) -> list[str]:
    paragraphs = [" ".join(p.split()) for p in _BLANK.split(text)]
    pieces: list[str] = []
    for paragraph in paragraphs:
        if not paragraph:
            continue
        if len(paragraph) <= max_chars:
            pieces.append(paragraph)
            continue
        current = ""
        for sentence in _SENTENCE.split(paragraph):
            while len(sentence) > max_chars:
                if current:
                    pieces.append(current)
                    current = ""
                pieces.append(sentence[:max_chars])
                sentence = sentence[max_chars:]
            if current and len(current) + 1 + len(sentence) > max_chars:
                pieces.append(current)
                current = sentence
            else:
                current = f"{current} {sentence}".strip()
        if current:
            pieces.append(current)
    chunks: list[str] = []
    for piece in pieces:  # merge small neighbours (headings, short lines) into one passage
        if (
            chunks
            and (len(chunks[-1]) < MIN_CHUNK_CHARS or len(piece) < MIN_CHUNK_CHARS)
            and len(chunks[-1]) + 1 + len(piece) <= max_chars
        ):
            chunks[-1] = f"{chunks[-1]} {piece}"
        else:
            chunks.append(piece)
    return chunks
