"""Reading what the companion is asked to learn: a text, Markdown, HTML or PDF file, or a web
page (its main text: menus, cookie banners and footers left out; see ``page_text``).

Bounded in every way a document could be unbounded: a file must be a regular file under
``MAX_BYTES``; a page is streamed and given up once it passes ``MAX_BYTES`` or the whole fetch
passes ``DEADLINE_S`` (a server that drips bytes cannot hold a command). Only http and https
URLs are fetched. Redirects are followed (at most ``MAX_REDIRECTS``), only to http(s), and a
page on a public address may not redirect to a loopback, private, link-local or otherwise
non-public address, so a page on the internet cannot steer aria-mem at the machine's own
services or its local network (a page that is itself on such an address, e.g. a local wiki,
may redirect within it). Text with NUL bytes is binary, not text, and is refused.
"""

from __future__ import annotations

import ipaddress
import socket
import threading
import time
from pathlib import Path
from urllib.parse import SplitResult, urljoin, urlsplit

import httpx

from aria_mem.adapters.page_text import main_text, pdf_text
from aria_mem.domain.addresses import split_address
from aria_mem.errors import ServiceError, UsageError

MAX_BYTES = 5_000_000
DEADLINE_S = 30.0
READ_TIMEOUT_S = 10.0
MAX_REDIRECTS = 5
TEXT_SUFFIXES = {".txt", ".md", ".markdown", ".rst", ".text", ""}
HTML_SUFFIXES = {".html", ".htm"}
PDF_SUFFIXES = {".pdf"}
SCHEMES = ("http", "https")


class DocumentFetcher:
    """The DocumentReader port over files and http(s) pages."""

    def __init__(self, deadline: float = DEADLINE_S) -> None:
        self._deadline = deadline

    def read(self, location: str) -> tuple[str, str, str]:
        return read(location, deadline=self._deadline)


def read(location: str, *, deadline: float = DEADLINE_S) -> tuple[str, str, str]:
    """(source, title, text) of a path or an http(s) URL."""
    scheme = address(location).scheme.lower() if "://" in location else ""
    if scheme in SCHEMES:
        if not address(location).hostname:
            raise UsageError(f"{location!r} names no host — give an address like https://host/")
        return _fetch_within(location, deadline)
    if scheme:
        raise UsageError(
            f"Only http:// and https:// addresses can be learned, not {scheme}:// — "
            "download it and give the file's path instead"
        )
    return _read_file(Path(location).expanduser())


def address(url: str) -> SplitResult:
    """``url`` split into its parts; an address Python cannot parse (an unclosed IPv6
    bracket, a port that is not a number) is refused as such."""
    try:
        parts = split_address(url)
    except ValueError as exc:
        raise UsageError(
            f"{url!r} is not a valid address ({exc}) — check it and try again"
        ) from exc
    return parts


def _read_file(path: Path) -> tuple[str, str, str]:
    if not path.is_file():
        raise UsageError(f"No file at {path} — give a text, Markdown, HTML or PDF file, or a URL")
    if path.stat().st_size > MAX_BYTES:
        raise UsageError(f"{path} is larger than {MAX_BYTES // 1_000_000} MB")
    suffix = path.suffix.lower()
    if suffix not in TEXT_SUFFIXES | HTML_SUFFIXES | PDF_SUFFIXES:
        raise UsageError(f"{path.name}: only text, Markdown, HTML and PDF files can be learned")
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_BYTES + 1)
    except OSError as exc:
        raise UsageError(f"Cannot read {path}: {exc.strerror}") from exc
    if len(data) > MAX_BYTES:
        raise UsageError(f"{path} is larger than {MAX_BYTES // 1_000_000} MB")
    if suffix in PDF_SUFFIXES:
        title, text = pdf_text(data, str(path))
        return str(path.resolve()), title or path.stem, text
    raw = _text(data, str(path))
    if suffix in HTML_SUFFIXES:
        title, text = main_text(raw)
        return str(path.resolve()), title or path.stem, text
    first = next((line.strip("# ").strip() for line in raw.splitlines() if line.strip()), "")
    return str(path.resolve()), first[:120] or path.stem, raw


def _text(data: bytes, where: str, encoding: str = "utf-8", *, strict: bool = True) -> str:
    if b"\x00" in data:
        raise UsageError(f"{where} contains NUL bytes: it is binary, not text")
    try:
        return data.decode(encoding, "strict" if strict else "replace")
    except UnicodeDecodeError as exc:
        raise UsageError(f"{where} is not UTF-8 text") from exc
    except LookupError:
        return data.decode("utf-8", "replace")


def is_public(host: str) -> bool:
    """True when every address ``host`` resolves to is a public (global) one."""
    try:
        infos = socket.getaddrinfo(host, None)
    except OSError:
        return True  # unresolvable: the fetch itself will say so
    return all(ipaddress.ip_address(str(info[4][0]).split("%")[0]).is_global for info in infos)


def redirect_allowed(origin_public: bool, target_public: bool, target_scheme: str) -> bool:
    """The redirect policy: http(s) only, and never from a public page to a non-public
    address."""
    return target_scheme in SCHEMES and (target_public or not origin_public)


def _fetch_within(url: str, deadline: float) -> tuple[str, str, str]:
    """Fetch in a thread and give up at the deadline, however the server behaves."""
    outcome: list[tuple[str, str, str] | BaseException] = []

    def work() -> None:
        try:
            outcome.append(_fetch(url, time.monotonic() + deadline))
        except BaseException as exc:  # handed to the caller's thread as it is
            outcome.append(exc)

    worker = threading.Thread(target=work, name="aria-mem-learn", daemon=True)
    worker.start()
    worker.join(deadline + 1)
    if not outcome:
        raise ServiceError(f"Fetching {url} took longer than {deadline:g}s; gave up")
    result = outcome[0]
    if isinstance(result, BaseException):
        raise result
    return result


def _fetch(url: str, deadline: float) -> tuple[str, str, str]:
    origin_public = is_public(urlsplit(url).hostname or "")
    current = url
    timeout = httpx.Timeout(READ_TIMEOUT_S, connect=READ_TIMEOUT_S)
    with httpx.Client(timeout=timeout, follow_redirects=False) as client:
        for _hop in range(MAX_REDIRECTS + 1):
            try:
                with client.stream("GET", current) as response:
                    if response.is_redirect:
                        target, parts = _redirect_target(current, response)
                        if not redirect_allowed(
                            origin_public, is_public(parts.hostname or ""), parts.scheme.lower()
                        ):
                            raise UsageError(
                                f"{url} redirects to {target}, which aria-mem does not follow "
                                "(only http(s), and never from a public page to a local or "
                                "private address)"
                            )
                        current = target
                        continue
                    if response.status_code >= 400:
                        raise ServiceError(f"{current} answered {response.status_code}")
                    body = _read_body(response, current, deadline)
                    kind = response.headers.get("content-type", "")
                    encoding = response.charset_encoding or "utf-8"
            except httpx.HTTPError as exc:
                raise ServiceError(f"Could not fetch {current}: {exc}") from exc
            if kind.split(";")[0].strip().lower() == "application/pdf":
                title, plain = pdf_text(body, current)
                return current, title or current, plain
            text = _text(body, current, encoding, strict=False)
            if "html" in kind:
                title, plain = main_text(text, current)
                return current, title or current, plain
            if kind.startswith("text/") or not kind:
                return current, current, text
            raise UsageError(f"{current} is {kind}, not text, HTML or PDF")
    raise UsageError(f"{url} redirects more than {MAX_REDIRECTS} times")


def _redirect_target(current: str, response: httpx.Response) -> tuple[str, SplitResult]:
    location = response.headers.get("location", "")
    try:
        target = urljoin(current, location)
    except ValueError as exc:
        raise ServiceError(f"{current} redirects to an address that is not valid: {exc}") from exc
    return target, address(target)


def _read_body(response: httpx.Response, url: str, deadline: float) -> bytes:
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_BYTES:
        raise UsageError(f"{url} is larger than {MAX_BYTES // 1_000_000} MB")
    chunks: list[bytes] = []
    size = 0
    for chunk in response.iter_bytes():
        size += len(chunk)
        if size > MAX_BYTES:
            raise UsageError(f"{url} is larger than {MAX_BYTES // 1_000_000} MB")
        if time.monotonic() > deadline:
            raise ServiceError(f"Fetching {url} took too long; gave up")
        chunks.append(chunk)
    return b"".join(chunks)
