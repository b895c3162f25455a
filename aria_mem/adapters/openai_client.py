"""What the OpenAI-compatible chat and embedding adapters share: the ``/v1`` address a
server's ``host`` setting stands for, and a client of the official ``openai`` package that
reads nothing from the environment.

The ``openai`` client takes its key from OPENAI_API_KEY when none is given: a person's key
for OpenAI would then go to whichever local server is configured. So a fixed placeholder key
is always given (local servers such as Ollama and LM Studio accept any key).
"""

from __future__ import annotations

import openai

from aria_mem.domain.addresses import split_address

DEFAULT_HOST = "http://127.0.0.1:11434/v1"
"""Ollama's OpenAI-compatible API; LM Studio's is http://127.0.0.1:1234/v1."""
PLACEHOLDER_KEY = "aria-mem"


def base_url(host: str) -> str:
    """The API root for ``host`` (HOST:PORT or a URL): http:// when no scheme is given, and
    ``/v1`` when no path is (``http://127.0.0.1:1234`` means LM Studio's
    ``http://127.0.0.1:1234/v1``)."""
    text = (host.strip() or DEFAULT_HOST).rstrip("/")
    if "://" not in text:
        text = f"http://{text}"
    if not split_address(text).path.strip("/"):
        text += "/v1"
    return text


def make_client(host: str, timeout: float, *, direct: bool) -> openai.OpenAI:
    """A client that does not retry (the caller's own retries decide) and sends no key from
    the environment; ``direct`` (a server on this machine): nor through a proxy it names."""
    return openai.OpenAI(
        base_url=base_url(host),
        api_key=PLACEHOLDER_KEY,
        timeout=timeout,
        max_retries=0,
        http_client=openai.DefaultHttpxClient(trust_env=not direct),
    )


def reason(exc: openai.APIError) -> str:
    """What the server said, in one line."""
    if isinstance(exc, openai.APIStatusError):
        return f"HTTP {exc.status_code}: {exc.message}"
    return str(exc) or type(exc).__name__
