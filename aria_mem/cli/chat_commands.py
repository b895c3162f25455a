"""The slash commands of `aria-mem chat`."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from aria_mem.cli import mentions, render, search_view
from aria_mem.cli.render import markup_safe, safe
from aria_mem.errors import AriaMemError

if TYPE_CHECKING:
    from aria_mem.api import AriaMem
    from aria_mem.api.hooks import ChatSession

HELP = """[bold]commands[/bold]
  /remember TEXT   remember a fact now
  /forget          forget one of the memories used in the last reply
  /why             why those memories were (or were not) used
  /prompt          the exact prompt sent to the model for the last reply
  /model [NAME]    show the chat model, or reply with another from now on
  /system [TEXT]   show the persona, set it for this conversation, or `/system reset`
  /history         this conversation so far
  /new             start a new conversation (this one stays stored)
  /status          are PostgreSQL, the index and the models reachable?
  /quit            leave (Ctrl-D works too; Ctrl-C stops a reply, not the session)

[bold]writing[/bold]
  Alt-Enter adds a line; a pasted block of lines is one message; a message that starts with
  \"\"\" goes on until a line that ends with \"\"\"."""

HISTORY_SHOWN = 40


def ago(then: datetime, now: datetime | None = None) -> str:
    """'just now', '5 minutes ago', '2 days ago': how people say how long ago."""
    seconds = max(0.0, ((now or datetime.now(UTC)) - then).total_seconds())
    for unit, size in (("day", 86_400), ("hour", 3_600), ("minute", 60)):
        count = int(seconds // size)
        if count:
            return f"{count} {unit}{'s' if count != 1 else ''} ago"
    return "just now"


def resumed_line(session: ChatSession) -> str | None:
    found = session.resumed
    if found is None:
        return None
    turns = f"{found.turns} turn{'s' if found.turns != 1 else ''}"
    return f"resuming a conversation from {ago(found.updated_at)}, {turns}; /new to start over"


def run(line: str, session: ChatSession, mem: AriaMem, persona: Callable[[], str]) -> bool:
    """Run a slash command; False to leave the session. ``persona`` is the companion's name
    as shown."""
    console = render.console
    name, _, rest = line.partition(" ")
    rest = rest.strip()
    try:
        if name in ("/quit", "/exit"):
            return False
        handler = _COMMANDS.get(name)
        if handler is None:
            console.print(
                f"[yellow]unknown command {markup_safe(name)}[/yellow] — /help lists them"
            )
        else:
            handler(rest, session, mem, persona())
    except AriaMemError as exc:
        console.print(f"[red]{markup_safe(str(exc))}[/red]")
    except (KeyboardInterrupt, EOFError):  # at a question the command asked: cancel it
        console.print(" [dim](cancelled)[/dim]")
    return True


def _help(rest: str, session: ChatSession, mem: AriaMem, persona: str) -> None:
    render.console.print(HELP)


def _remember(rest: str, session: ChatSession, mem: AriaMem, persona: str) -> None:
    if not rest:
        render.console.print("[yellow]usage: /remember TEXT[/yellow]")
        return
    result = mem.remember(rest, user=session.user_id, companion=session.companion_id)
    render.write_line("Remembered" if result.created else "Already known — confirmed", result)


def _forget(rest: str, session: ChatSession, mem: AriaMem, persona: str) -> None:
    console = render.console
    last = session.last
    used = [r.memory for r in last.retrieval.chosen] if last and last.retrieval else []
    if not used:
        console.print("No memories were used in the last reply.")
        return
    for n, used_memory in enumerate(used, start=1):
        console.print(f"  {n}. {markup_safe(used_memory.text)}")
    choice = console.input("forget which (number, Enter to cancel)? ").strip()
    if not (choice.isdigit() and 1 <= int(choice) <= len(used)):
        return
    chosen = used[int(choice) - 1]
    scope = {"user": session.user_id, "companion": session.companion_id}
    render.write_line("Forgotten", mem.forget(chosen.id, **scope))
    found = mem.conversations.turns_mentioning(chosen.text, **scope)
    if not found:
        return
    if mentions.ask_to_forget(found):
        gone = mem.conversations.forget_turns(found, **scope)
        session.drop_from_history({turn.content for turn in found})
        console.print(f"Forgot {gone} chat turns; they will not be replayed.")


def _why(rest: str, session: ChatSession, mem: AriaMem, persona: str) -> None:
    last = session.last
    if last and last.retrieval:
        search_view.explain(last.retrieval)
    else:
        render.console.print("Nothing to explain yet — send a message first.")


def _prompt(rest: str, session: ChatSession, mem: AriaMem, persona: str) -> None:
    console = render.console
    last = session.last
    if last is None:
        console.print("No prompt yet — send a message first.")
        return
    for message in last.prompt.messages:
        console.print(f"[bold]── {message['role']} ──[/bold]")
        console.print(safe(message["content"], keep_lines=True), markup=False, highlight=False)
    trimmed = last.prompt.trimmed
    console.print(
        f"[dim]{last.prompt.tokens} of {last.prompt.budget} tokens; "
        f"trimmed {', '.join(trimmed.order) or 'nothing'}[/dim]"
    )


def _model(rest: str, session: ChatSession, mem: AriaMem, persona: str) -> None:
    if not rest:
        render.console.print(f"chatting with {markup_safe(session.model_name)}")
        return
    render.console.print(f"now chatting with {markup_safe(session.switch_model(rest))}")


def _system(rest: str, session: ChatSession, mem: AriaMem, persona: str) -> None:
    console = render.console
    if not rest:
        console.print(safe(session.system_prompt, keep_lines=True), markup=False, highlight=False)
        return
    if rest.lower() == "reset":
        session.set_system_prompt(None)
        console.print("The persona is the configured one again.")
        return
    session.set_system_prompt(rest)
    console.print("The persona is set for this conversation (/system reset to undo).")


def _history(rest: str, session: ChatSession, mem: AriaMem, persona: str) -> None:
    console = render.console
    turns = session.transcript()
    if not turns:
        console.print("Nothing said yet in this conversation.")
        return
    if len(turns) > HISTORY_SHOWN:
        console.print(
            f"[dim]… {len(turns) - HISTORY_SHOWN} earlier turns (`aria-mem conversations "
            f"show {session.conversation_id}` shows them all)[/dim]"
        )
    for turn in turns[-HISTORY_SHOWN:]:
        who = "[bold cyan]you[/bold cyan]" if turn.role == "user" else f"[bold]{persona}[/bold]"
        console.print(f"{who}: {markup_safe(turn.content, keep_lines=True)}", highlight=False)


def _new(rest: str, session: ChatSession, mem: AriaMem, persona: str) -> None:
    session.new_conversation()
    render.console.print(
        "A new conversation. The earlier one stays stored (`aria-mem conversations list`)."
    )


def _status(rest: str, session: ChatSession, mem: AriaMem, persona: str) -> None:
    from aria_mem.api.status_json import status_json

    render.status_report(status_json(mem.admin.status()))


_COMMANDS: dict[str, Callable[[str, ChatSession, AriaMem, str], None]] = {
    "/help": _help,
    "/remember": _remember,
    "/forget": _forget,
    "/why": _why,
    "/prompt": _prompt,
    "/model": _model,
    "/system": _system,
    "/history": _history,
    "/new": _new,
    "/status": _status,
}
