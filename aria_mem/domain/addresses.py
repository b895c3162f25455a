"""Splitting an address (a web page, a model server) into its parts, one way for every caller:
Python's parser, with the port read at once, so a malformed address (an unclosed IPv6 bracket,
a port that is not a number or out of range) fails here with the reason, not later in a fetch."""

from __future__ import annotations

from urllib.parse import SplitResult, urlsplit


def split_address(text: str) -> SplitResult:
    """``text``'s parts; ValueError names what is wrong with it."""
    parts = urlsplit(text)
    _ = parts.port
    return parts
