"""Reading what the companion is asked to learn: a text, Markdown or HTML file, or a web page."""

from __future__ import annotations

from pathlib import Path

import httpx

from aria_mem.domain.chunking import html_to_text
from aria_mem.errors import ServiceError, UsageError

MAX_BYTES = 5_000_000
TEXT_SUFFIXES = {".txt", ".md", ".markdown", ".rst", ".text", ""}
HTML_SUFFIXES = {".html", ".htm"}


def read(location: str, *, timeout: float = 20.0) -> tuple[str, str, str]:
    """(source, title, text) of a path or an http(s) URL."""
    if location.startswith(("http://", "https://")):
        return _fetch(location, timeout)
    path = Path(location).expanduser()
    if not path.is_file():
        raise UsageError(f"No file at {path} — give a text, Markdown or HTML file, or a URL")
    if path.stat().st_size > MAX_BYTES:
        raise UsageError(f"{path} is larger than {MAX_BYTES // 1_000_000} MB")
    suffix = path.suffix.lower()
    if suffix not in TEXT_SUFFIXES | HTML_SUFFIXES:
        raise UsageError(f"{path.name}: only text, Markdown and HTML files can be learned")
    try:
        raw = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(f"{path} is not UTF-8 text") from exc
    if suffix in HTML_SUFFIXES:
        title, text = html_to_text(raw)
        return str(path.resolve()), title or path.stem, text
    first = next((line.strip("# ").strip() for line in raw.splitlines() if line.strip()), "")
    return str(path.resolve()), first[:120] or path.stem, raw


def _fetch(url: str, timeout: float) -> tuple[str, str, str]:
    try:
        response = httpx.get(url, timeout=timeout, follow_redirects=True)
        response.raise_for_status()
    except httpx.HTTPStatusError as exc:
        raise ServiceError(f"{url} answered {exc.response.status_code}") from exc
    except httpx.HTTPError as exc:
        raise ServiceError(f"Could not fetch {url}: {exc}") from exc
    if len(response.content) > MAX_BYTES:
        raise UsageError(f"{url} is larger than {MAX_BYTES // 1_000_000} MB")
    kind = response.headers.get("content-type", "")
    if "html" in kind:
        title, text = html_to_text(response.text)
        return url, title or url, text
    if kind.startswith("text/") or not kind:
        return url, url, response.text
    raise UsageError(f"{url} is {kind}, not text or HTML")
