"""Who holds the port a client will send its secret to (`mcp --print-config`, `serve
--print-config`)."""

from __future__ import annotations

from aria_mem.cli.render import err_console, markup_safe


def say_who_holds(host: str, port: int, *, free: str, taken: str) -> None:
    """A client whose server is down sends its token or key to whatever listens on the
    port, and any account can listen on a free port: say so on stderr (stdout is the entry
    alone). ``free`` follows "Nothing listens on ADDRESS now: ", ``taken`` the warning that
    another account holds it; ``{where}`` in them is the address."""
    from aria_mem.listeners import listener

    holder = listener(host, port)
    where = holder.address
    if holder.known and not holder.listening:
        err_console.print(
            f"Nothing listens on {where} now: {free.format(where=where)}", highlight=False
        )
    elif holder.listening and not holder.yours:
        err_console.print(
            f"[red]warning: {where} is held by {markup_safe(holder.describe())}, not you[/red]"
            f" — {taken.format(where=where)}",
            highlight=False,
        )
