"""`aria-mem serve`: an OpenAI-compatible endpoint, so any chat app that speaks OpenAI's chat
completions (Open WebUI, SillyTavern, LibreChat, Msty, Chatbox, the ``openai`` package) talks
to the configured chat model with aria-mem's memories in front of it.

- ``protocol``: what crosses the socket (requests read and checked, replies, chunks and
  errors in OpenAI's shapes; who is talking), with no I/O;
- ``app``: the ASGI app (the two routes, the bounds, the Host check and the bearer gate);
- ``serving``: the key, the socket, uvicorn with the review page's connection limits.

The endpoint is built on the public API (``aria_mem.api.relay``) as the MCP server and the
review page are, and keeps its key as the HTTP MCP keeps its token (``mcp_guard``).
"""
