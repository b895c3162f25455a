"""`aria-mem serve`: the OpenAI-compatible endpoint, its apps' settings, its key."""

from __future__ import annotations

import json
import signal
import sys
from typing import Annotated

import typer

from aria_mem.cli.context import memory, whose
from aria_mem.cli.memories import CompanionOpt, UserOpt
from aria_mem.cli.port_holder import say_who_holds
from aria_mem.cli.render import console, err_console, markup_safe
from aria_mem.errors import UsageError


def serve(
    ctx: typer.Context,
    address: Annotated[
        str,
        typer.Option(
            "--address",
            metavar="HOST:PORT",
            help="Where to listen (loopback only unless --allow-remote; port 0: any free one).",
        ),
    ] = "127.0.0.1:8766",
    allow_remote: Annotated[
        bool,
        typer.Option(
            "--allow-remote",
            help="Let --address be one other machines can reach. Apps still need the key, but "
            "plain HTTP sends it, and every message, unencrypted. Only on a network you trust, "
            "or behind TLS.",
        ),
    ] = False,
    print_config: Annotated[
        bool,
        typer.Option(
            "--print-config",
            help="Print the base URL and the API key to give the apps (as JSON) and exit. It "
            "holds the secret: keep any file you save it to private.",
        ),
    ] = False,
    rotate_key: Annotated[
        bool,
        typer.Option(
            "--rotate-key",
            help="Replace the key with a new one and exit; restart a running endpoint and "
            "give the apps the new key.",
        ),
    ] = False,
    concurrent: Annotated[
        int,
        typer.Option(min=1, max=64, help="Requests answered at once; one more gets 429."),
    ] = 4,
    user: UserOpt = None,
    companion: CompanionOpt = None,
) -> None:
    """Serve an OpenAI-compatible endpoint: any chat app that talks to Ollama or LM Studio
    the OpenAI way (Open WebUI, SillyTavern, LibreChat, Msty, Chatbox, the openai package)
    gets the companion's memories.

    POST /v1/chat/completions (streamed or not) and GET /v1/models at
    http://HOST:PORT/v1. Each request's last two user messages find the memories, which join
    the app's system message as data; the request goes on to the configured chat model and
    its reply comes back as the model gives it. Afterwards the uses are counted, the turns
    kept in the conversation log and facts extracted, in the background.

    Who is talking: the request's `user` field (else the X-Aria-Mem-User header, else
    --user / the config's), the companion before an @ in the model name (aria@llama3.2; else
    X-Aria-Mem-Companion, else --companion / the config's). Every request needs
    `Authorization: Bearer <key>` (the apps' "API key"), made on first use and kept in
    openai-key in aria-mem's config folder, readable by you only. See docs/openai.md.

    Example: aria-mem serve

    Example: aria-mem serve --print-config

    Example: aria-mem serve --address 127.0.0.1:8766 --user sam
    """
    from aria_mem import mcp_guard

    try:
        from aria_mem.openai_server import serving
        from aria_mem.openai_server.protocol import Limits
    except ImportError as exc:
        missing = (exc.name or "a library").partition(".")[0]
        if missing == "aria_mem":
            raise
        raise UsageError(
            f"`aria-mem serve` needs starlette and uvicorn ({missing} is missing) — "
            "pip install 'aria-mem[ui]'"
        ) from exc
    host, port = mcp_guard.parse_address(
        address, allow_remote=allow_remote, option="address", free_port=True
    )
    if print_config or rotate_key:
        if rotate_key:
            path = serving.rotate_key()
            (err_console if print_config else console).print(
                f"A new key is in {markup_safe(str(path))}. Restart a running `aria-mem serve` "
                "and give the apps the new key: `aria-mem serve --print-config`.",
                highlight=False,
            )
        if print_config:
            entry = {"base_url": serving.base_url(host, port), "api_key": serving.load_key()}
            sys.stdout.write(json.dumps(entry, indent=2) + "\n")
            say_who_holds(
                host,
                port,
                free="until `aria-mem serve` does, any account on this machine can take the "
                "port and receive the key an app sends. Keep it running (a systemd unit).",
                taken="an app using this key would send it to them. Choose another --address "
                "and run `aria-mem serve --rotate-key` if an app has already connected.",
            )
        return
    key = serving.load_key()
    mem = memory(ctx)
    user_id, companion_id = whose(mem, user, companion)
    server = serving.Server(
        mem,
        serving.bind(host, port),
        key,
        user_id,
        companion_id,
        Limits(concurrent=concurrent),
    )
    err_console.print(
        f"Serving the OpenAI-compatible endpoint at {markup_safe(server.url)} for "
        f"{markup_safe(user_id)} / {markup_safe(companion_id)} (unless a request says "
        f"otherwise), with the key in {markup_safe(str(serving.key_path()))} "
        "(`aria-mem serve --print-config` prints it). Ctrl-C stops it.",
        highlight=False,
    )
    # uvicorn stops on SIGTERM, then raises it again with the handler it found: let that one
    # be ours and do nothing, so the work that follows the last replies is waited for and the
    # command ends as it does after Ctrl-C, instead of being killed by the default handler.
    signal.signal(signal.SIGTERM, lambda signum, frame: None)
    server.run()


def register(app: typer.Typer) -> None:
    app.command()(serve)
