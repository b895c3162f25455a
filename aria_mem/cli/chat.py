"""`aria-mem chat`: a terminal conversation with the companion, with memory."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from aria_mem.cli import render
from aria_mem.cli.context import memory
from aria_mem.cli.memories import CompanionOpt, UserOpt
from aria_mem.cli.render import markup_safe, safe
from aria_mem.errors import ChatModelError, UsageError

if TYPE_CHECKING:
    from aria_mem.api.hooks import ChatSession


def chat(
    ctx: typer.Context,
    user: UserOpt = None,
    companion: CompanionOpt = None,
    model: Annotated[str | None, typer.Option(help="Chat model (default: [chat] model).")] = None,
    new: Annotated[
        bool,
        typer.Option("--new", help="Start a new conversation instead of resuming the last one."),
    ] = False,
    plain: Annotated[
        bool,
        typer.Option(
            "--plain", help="Show replies as the model writes them, without Markdown rendering."
        ),
    ] = False,
) -> None:
    """Talk with the companion in the terminal, with memory.

    Each message brings up the relevant memories (and the profile) while the reply target is
    worked out, fits them into the model's context window, and streams the reply. Turns are
    stored in PostgreSQL, so the conversation resumes next time. If memories cannot be
    reached the reply goes on with less context and a dim notice.

    In a terminal: arrow keys and Ctrl-A/E/K edit the line, Up/Down recall earlier messages
    (kept per user in the data folder, private), Alt-Enter adds a line, a pasted block is one
    message, and replies are shown as Markdown once each part is complete (--plain: as
    written). /help lists the in-chat commands (/model, /system, /new, /history, …).

    Example: aria-mem chat --model llama3.2
    """
    from aria_mem import chat_history
    from aria_mem.api.hooks import chat_session
    from aria_mem.cli import chat_commands, chat_input

    mem = memory(ctx)
    session = chat_session(mem, user=user, companion=companion, new=new, model=model)
    console = render.console
    try:
        mem.warm_up()
        persona = markup_safe(mem.settings.chat.persona_name)
        reader, reader_notice = chat_input.reader_for(
            console,
            lambda: chat_history.history_file(
                mem.settings.data_dir, session.user_id, session.companion_id
            ),
        )
        markdown = not plain and console.is_terminal
        console.print(
            f"[bold]{persona}[/bold] — chatting as {markup_safe(session.user_id)} "
            f"({markup_safe(session.model_name)}). /help for commands, /quit to leave."
        )
        notices = [*session.start_notices, chat_commands.resumed_line(session), reader_notice]
        for notice in notices:
            if notice:
                console.print(f"[dim]· {markup_safe(notice)}[/dim]")
        while True:
            try:
                line = chat_input.collect(reader.read(), lambda: reader.read(continuation=True))
            except KeyboardInterrupt:
                if reader.interactive:
                    continue  # as in a shell: Ctrl-C drops the line being written
                console.print()
                break
            except EOFError:
                console.print()
                break
            if not line.strip():
                continue
            if line.strip().startswith("/"):
                if not chat_commands.run(line.strip(), session, mem, lambda: persona):
                    break
                continue
            _turn(session, line, persona, markdown=markdown)
    finally:
        session.close()
        if session.unsaved_turns:
            console.print(
                f"[yellow]{session.unsaved_turns} turn(s) could not be saved "
                "(PostgreSQL unreachable).[/yellow]"
            )


def _turn(session: ChatSession, line: str, persona: str, *, markdown: bool) -> None:
    from aria_mem.cli.chat_output import MarkdownReply

    console = render.console
    try:
        turn = session.prepare(line)
    except UsageError as exc:
        console.print(f"[yellow]{markup_safe(str(exc))}[/yellow]")
        return
    for notice in turn.notices:
        console.print(f"[dim]· {markup_safe(notice)}[/dim]")
    reply = MarkdownReply(console) if markdown else None
    console.print(f"[bold magenta]{persona}[/bold magenta]>", end="\n" if reply else " ")
    stream = session.reply(turn)
    try:
        for piece in stream:
            if reply:
                reply.add(safe(piece, keep_lines=True))
            else:
                console.print(safe(piece, keep_lines=True), end="", markup=False, highlight=False)
                console.file.flush()
        if reply:
            reply.finish()
        else:
            console.print()
    except KeyboardInterrupt:
        if reply:
            reply.stop()
        console.print(" [dim](stopped)[/dim]")
    except ChatModelError as exc:
        if reply:
            reply.stop()
        console.print(
            f"\n[red]{markup_safe(str(exc))}[/red]\n[dim]Your message is kept; send "
            "another when the model is back.[/dim]"
        )
    finally:
        stream.close()


def register(app: typer.Typer) -> None:
    app.command()(chat)
