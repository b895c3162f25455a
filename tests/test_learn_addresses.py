"""MCP `learn` reads public pages only: however a local address is spelled (a name, a short or
decimal or hex IPv4, an IPv6 that carries one, the unspecified address), wherever it turns up
(the first URL, a redirect hop, a name that resolves public and then loopback), no connection
reaches the machine's own services. Driven with the MCP SDK's client against the real server,
reader and database; a loopback server counts every connection made to it.

Without the internet, a second loopback address (127.0.0.2) stands in for a public host: the
reader's public-address rule is given as one that calls 127.0.0.2 public and judges every
other address as it always does. The system resolver is replaced (monkeypatch) only to play
a name that rebinds."""

from __future__ import annotations

import datetime
import ipaddress
import socket
import ssl
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import given
from hypothesis import strategies as st
from mcp.client.client import Client
from mcp_types import TextContent

from aria_mem import AriaMem
from aria_mem.adapters import documents
from aria_mem.adapters.documents import DocumentFetcher
from aria_mem.config import load, with_overrides
from aria_mem.domain.addresses import IPAddress, why_not_public
from aria_mem.errors import ServiceError, UsageError
from aria_mem.mcp_server import build_server
from tests.fakes.concepts import concept_embed
from tests.fakes.ollama_server import FakeOllama, FakeOllamaState

STAND_IN = ipaddress.ip_address("127.0.0.2")
PAGE = b"<html><head><title>Kilns</title></head><body><p>Kilns fire clay.</p></body></html>"


def stand_in_judge(ip: IPAddress) -> str | None:
    """The public-address rule, with 127.0.0.2 standing in for the internet."""
    return None if ip == STAND_IN else why_not_public(ip)


@dataclass
class Site:
    """A web server on one address that records every connection and request it gets."""

    host: str
    port: int
    connections: list[str] = field(default_factory=list)
    requests: list[tuple[str, str]] = field(default_factory=list)
    """(path, Host header)."""
    redirect: str = ""
    """Where /hop redirects to."""


def _serve(
    site: Site, family: socket.AddressFamily = socket.AF_INET, tls: ssl.SSLContext | None = None
) -> Callable[[], None]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            return

        def do_GET(self) -> None:
            site.requests.append((self.path, self.headers.get("Host", "")))
            if self.path == "/hop":
                self.send_response(302)
                self.send_header("Location", site.redirect)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(PAGE)))
            self.end_headers()
            self.wfile.write(PAGE)

    class Server(ThreadingHTTPServer):
        address_family = family
        daemon_threads = True
        block_on_close = False

        def verify_request(self, request: Any, client_address: Any) -> bool:
            site.connections.append(str(client_address[0]))
            return True

    server = Server((site.host, site.port), Handler)
    if tls is not None:
        server.socket = tls.wrap_socket(server.socket, server_side=True)
    site.port = int(server.server_address[1])
    threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    ).start()

    def stop() -> None:
        server.shutdown()
        server.server_close()

    return stop


@pytest.fixture
def local() -> Iterator[Site]:
    """A local service on 127.0.0.1 (and ::1, same port, when the machine has IPv6)."""
    site = Site("127.0.0.1", 0)
    stops = [_serve(site)]
    try:
        twin = Site("::1", site.port, site.connections, site.requests)
        stops.append(_serve(twin, socket.AF_INET6))
    except OSError:
        pass  # no IPv6 loopback here: [::1] is still refused, by the same rule
    yield site
    for stop in stops:
        stop()


@pytest.fixture
def public(local: Site) -> Iterator[Site]:
    """The stand-in public site, on 127.0.0.2 at the local service's port (so a name that
    rebinds from one to the other names the same URL)."""
    site = Site(str(STAND_IN), local.port)
    stop = _serve(site)
    yield site
    stop()


@pytest.fixture
def memory(embedded_dsn: str) -> Iterator[AriaMem]:
    """The API over the real database and a reader whose rule has the stand-in public."""
    with FakeOllama(FakeOllamaState(dim=16, embed=concept_embed)) as fake:
        settings = with_overrides(
            load(), postgres={"dsn": embedded_dsn}, embedder={"host": fake.url}
        )
        with AriaMem(settings, reader=DocumentFetcher(judge=stand_in_judge)) as opened:
            yield opened


def _learn(memory: AriaMem, locations: list[str]) -> dict[str, tuple[bool, str]]:
    """Each location learned over MCP: (refused, what the tool answered)."""
    answers: dict[str, tuple[bool, str]] = {}

    async def main() -> None:
        async with Client(build_server(memory, user="alice", companion="aria")) as client:
            for location in locations:
                result = await client.call_tool("learn", {"location": location})
                block = result.content[0]
                text = block.text if isinstance(block, TextContent) else str(block)
                answers[location] = (result.is_error, text)

    anyio.run(main)
    return answers


def test_every_spelling_of_this_machine_is_refused_and_nothing_reaches_it(
    memory: AriaMem, local: Site
) -> None:
    port = local.port
    local.redirect = f"http://127.0.0.1:{port}/secret"  # loopback to loopback, if ever asked
    reasons = {
        f"http://127.0.0.1:{port}/": "127.0.0.1 is a loopback address",
        f"http://localhost:{port}/hop": "localhost (127.0.0.1) is a loopback address",
        f"http://127.1:{port}/": "127.1 (127.0.0.1) is a loopback address",
        f"http://2130706433:{port}/": "2130706433 (127.0.0.1) is a loopback address",
        f"http://0x7f000001:{port}/": "0x7f000001 (127.0.0.1) is a loopback address",
        f"http://0x7f.1:{port}/": "is a loopback address",
        f"http://[::ffff:127.0.0.1]:{port}/": "loopback address (127.0.0.1 inside an IPv6",
        f"http://[::ffff:7f00:1]:{port}/": "loopback address (127.0.0.1 inside an IPv6",
        f"http://[::1]:{port}/": "::1 is a loopback address",
        f"http://0.0.0.0:{port}/": "0.0.0.0 is the unspecified address",
        f"http://0:{port}/": "0 (0.0.0.0) is the unspecified address",
        f"http://[::]:{port}/": ":: is the unspecified address",
        f"http://127.0.0.3:{port}/": "127.0.0.3 is a loopback address",
        f"https://127.0.0.1:{port}/": "127.0.0.1 is a loopback address",
        f"http://example.org@127.0.0.1:{port}/": "127.0.0.1 is a loopback address",
        f"http://LOCALHOST:{port}/": "localhost (127.0.0.1) is a loopback address",
        f"http://0177.0.0.1:{port}/": "is not a valid address",
        "http://10.1.2.3/": "10.1.2.3 is a private address",
        "http://169.254.169.254/latest/meta-data/": "169.254.169.254 is a link-local address",
        "http://[fd00::1]/": "fd00::1 is a private address",
        "http://100.64.0.1/": "100.64.0.1 is a shared (carrier-grade NAT) address",
    }
    answers = _learn(memory, list(reasons))
    for location, expected in reasons.items():
        refused, said = answers[location]
        assert refused, (location, said)
        assert expected in said, (location, said)
    assert "learn reads public web pages only" in answers[f"http://[::1]:{port}/"][1]
    assert "aria-mem learn URL" in answers[f"http://[::1]:{port}/"][1]
    assert local.connections == [] and local.requests == []
    assert memory.knowledge.list(companion="aria") == []


def test_the_person_still_reads_those_spellings_with_the_cli_reader(local: Site) -> None:
    """The control: every spelling does reach the local service when public pages are not
    asked for (the person's own `aria-mem learn URL`), so the refusals above are the rule's."""
    port = local.port
    for spelling in ("127.1", "2130706433", "0x7f000001", "localhost", "[::ffff:127.0.0.1]"):
        source, title, _ = documents.read(f"http://{spelling}:{port}/page")
        assert title == "Kilns" and source == f"http://{spelling}:{port}/page"
    assert len(local.requests) == 5


def test_a_redirect_hop_to_this_machine_is_refused(
    memory: AriaMem, local: Site, public: Site
) -> None:
    port = local.port
    targets = (
        f"http://127.0.0.1:{port}/secret",
        f"http://localhost:{port}/secret",
        f"http://2130706433:{port}/secret",
        f"http://[::ffff:127.0.0.1]:{port}/secret",
        "/../../secret",  # relative: stays on the stand-in, which is allowed
    )
    said: list[tuple[bool, str]] = []
    for target in targets:
        public.redirect = target
        said.append(
            _learn(memory, [f"http://{STAND_IN}:{port}/hop"])[f"http://{STAND_IN}:{port}/hop"]
        )
    for (refused, text), target in zip(said[:-1], targets, strict=False):
        assert refused and "is a loopback address" in text, (target, text)
        assert f"{target} (http://{STAND_IN}:{port}/hop redirects to it) was not" in text
    assert not said[-1][0], said[-1]
    assert local.connections == [] and local.requests == []
    assert [path for path, _ in public.requests] == ["/hop"] * 5 + ["/secret"]


def test_a_name_is_resolved_once_and_fetched_from_that_address(
    memory: AriaMem, local: Site, public: Site, monkeypatch: pytest.MonkeyPatch
) -> None:
    """DNS rebinding: the name first resolves to the (stand-in) public address, then to
    loopback. The fetch connects to the address that was judged, without asking again."""
    real = socket.getaddrinfo
    asked: list[str] = []

    def rebinding(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        if host != "rebind.example":
            return real(host, port, *args, **kwargs)
        asked.append(host)
        address = str(STAND_IN) if len(asked) == 1 else "127.0.0.1"
        return real(address, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", rebinding)
    page = f"http://rebind.example:{local.port}/kilns"
    refused, said = _learn(memory, [page])[page]
    assert not refused, said
    assert asked == ["rebind.example"]
    assert public.requests == [("/kilns", f"rebind.example:{local.port}")]
    assert local.connections == []
    assert [s.source for s in memory.knowledge.list(companion="aria")] == [page]

    refused, said = _learn(memory, [page])[page]  # resolved afresh: loopback now, refused
    assert refused and "rebind.example (127.0.0.1) is a loopback address" in said
    assert asked == ["rebind.example"] * 2 and local.connections == []


def test_a_pinned_fetch_tries_the_next_judged_address_when_one_cannot_be_reached(
    public: Site,
) -> None:
    closed = ipaddress.ip_address("127.0.0.4")  # nothing listens there at this port

    def resolver(host: str, port: int) -> list[IPAddress]:
        assert host == "kilns.example"
        return [closed, STAND_IN]

    reader = DocumentFetcher(
        resolver=resolver, judge=lambda ip: None if ip in (closed, STAND_IN) else "local"
    )
    source, title, _ = reader.read(f"http://kilns.example:{public.port}/k", public_only=True)
    assert (source, title) == (f"http://kilns.example:{public.port}/k", "Kilns")
    assert public.requests == [("/k", f"kilns.example:{public.port}")]


def _certificates(folder: Path, name: str) -> tuple[Path, ssl.SSLContext]:
    """A CA (its PEM file, for the client to trust) and a server context whose certificate,
    signed by it, is for ``name`` only (not for any address)."""
    x509 = pytest.importorskip("cryptography.x509")
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    now = datetime.datetime.now(datetime.UTC)

    def made(subject: str, key: Any, issuer: str, signer: Any, ca: bool) -> Any:
        builder = (
            x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)]))
            .issuer_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, issuer)]))
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
        )
        if not ca:
            builder = builder.add_extension(
                x509.SubjectAlternativeName([x509.DNSName(subject)]), critical=False
            )
        return builder.sign(signer, hashes.SHA256())

    ca_key, key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    ca = made("test CA", ca_key, "test CA", ca_key, True)
    leaf = made(name, key, "test CA", ca_key, False)
    pem = serialization.Encoding.PEM
    (folder / "ca.pem").write_bytes(ca.public_bytes(pem))
    (folder / "leaf.pem").write_bytes(
        leaf.public_bytes(pem)
        + key.private_bytes(pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(folder / "leaf.pem")
    return folder / "ca.pem", context


def test_a_pinned_https_fetch_sends_the_name_and_checks_the_certificate_against_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Connected to an address, the TLS handshake still names the host (SNI) and the
    certificate is checked against the name: one for kilns.example passes, and the same server
    reached as other.example fails."""
    ca, context = _certificates(tmp_path, "kilns.example")
    names: list[str | None] = []

    def heard(_conn: ssl.SSLObject, name: str | None, _context: ssl.SSLContext) -> None:
        names.append(name)

    context.sni_callback = heard
    site = Site(str(STAND_IN), 0)
    stop = _serve(site, tls=context)
    monkeypatch.setenv("SSL_CERT_FILE", str(ca))  # the person's CA bundle (the CLI's reader)
    reader = DocumentFetcher(resolver=lambda host, port: [STAND_IN], judge=stand_in_judge)
    try:
        source, title, _ = reader.read(f"https://kilns.example:{site.port}/k")
        assert (source, title) == (f"https://kilns.example:{site.port}/k", "Kilns")
        with pytest.raises(ServiceError, match="certificate"):
            reader.read(f"https://other.example:{site.port}/k")
    finally:
        stop()
    assert site.requests == [("/k", f"kilns.example:{site.port}")]
    assert names == ["kilns.example", "other.example"]


def test_a_name_with_one_local_address_among_public_ones_is_refused(
    local: Site, public: Site
) -> None:
    """Every address a name resolves to is judged, not only the first: a connection could
    fall through to any of them."""
    loopback = ipaddress.ip_address("127.0.0.1")
    reader = DocumentFetcher(resolver=lambda host, port: [STAND_IN, loopback], judge=stand_in_judge)
    with pytest.raises(UsageError, match=r"mixed\.example \(127\.0\.0\.1\) is a loopback"):
        reader.read(f"http://mixed.example:{local.port}/", public_only=True)
    assert public.connections == [] and local.connections == []


def test_public_only_uses_no_proxy_from_the_environment(
    local: Site, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A proxy resolves names itself, so over MCP none is used; the person's CLI reader still
    goes through theirs (here the local site plays the proxy), even for a name this machine
    cannot resolve."""
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{local.port}")
    page = "http://kilns.invalid/page"
    with pytest.raises(ServiceError, match="Could not find the host kilns.invalid"):
        DocumentFetcher().read(page, public_only=True)
    assert local.connections == []
    source, title, _ = DocumentFetcher().read(page)
    assert (source, title) == (page, "Kilns")
    assert local.requests == [(page, "kilns.invalid")]


def test_public_only_refuses_a_path(tmp_path: Path) -> None:
    diary = tmp_path / "diary.md"
    diary.write_text("# Diary\n")
    with pytest.raises(UsageError, match="public web pages only"):
        DocumentFetcher().read(str(diary), public_only=True)


@pytest.mark.parametrize(
    ("address", "reason"),
    [
        ("8.8.8.8", None),
        ("93.184.216.34", None),
        ("2606:4700::1111", None),
        ("127.0.0.1", "a loopback address"),
        ("127.255.255.254", "a loopback address"),
        ("::1", "a loopback address"),
        ("0.0.0.0", "the unspecified address"),
        ("::", "the unspecified address"),
        ("10.0.0.1", "a private address"),
        ("172.16.0.1", "a private address"),
        ("192.168.1.1", "a private address"),
        ("fd12:3456::1", "a private address"),
        ("fec0::1", "a private address"),
        ("169.254.169.254", "a link-local address"),
        ("fe80::1", "a link-local address"),
        ("224.0.0.1", "a multicast address"),
        ("ff02::1", "a multicast address"),
        ("100.64.0.1", "a shared (carrier-grade NAT) address"),
        ("192.0.2.1", "a private address"),
        ("240.0.0.1", "a private address"),
        ("255.255.255.255", "a private address"),
        ("::ffff:127.0.0.1", "a loopback address (127.0.0.1 inside an IPv6 address)"),
        ("::127.0.0.1", "a loopback address (127.0.0.1 inside an IPv6 address)"),
        ("2002:7f00:1::", "a loopback address (127.0.0.1 inside an IPv6 address)"),
        ("2002:a00:1::", "a private address (10.0.0.1 inside an IPv6 address)"),
        ("64:ff9b::7f00:1", "a loopback address (127.0.0.1 inside an IPv6 address)"),
        ("64:ff9b::808:808", None),
        ("::ffff:8.8.8.8", None),
        ("::8.8.8.8", "a reserved address"),
        ("64:ff9b:1::1", "a private address"),
        ("2001:0:4136:e378:8000:63bf:80ff:fffe", "a loopback address"),
    ],
)
def test_which_addresses_are_public(address: str, reason: str | None) -> None:
    found = why_not_public(ipaddress.ip_address(address))
    assert found == reason if reason is None else found is not None and reason in found


@given(st.integers(min_value=0, max_value=2**32 - 1))
def test_an_ipv4_address_inside_an_ipv6_one_is_never_more_public(number: int) -> None:
    v4 = ipaddress.IPv4Address(number)
    if why_not_public(v4) is None:
        return
    for v6 in (
        ipaddress.IPv6Address(f"::ffff:{v4}"),
        ipaddress.IPv6Address((0x2002 << 112) | (number << 80)),
        ipaddress.IPv6Address(f"64:ff9b::{v4}"),
    ):
        assert why_not_public(v6) is not None, v6
