"""Splitting an address (a web page, a model server) into its parts, one way for every caller:
Python's parser, with the port read at once, so a malformed address (an unclosed IPv6 bracket,
a port that is not a number or out of range) fails here with the reason, not later in a fetch.

And which network addresses are public: what a page fetched for a model may connect to. The
rule is judged on an address a resolver gave, never on how a URL spells its host (``127.1``,
``2130706433``, ``0x7f000001`` and ``0177.0.0.1`` all name 127.0.0.1), and an IPv6 address
that carries an IPv4 one (``::ffff:127.0.0.1``, IPv4-compatible ``::127.0.0.1``, 6to4,
Teredo, NAT64 ``64:ff9b::/96``) is judged by the IPv4 address inside it too, since that is
where the packets may end up. A mapped or NAT64 address around a public IPv4 one is public
(an IPv6-only network's DNS64 answers every IPv4-only site that way)."""

from __future__ import annotations

import ipaddress
from urllib.parse import SplitResult, urlsplit

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

_SHARED = ipaddress.ip_network("100.64.0.0/10")
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_NAT64_LOCAL = ipaddress.ip_network("64:ff9b:1::/48")


def split_address(text: str) -> SplitResult:
    """``text``'s parts; ValueError names what is wrong with it."""
    parts = urlsplit(text)
    _ = parts.port
    return parts


def why_not_public(address: IPAddress) -> str | None:
    """None for a public (global unicast) address; otherwise what it is instead, as words
    that follow "is": "a loopback address", "a private address", ..."""
    if isinstance(address, ipaddress.IPv6Address):
        inner = _embedded_ipv4(address)
        if inner is not None:
            reason = why_not_public(inner)
            if reason is not None:
                return f"{reason} ({inner} inside an IPv6 address)"
            if address.ipv4_mapped is not None or address in _NAT64:
                return None  # the IPv4 address in other clothes (NAT64: what DNS64 answers)
    if address.is_unspecified:
        return "the unspecified address (it reaches this machine)"
    if address.is_loopback:
        return "a loopback address"
    if address.is_link_local:
        return "a link-local address"
    if address.is_multicast:
        return "a multicast address"
    if isinstance(address, ipaddress.IPv4Address) and address in _SHARED:
        return "a shared (carrier-grade NAT) address"
    if isinstance(address, ipaddress.IPv6Address) and (
        address.is_site_local or address in _NAT64_LOCAL
    ):
        return "a private address"
    if address.is_private:
        return "a private address"
    if address.is_reserved:
        return "a reserved address"
    if not address.is_global:
        return "not a public address"
    return None


def _embedded_ipv4(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 one carries (mapped, compatible, 6to4, Teredo's client,
    NAT64), or None."""
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if address.teredo is not None:
        return address.teredo[1]
    if address in _NAT64:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    if int(address) >> 32 == 0 and int(address) > 1:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)  # IPv4-compatible (::a.b.c.d)
    return None
