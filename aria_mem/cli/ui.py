"""`aria-mem ui`: the review page, where a person sees, corrects and deletes what the
companion remembers."""

from __future__ import annotations

import contextlib
import json
import signal
import sys
from typing import Annotated

import typer

from aria_mem.cli.context import memory, whose
from aria_mem.cli.memories import CompanionOpt, JsonOpt, UserOpt
from aria_mem.cli.render import err_console, markup_safe
from aria_mem.errors import UsageError

DEFAULT_ADDRESS = "127.0.0.1:8766"


def ui(
    ctx: typer.Context,
    address: Annotated[
        str,
        typer.Option(
            "--address",
            metavar="HOST:PORT",
            help="Where the page listens: loopback unless --allow-remote; port 0 picks a free one.",
        ),
    ] = DEFAULT_ADDRESS,
    no_browser: Annotated[
        bool,
        typer.Option(
            "--no-browser",
            help="Do not open a browser; print the page's login address (it holds the page's "
            "secret: open it in your own browser, share it with no one).",
        ),
    ] = False,
    allow_remote: Annotated[
        bool,
        typer.Option(
            "--allow-remote",
            help="Let the page listen on an address other machines can reach. It still wants "
            "the secret, but plain HTTP carries it unencrypted: use it only on a network you "
            "trust.",
        ),
    ] = False,
    user: UserOpt = None,
    companion: CompanionOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Open the review page: see, search, correct and delete what the companion remembers.

    The page lists the memories of one user and companion (search by words and meaning,
    filters, sort, paging), each with its history; edit, pin, archive, restore, confirm and
    forget them; see why a message would bring a memory up; decide the review queue; see
    and forget stored conversations and learned knowledge; export everything; check status.

    It runs until you stop it (Ctrl-C). Loopback is open to every account on this machine,
    so the page wants a secret made when it starts: the browser gets it once, through a file
    only you can read, and keeps a session cookie; every change also carries a token from
    the page. With --no-browser the login address is printed instead (--json: as JSON).

    Example: aria-mem ui

    Example: aria-mem ui --no-browser --address 127.0.0.1:0 --user sam
    """
    from aria_mem import mcp_guard

    try:
        from aria_mem.web import serve  # and with it every library the page needs
    except ImportError as exc:
        missing = (exc.name or "a library").partition(".")[0]
        if missing == "aria_mem":
            raise  # not a library that is missing: aria-mem's own fault, with its traceback
        raise UsageError(
            f"`aria-mem ui` needs the web parts ({missing} is missing) — pip install 'aria-mem[ui]'"
        ) from exc
    host, port = mcp_guard.parse_address(
        address, allow_remote=allow_remote, option="address", free_port=True
    )
    mem = memory(ctx)
    user_id, companion_id = whose(mem, user, companion)
    bound = serve.bind(host, port)
    open_file = None if no_browser else serve.write_open_file(mem.settings.data_dir, bound)

    def ready() -> None:
        if as_json:
            sys.stdout.write(
                json.dumps({"url": bound.url, "login": bound.login_url if no_browser else None})
                + "\n"
            )
        elif no_browser:
            sys.stdout.write(bound.login_url + "\n")
        sys.stdout.flush()
        where = f"the page for {user_id} / {companion_id} at {bound.origin}"
        if open_file is not None and serve.open_browser(open_file):
            err_console.print(f"Opened {markup_safe(where)} in your browser. Ctrl-C stops it.")
        elif open_file is not None:
            err_console.print(
                f"Serving {markup_safe(where)}. No browser could be started: open "
                f"{markup_safe(open_file.as_uri())} in yours (only you can read it). "
                "Ctrl-C stops it.",
                highlight=False,
            )
        else:
            err_console.print(
                f"Serving {markup_safe(where)}: open the address above in your browser; it "
                "holds the page's secret. Ctrl-C stops it.",
                highlight=False,
            )

    def stop(signum: int, frame: object) -> None:
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, stop)  # the page's server hands SIGTERM back once it is down
    try:
        serve.run(mem, bound, user=user_id, companion=companion_id, on_ready=ready)
    finally:
        if open_file is not None:
            with contextlib.suppress(OSError):
                open_file.unlink()


def register(app: typer.Typer) -> None:
    app.command()(ui)
