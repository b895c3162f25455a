"""Reading what the companion is asked to learn: a text, Markdown, HTML or PDF file, or a web
page (its main text: menus, cookie banners and footers left out; see ``page_text``).

Bounded in every way a document could be unbounded: a file must be a regular file under
``MAX_BYTES``; a page is streamed and given up once it passes ``MAX_BYTES`` or the whole fetch
passes ``DEADLINE_S`` (a server that drips bytes cannot hold a command). Only http and https
URLs are fetched. Redirects are followed (at most ``MAX_REDIRECTS``), only to http(s), and a
page on a public address may not redirect to a loopback, private, link-local or otherwise
non-public address, so a page on the internet cannot steer aria-mem at the machine's own
services or its local network (a page that is itself on such an address, e.g. a local wiki,
may redirect within it). Asked for public pages only (``public_only``: what MCP's ``learn``
asks, since its caller may be a model steered by a page), every hop must be on public
addresses. Each hop's host is resolved once, judged on the addresses that came back (never on
how the URL spells them), and those very addresses are the ones connected to: a name cannot
pass the check as public and then be reached as loopback. Text with NUL bytes is binary, not
text, and is refused.
"""

from __future__ import annotations

import contextlib
import ipaddress
import socket
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import SplitResult, urljoin

import httpx

from aria_mem.adapters.page_text import main_text, pdf_text
from aria_mem.domain.addresses import IPAddress, split_address, why_not_public
from aria_mem.errors import ServiceError, UsageError

MAX_BYTES = 5_000_000
DEADLINE_S = 30.0
READ_TIMEOUT_S = 10.0
MAX_REDIRECTS = 5
TEXT_SUFFIXES = {".txt", ".md", ".markdown", ".rst", ".text", ""}
HTML_SUFFIXES = {".html", ".htm"}
PDF_SUFFIXES = {".pdf"}
SCHEMES = ("http", "https")

Resolver = Callable[[str, int], list[IPAddress]]
"""(host, port) -> the addresses to connect to, in order."""
Judge = Callable[[IPAddress], str | None]
"""An address -> None when it is public, else what it is instead ("a loopback address")."""


class DocumentFetcher:
    """The DocumentReader port over files and http(s) pages. ``resolver`` and ``judge`` are
    the system resolver and the public-address rule; a test may stand a loopback address in
    for the internet with them."""

    def __init__(
        self,
        deadline: float = DEADLINE_S,
        *,
        resolver: Resolver | None = None,
        judge: Judge = why_not_public,
    ) -> None:
        self._deadline = deadline
        self._resolver = resolver or resolve
        self._judge = judge

    def read(self, location: str, *, public_only: bool = False) -> tuple[str, str, str]:
        return read(
            location,
            deadline=self._deadline,
            public_only=public_only,
            resolver=self._resolver,
            judge=self._judge,
        )


def read(
    location: str,
    *,
    deadline: float = DEADLINE_S,
    public_only: bool = False,
    resolver: Resolver | None = None,
    judge: Judge = why_not_public,
) -> tuple[str, str, str]:
    """(source, title, text) of a path or an http(s) URL; with ``public_only``, of an
    http(s) URL on public addresses only (a path is refused)."""
    scheme = address(location).scheme.lower() if "://" in location else ""
    if scheme in SCHEMES:
        if not address(location).hostname:
            raise UsageError(f"{location!r} names no host — give an address like https://host/")
        policy = _Policy(public_only, resolver or resolve, judge)
        return _fetch_within(location, deadline, policy)
    if scheme:
        raise UsageError(
            f"Only http:// and https:// addresses can be learned, not {scheme}:// — "
            "download it and give the file's path instead"
        )
    if public_only:
        raise UsageError(
            f"learn reads public web pages only, and {location!r} is not an http(s) URL"
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


def resolve(host: str, port: int) -> list[IPAddress]:
    """Every address the system resolver gives ``host``, in its order of preference, each
    once. A fetch asks once per hop and connects to these and no other, so what was judged
    is what is reached: a name cannot resolve public for the check and loopback for the
    connection (DNS rebinding). Numeric spellings (``127.1``, ``2130706433``) come back as
    the address they mean."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as exc:
        reason = getattr(exc, "strerror", None) or str(exc)
        raise ServiceError(f"Could not find the host {host}: {reason} — check the address") from exc
    found: list[IPAddress] = []
    for info in infos:
        ip = ipaddress.ip_address(str(info[4][0]))
        if ip not in found:
            found.append(ip)
    return found


def redirect_allowed(origin_public: bool, target_public: bool, target_scheme: str) -> bool:
    """The redirect policy: http(s) only, and never from a public page to a non-public
    address."""
    return target_scheme in SCHEMES and (target_public or not origin_public)


def _fetch_within(url: str, deadline: float, policy: _Policy) -> tuple[str, str, str]:
    """Fetch in a thread and give up at the deadline, however the server behaves."""
    outcome: list[tuple[str, str, str] | BaseException] = []

    def work() -> None:
        try:
            outcome.append(_fetch(url, time.monotonic() + deadline, policy))
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


@dataclass(frozen=True)
class _Policy:
    public_only: bool
    resolve: Resolver
    judge: Judge


def _fetch(url: str, deadline: float, policy: _Policy) -> tuple[str, str, str]:
    current = url
    origin_public: bool | None = None
    timeout = httpx.Timeout(READ_TIMEOUT_S, connect=READ_TIMEOUT_S)
    # Public only: no proxy from the environment (it would resolve the name itself) and no
    # credentials from ~/.netrc.
    proxied = not policy.public_only and _proxied()
    with httpx.Client(
        timeout=timeout, follow_redirects=False, trust_env=not policy.public_only
    ) as client:
        for _hop in range(MAX_REDIRECTS + 1):
            target = _url(current)
            addresses = _checked(url, current, target, policy, origin_public, proxied=proxied)
            if origin_public is None:
                origin_public = all(policy.judge(ip) is None for ip in addresses)
            try:
                with _get(client, target, None if proxied else addresses) as response:
                    if response.is_redirect:
                        current = _redirect_target(url, current, response)
                        continue
                    if response.status_code >= 400:
                        raise ServiceError(f"{current} answered {response.status_code}")
                    body = _read_body(response, current, deadline)
                    kind = response.headers.get("content-type", "")
                    encoding = response.charset_encoding or "utf-8"
            except (httpx.HTTPError, httpx.InvalidURL) as exc:
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


def _url(location: str) -> httpx.URL:
    try:
        return httpx.URL(location)
    except httpx.InvalidURL as exc:
        raise UsageError(
            f"{location!r} is not a valid address ({exc}) — check it and try again"
        ) from exc


def _checked(
    url: str,
    current: str,
    target: httpx.URL,
    policy: _Policy,
    origin_public: bool | None,
    *,
    proxied: bool,
) -> list[IPAddress]:
    """The addresses this hop may connect to, resolved once and judged: with
    ``public_only`` every address of every hop must be public; otherwise a redirect from a
    public page (``origin_public``; None on the first hop) may not lead to a non-public one.
    Through a proxy a name this machine cannot resolve is the proxy's to find, as before."""
    scheme = target.scheme.lower()
    host = target.raw_host.decode("ascii")
    try:
        addresses = policy.resolve(host, target.port or (443 if scheme == "https" else 80))
    except ServiceError:
        if proxied:
            return []
        raise
    if not addresses and not proxied:
        raise ServiceError(f"Could not find the host {host} — check the address")
    refused = next(((ip, why) for ip in addresses if (why := policy.judge(ip)) is not None), None)
    if refused is None:
        return addresses
    ip, why = refused
    named = str(ip) if host.strip("[]") == str(ip) else f"{host} ({ip})"
    if policy.public_only:
        hop = f" ({url} redirects to it)" if current != url else ""
        raise UsageError(
            f"learn reads public web pages only: {named} is {why}, so {current}{hop} was not "
            "fetched — the person can learn a page on their own machine or network with "
            "`aria-mem learn URL`"
        )
    if origin_public is not None and not redirect_allowed(origin_public, False, scheme):
        raise UsageError(
            f"{url} redirects to {current}, which aria-mem does not follow ({named} is "
            f"{why}; never from a public page to a local or private address)"
        )
    return addresses


@contextlib.contextmanager
def _get(
    client: httpx.Client, target: httpx.URL, addresses: list[IPAddress] | None
) -> Iterator[httpx.Response]:
    """GET ``target`` from one of ``addresses`` (in order: the next only when a connection
    to the one before could not be made), never from an address resolved again. The URL
    sent names the address; the Host header, and for https the SNI name and the name the
    certificate is verified against, stay the page's own host. ``addresses`` None: through
    the person's proxy, which resolves the name itself."""
    request = client.build_request("GET", target)
    pinned = [None] if addresses is None else addresses
    for number, ip in enumerate(pinned, start=1):
        if ip is not None:
            request.url = target.copy_with(host=str(ip))
            if target.scheme.lower() == "https":
                request.extensions = {
                    **request.extensions,
                    "sni_hostname": target.raw_host.decode(),
                }
        try:
            response = client.send(request, stream=True)
        except httpx.ConnectError:
            if number == len(pinned):
                raise
            continue
        try:
            yield response
        finally:
            response.close()
        return


def _proxied() -> bool:
    """Whether the environment names a proxy for web pages (httpx reads the same settings):
    the person's CLI fetch then goes through it, unpinned, as it always has (a tunnel checks
    the certificate against the name in the URL, which pinning would make an address)."""
    return any(key in urllib.request.getproxies() for key in ("http", "https", "all"))


def _redirect_target(url: str, current: str, response: httpx.Response) -> str:
    """Where ``current`` redirects to, if it is an http(s) address (whether its host is
    allowed is judged when it is resolved, at the next hop)."""
    location = str(response.headers.get("location", ""))
    try:
        target = urljoin(current, location)
    except ValueError as exc:
        raise ServiceError(f"{current} redirects to an address that is not valid: {exc}") from exc
    if not redirect_allowed(False, True, address(target).scheme.lower()):
        raise UsageError(
            f"{url} redirects to {target}, which aria-mem does not follow (only http(s), and "
            "never from a public page to a local or private address)"
        )
    return target


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
