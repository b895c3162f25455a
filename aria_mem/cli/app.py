"""The `aria-mem` command."""

from __future__ import annotations

import copy
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated

import typer
import typer.core
import typer.main

from aria_mem.cli import (
    admin,
    chat,
    conversations,
    forgetting,
    hygiene,
    knowledge,
    logs,
    mcp,
    memories,
    search,
    serve,
    transfer,
    ui,
    upkeep,
)
from aria_mem.cli.context import State
from aria_mem.cli.render import err_console, markup_safe
from aria_mem.errors import AriaMemError, UsageError
from aria_mem.private import restrict_umask

app = typer.Typer(
    name="aria-mem",
    help="The memory layer of a local AI companion: remembers facts about a user in "
    "PostgreSQL and finds the right ones by meaning through Qdrant.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode="markdown",
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _print_version(wanted: bool) -> None:
    if wanted:
        from importlib.metadata import version

        sys.stdout.write(f"aria-mem {version('aria-mem')}\n")
        raise typer.Exit()


@app.callback()
def _root(
    ctx: typer.Context,
    config_path: Annotated[
        Path | None,
        typer.Option(
            "--config",
            envvar="ARIA_MEM_CONFIG",
            help="Config file (default: the platform's "
            "user config dir, or $ARIA_MEM_HOME/config.toml).",
            show_default=False,
        ),
    ] = None,
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            is_eager=True,
            callback=_print_version,
            help="Print aria-mem's version and exit.",
        ),
    ] = False,
    verbose: Annotated[int, typer.Option("--verbose", "-v", count=True, help=VERBOSE_HELP)] = 0,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help=QUIET_HELP)] = False,
    no_service: Annotated[
        bool,
        typer.Option(
            "--no-service",
            help="Run the command in this process, not as a request to the aria-mem service "
            "(which still holds the embedded index and the in-process model).",
        ),
    ] = False,
) -> None:
    logs.configure_command_logging(_log_level(verbose))
    ctx.obj = State(config_path)
    ctx.obj.verbose = verbose
    ctx.obj.no_service = no_service
    ctx.call_on_close(ctx.obj.close)
    if quiet:
        err_console.quiet = True


VERBOSE_HELP = "Log more (-v info, -vv debug); errors are always logged."
QUIET_HELP = "No progress bars or notices on stderr; errors are still shown."


def _log_level(verbose: int) -> int:
    return logging.ERROR if verbose == 0 else logging.INFO if verbose == 1 else logging.DEBUG


def _more_verbose(ctx: typer.Context, count: int) -> None:
    if count:
        root = ctx.find_root().obj
        before = root.verbose if isinstance(root, State) else 0
        logs.set_command_level(_log_level(before + count))


def _quieter(wanted: bool) -> None:
    if wanted:
        err_console.quiet = True


_after_subcommand = typer.Typer()


@_after_subcommand.command()
def _flags(
    verbose: Annotated[
        int,
        typer.Option(
            "--verbose",
            "-v",
            count=True,
            expose_value=False,
            callback=_more_verbose,
            help=VERBOSE_HELP,
        ),
    ] = 0,
    quiet: Annotated[
        bool,
        typer.Option("--quiet", "-q", expose_value=False, callback=_quieter, help=QUIET_HELP),
    ] = False,
) -> None:
    """Only a holder: typer builds the two options, which every subcommand then takes."""


def command(arguments: Sequence[str] = ()) -> typer.core.TyperGroup:
    """The command tree, where -v and -q are accepted after any subcommand too
    (`aria-mem search "x" -v`), as they are before it.

    When ``arguments`` start with a command's name the tree holds that command alone: typer
    turns each command's signature into click's at every start (~55 ms for all of them, ~6 ms
    for one), and a run uses one. Anything else (no command, an option first, a typo, shell
    completion) gets the whole tree, so help, suggestions and completion see every command."""
    completing = "_ARIA_MEM_COMPLETE" in os.environ  # click's shell completion
    first = arguments[0] if arguments else None
    root = typer.main.get_command(app if completing else _only(first))
    flags = typer.main.get_command(_after_subcommand).params

    def add_to(group: object) -> None:
        for sub in getattr(group, "commands", {}).values():
            taken = {name for param in sub.params for name in param.opts}
            sub.params.extend(flag for flag in flags if not taken & set(flag.opts))
            add_to(sub)

    add_to(root)
    assert isinstance(root, typer.core.TyperGroup)
    return root


def _only(name: str | None) -> typer.Typer:
    """``app`` with only the command or group called ``name`` (all of it when none is)."""
    commands = [
        c
        for c in app.registered_commands
        if c.callback is not None
        and (c.name or typer.main.get_command_name(c.callback.__name__)) == name
    ]
    groups = [g for g in app.registered_groups if g.name == name]
    if not commands and not groups:
        return app
    lean = copy.copy(app)
    lean.registered_commands = commands
    lean.registered_groups = groups
    return lean


memories.register(app)
hygiene.register(app)
forgetting.register(app)
transfer.register(app)
search.register(app)
upkeep.register(app)
chat.register(app)
knowledge.register(app)
conversations.register(app)
admin.register(app)
mcp.register(app)
ui.register(app)
serve.register(app)


def _refuse_undecodable_arguments() -> None:
    """Python hands over bytes that are not UTF-8 as lone surrogates; nothing downstream
    (PostgreSQL, JSON, the terminal) can take them, so they are refused here, by position."""
    for position, argument in enumerate(sys.argv[1:], start=1):
        try:
            argument.encode("utf-8")
        except UnicodeEncodeError:
            raw = argument.encode("utf-8", "surrogateescape")
            raise UsageError(
                f"argument {position} ({raw!r}) is not valid UTF-8 text — give it as UTF-8"
            ) from None


FLAGS = {
    "config_path": "--config",
    "skip_invalid": "--skip-invalid",
    "address": "--address",
    "http": "--http",
    "mcp_http": "--mcp-http",
    "allow_remote": "--allow-remote",
}
"""The command line's spelling of the arguments an error names as its way out."""


def with_flag(exc: AriaMemError) -> str:
    """The error's message, ended by the flag that gets past it where it names one (a message
    that ends with the argument's API name in brackets has it replaced by the flag)."""
    text, flag = str(exc), FLAGS.get(exc.option)
    if not flag:
        return text
    return text.removesuffix(f" ({exc.option})") + f" ({flag})"


def main() -> None:
    restrict_umask()
    try:
        _refuse_undecodable_arguments()
        command(sys.argv[1:])(prog_name="aria-mem")
    except AriaMemError as exc:
        err_console.quiet = False
        err_console.print(
            f"[red]error:[/red] {markup_safe(with_flag(exc), keep_lines=True)}",
            highlight=False,
            soft_wrap=True,
        )
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        err_console.quiet = False
        err_console.print("interrupted")
        sys.exit(130)
