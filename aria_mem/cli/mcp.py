"""`aria-mem mcp`: serve the memories to MCP clients (stdio, or streamable HTTP on loopback)."""

from __future__ import annotations

from typing import Annotated

import typer

from aria_mem.cli.context import memory
from aria_mem.cli.memories import CompanionOpt, UserOpt
from aria_mem.domain.validation import identifier
from aria_mem.errors import UsageError


def mcp(
    ctx: typer.Context,
    http: Annotated[
        str | None,
        typer.Option(
            "--http",
            metavar="HOST:PORT",
            help="Serve streamable HTTP on this address (loopback only unless --allow-remote) "
            "instead of stdio; the endpoint is http://HOST:PORT/mcp.",
        ),
    ] = None,
    allow_remote: Annotated[
        bool,
        typer.Option(
            "--allow-remote",
            help="Let --http listen on an address other machines can reach. The server has no "
            "authentication: whoever reaches it reads and writes this user's memories.",
        ),
    ] = False,
    user: UserOpt = None,
    companion: CompanionOpt = None,
) -> None:
    """Serve this user's memories to MCP clients (LM Studio, Claude Desktop, editors).

    Tools: remember, search_memory, list_memories, forget_memory, confirm_memory, learn,
    status; the profile as the resource aria-mem://profile; the prompt with_memories. Every
    call is scoped to one user and companion (the config's, or --user / --companion). By
    default the server speaks MCP on stdin/stdout, for a client that starts it.

    Example: aria-mem mcp --http 127.0.0.1:8765 --user sam
    """
    try:
        from aria_mem import mcp_server
    except ImportError as exc:
        raise UsageError(
            f"`aria-mem mcp` needs the MCP SDK ({exc.name} is missing) — "
            "pip install 'aria-mem[mcp]'"
        ) from exc
    address = mcp_server.parse_address(http, allow_remote=allow_remote) if http else None
    mem = memory(ctx)
    identity = mem.settings.identity
    mcp_server.serve(
        mem,
        user=identifier("user", identity.user if user is None else user),
        companion=identifier("companion", identity.companion if companion is None else companion),
        http=address,
    )


def register(app: typer.Typer) -> None:
    app.command()(mcp)
