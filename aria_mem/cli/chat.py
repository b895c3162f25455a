"""`aria-mem chat`: a terminal conversation with the companion, with memory."""

from __future__ import annotations

from typing import Annotated

import typer

from aria_mem.api import AriaMem, ChatSession
from aria_mem.cli import render
from aria_mem.cli.context import memory
from aria_mem.cli.memories import CompanionOpt, UserOpt
from aria_mem.cli.render import markup_safe, safe
from aria_mem.errors import AriaMemError, ChatModelError

HELP = """[bold]commands[/bold]
  /remember TEXT   remember a fact now
  /forget          forget one of the memories used in the last reply
  /why             why those memories were (or were not) used
  /prompt          the exact prompt sent to the model for the last reply
  /status          are PostgreSQL, the index and the models reachable?
  /quit            leave (Ctrl-D works too; Ctrl-C stops a reply, not the session)"""


def chat(
    ctx: typer.Context,
    user: UserOpt = None,
    companion: CompanionOpt = None,
    model: Annotated[str | None, typer.Option(help="Chat model (default: [chat] model).")] = None,
    new: Annotated[
        bool,
        typer.Option("--new", help="Start a new conversation instead of resuming the last one."),
    ] = False,
) -> None:
    """Talk with the companion in the terminal, with memory.

    Each message brings up the relevant memories (and the profile) while the reply target is
    worked out, fits them into the model's context window, and streams the reply. Turns are
    stored in PostgreSQL, so the conversation resumes next time. If memories cannot be
    reached the reply goes on with less context and a dim notice.

    Example: aria-mem chat --model llama3.2
    """
    mem = memory(ctx)
    session = mem.chat(user=user, companion=companion, new=new, model=model)
    mem.warm_up()
    settings = mem.settings.chat
    console = render.console
    persona = markup_safe(settings.persona_name)
    console.print(
        f"[bold]{persona}[/bold] — chatting as {markup_safe(session.user_id)} "
        f"({markup_safe(settings.provider)} {markup_safe(model or settings.model)}). "
        "/help for commands, /quit to leave."
    )
    for notice in session.start_notices:
        console.print(f"[dim]· {markup_safe(notice)}[/dim]")
    try:
        while True:
            try:
                line = console.input("[bold cyan]you[/bold cyan]> ")
            except (EOFError, KeyboardInterrupt):
                console.print()
                break
            if not line.strip():
                continue
            if line.strip().startswith("/"):
                if not _command(line.strip(), session, mem):
                    break
                continue
            _turn(session, line, persona)
    finally:
        session.close()
        if session.unsaved_turns:
            console.print(
                f"[yellow]{session.unsaved_turns} turn(s) could not be saved "
                "(PostgreSQL unreachable).[/yellow]"
            )


def _turn(session: ChatSession, line: str, persona: str) -> None:
    console = render.console
    turn = session.prepare(line)
    for notice in turn.notices:
        console.print(f"[dim]· {markup_safe(notice)}[/dim]")
    console.print(f"[bold magenta]{persona}[/bold magenta]> ", end="")
    stream = session.reply(turn)
    try:
        for piece in stream:
            console.print(safe(piece, keep_lines=True), end="", markup=False, highlight=False)
            console.file.flush()
        console.print()
    except KeyboardInterrupt:
        console.print(" [dim](stopped)[/dim]")
    except ChatModelError as exc:
        console.print(
            f"\n[red]{markup_safe(str(exc))}[/red]\n[dim]Your message is kept; send "
            "another when the model is back.[/dim]"
        )
    finally:
        stream.close()


def _command(line: str, session: ChatSession, mem: AriaMem) -> bool:
    """Run a slash command; False to leave the session."""
    console = render.console
    name, _, rest = line.partition(" ")
    last = session.last
    try:
        if name in ("/quit", "/exit"):
            return False
        if name == "/help":
            console.print(HELP)
        elif name == "/remember":
            if not rest.strip():
                console.print("[yellow]usage: /remember TEXT[/yellow]")
            else:
                result = mem.remember(rest, user=session.user_id, companion=session.companion_id)
                render.write_line(
                    "Remembered" if result.created else "Already known — confirmed", result
                )
        elif name == "/forget":
            used = [r.memory for r in last.retrieval.chosen] if last and last.retrieval else []
            if not used:
                console.print("No memories were used in the last reply.")
                return True
            for n, used_memory in enumerate(used, start=1):
                console.print(f"  {n}. {markup_safe(used_memory.text)}")
            choice = console.input("forget which (number, Enter to cancel)? ").strip()
            if choice.isdigit() and 1 <= int(choice) <= len(used):
                render.write_line("Forgotten", mem.forget(used[int(choice) - 1].id))
        elif name == "/why":
            if last and last.retrieval:
                render.explain(last.retrieval)
            else:
                console.print("Nothing to explain yet — send a message first.")
        elif name == "/prompt":
            if last is None:
                console.print("No prompt yet — send a message first.")
            else:
                for message in last.prompt.messages:
                    console.print(f"[bold]── {message['role']} ──[/bold]")
                    console.print(
                        safe(message["content"], keep_lines=True), markup=False, highlight=False
                    )
                trimmed = last.prompt.trimmed
                console.print(
                    f"[dim]{last.prompt.tokens} of {last.prompt.budget} tokens; "
                    f"trimmed {', '.join(trimmed.order) or 'nothing'}[/dim]"
                )
        elif name == "/status":
            render.status_report(mem.status())
        else:
            console.print(
                f"[yellow]unknown command {markup_safe(name)}[/yellow] — /help lists them"
            )
    except AriaMemError as exc:
        console.print(f"[red]{markup_safe(str(exc))}[/red]")
    return True


def register(app: typer.Typer) -> None:
    app.command()(chat)
