"""`aria-mem mcp`: serve the memories to MCP clients (stdio, or streamable HTTP on loopback
behind a bearer token), print a client's entry for the HTTP server, or rotate its token."""

from __future__ import annotations

import json
import sys
from typing import Annotated

import typer

from aria_mem.cli.context import memory, whose
from aria_mem.cli.memories import CompanionOpt, UserOpt
from aria_mem.cli.port_holder import say_who_holds
from aria_mem.cli.render import console, err_console, markup_safe
from aria_mem.errors import UsageError

DEFAULT_ADDRESS = "127.0.0.1:8765"


def mcp(
    ctx: typer.Context,
    http: Annotated[
        str | None,
        typer.Option(
            "--http",
            metavar="HOST:PORT",
            help="Serve streamable HTTP on this address (loopback only unless --allow-remote) "
            "instead of stdio; the endpoint is http://HOST:PORT/mcp and every request needs "
            "the bearer token (see --print-config).",
        ),
    ] = None,
    allow_remote: Annotated[
        bool,
        typer.Option(
            "--allow-remote",
            help="Let --http listen on an address other machines can reach. Clients still "
            "need the bearer token, but plain HTTP sends it unencrypted: whoever sees the "
            "traffic or the token reads and writes this user's memories. Use it only on a "
            "network you trust, or behind TLS.",
        ),
    ] = False,
    print_config: Annotated[
        bool,
        typer.Option(
            "--print-config",
            help="Print an mcp.json entry (LM Studio, Cursor) for the HTTP server at --http "
            f"(default {DEFAULT_ADDRESS}), token included, and exit. It holds the secret: "
            "keep any file you save it to private.",
        ),
    ] = False,
    rotate_token: Annotated[
        bool,
        typer.Option(
            "--rotate-token",
            help="Replace the HTTP token with a new one and exit; restart running servers "
            "and give clients the new entry.",
        ),
    ] = False,
    user: UserOpt = None,
    companion: CompanionOpt = None,
) -> None:
    """Serve this user's memories to MCP clients (LM Studio, Claude Desktop, editors).

    Tools: remember, search_memory, list_memories, forget_memory, confirm_memory, learn
    (web pages only: files are learned with `aria-mem learn`), status; the profile as the
    resource aria-mem://profile; the prompt with_memories. Every call is scoped to one user
    and companion (the config's, or --user / --companion). By default the server speaks MCP
    on stdin/stdout, for a client that starts it.

    Over HTTP every request must carry `Authorization: Bearer <token>`, or it gets 401:
    loopback is open to every account on the machine. The token is made on first use and
    kept in the file mcp-token in aria-mem's config folder (ARIA_MEM_HOME, else e.g.
    ~/.config/aria-mem), readable by you only; a server reads it when it starts.

    Example: aria-mem mcp --http 127.0.0.1:8765 --user sam

    Example: aria-mem mcp --print-config > aria-mem-mcp.json

    Example: aria-mem mcp --rotate-token
    """
    from aria_mem import mcp_guard

    if print_config or rotate_token:
        host, port = mcp_guard.parse_address(
            http or DEFAULT_ADDRESS, allow_remote=allow_remote, option="http"
        )
        if rotate_token:
            path = mcp_guard.rotate_token()
            # With --print-config, stdout carries the JSON alone.
            (err_console if print_config else console).print(
                f"A new MCP token is in {markup_safe(str(path))}. Restart running HTTP MCP "
                "servers (`aria-mem mcp --http`, `aria-mem daemon --mcp-http`) and give "
                "clients the new entry: `aria-mem mcp --print-config`.",
                highlight=False,
            )
        if print_config:
            entry = mcp_guard.client_entry(host, port, mcp_guard.load_token())
            sys.stdout.write(json.dumps(entry, indent=2) + "\n")
            say_who_holds(
                host,
                port,
                free="until an aria-mem MCP server does, any account on this machine can take "
                "the port and receive the token a client sends. Let `aria-mem daemon "
                "--mcp-http {where}` hold it for good.",
                taken="a client using this entry would send them its token. Stop that server "
                "or choose another port, and run `aria-mem mcp --rotate-token` if a client has "
                "already connected.",
            )
        return
    try:
        from aria_mem import mcp_server
    except ImportError as exc:
        raise UsageError(
            f"`aria-mem mcp` needs the MCP SDK ({exc.name} is missing) — "
            "pip install 'aria-mem[mcp]'"
        ) from exc
    address = (
        mcp_guard.parse_address(http, allow_remote=allow_remote, option="http") if http else None
    )
    token = mcp_guard.load_token() if address else None
    mem = memory(ctx)
    user_id, companion_id = whose(mem, user, companion)
    if address:
        host = f"[{address[0]}]" if ":" in address[0] else address[0]
        err_console.print(
            f"Serving MCP on http://{host}:{address[1]}/mcp for clients with the bearer "
            f"token in {markup_safe(str(mcp_guard.token_path()))} (`aria-mem mcp "
            "--print-config` prints their entry).",
            highlight=False,
        )
    mcp_server.serve(
        mem,
        user=user_id,
        companion=companion_id,
        http=address,
        token=token,
    )


def register(app: typer.Typer) -> None:
    app.command()(mcp)
