"""Rich rendering of memories and reports, kept apart from the commands."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from aria_mem.cli.terminal_text import markup_safe as markup_safe  # the commands' one import
from aria_mem.cli.terminal_text import safe as safe

if TYPE_CHECKING:
    from aria_mem.api import (
        Memory,
        WriteResult,
    )


PIPE_WIDTH = 4096
"""Output into a pipe or a file is as wide as its lines need (a 2,000-character memory
included), unless COLUMNS says otherwise: a table there must not wrap or lose columns."""


def _console(*, stderr: bool) -> Console:
    stream = sys.stderr if stderr else sys.stdout
    if stream.isatty() or os.environ.get("COLUMNS", "").strip().isdigit():
        return Console(stderr=stderr)
    return Console(stderr=stderr, width=PIPE_WIDTH)


console = _console(stderr=False)
err_console = _console(stderr=True)


def _when(value: datetime | None) -> str:
    return value.strftime("%Y-%m-%d %H:%M") if value else "—"


def memory_table(memories: Sequence[Memory]) -> Table:
    table = Table(show_lines=False, header_style="bold")
    table.add_column("id", style="cyan", no_wrap=True)
    table.add_column("type")
    table.add_column("text", overflow="fold")
    table.add_column("imp", justify="right")
    table.add_column("status")
    table.add_column("index")
    for m in memories:
        status = m.status.value + (" pinned" if m.pinned else "")
        if m.held_until_stage:
            status += f" held→{m.held_until_stage.value}"
        table.add_row(
            str(m.id)[:8],
            m.type.value,
            Text(safe(m.text)),
            f"{m.importance:.2f}",
            status,
            m.index_state.value,
        )
    return table


def memory_detail(m: Memory) -> Table:
    table = Table(show_header=False, box=None)
    table.add_column(style="bold")
    table.add_column(overflow="fold")
    rows = [
        ("id", str(m.id)),
        ("user / companion", f"{m.user_id} / {m.companion_id}"),
        ("type", m.type.value),
        ("text", m.text),
        ("importance", f"{m.importance:.2f}"),
        ("emotional significance", f"{m.emotional_significance:.2f}"),
        ("confidence", f"{m.confidence:.2f}"),
        ("reason", m.reason or "—"),
        ("pinned", "yes" if m.pinned else "no"),
        ("status", m.status.value),
        ("held until stage", m.held_until_stage.value if m.held_until_stage else "—"),
        ("expires", _when(m.expires_at)),
        ("created", _when(m.created_at)),
        ("updated", _when(m.updated_at)),
        ("last used", _when(m.last_used_at)),
        ("last confirmed", _when(m.last_confirmed_at)),
        ("uses", str(m.use_count)),
        ("index", m.index_state.value + (f" ({m.indexed_model})" if m.indexed_model else "")),
    ]
    if m.index_error:
        rows.append(("index error", m.index_error))
    for key, value in rows:
        table.add_row(key, Text(safe(value)))
    return table


def write_line(verb: str, result: WriteResult) -> None:
    """One line per write, naming the memory's type as stored (``--type profilefact`` is
    taken in any case; the line shows ProfileFact)."""
    memory = result.memory
    short = f"[cyan]{str(memory.id)[:8]}[/cyan] ({memory.type.value})"
    if result.problem and not result.indexed:
        console.print(
            f"{verb} {short} — saved in PostgreSQL; "
            f"[yellow]index update pending[/yellow]: {markup_safe(result.problem)}"
        )
    else:
        console.print(f"{verb} {short}")


def _daemon_detail(daemon: dict[str, Any]) -> str:
    if not daemon.get("running") or daemon.get("pid") is None:
        text = "not running (pending memories wait for `aria-mem sync` or the daemon)"
    else:
        age = daemon.get("heartbeat_age_s")
        text = (
            f"running, pid {daemon['pid']}, heartbeat {'?' if age is None else f'{age:.1f}'} s ago"
        )
        last = daemon.get("last_pass")
        if last:
            text += (
                f"; last pass indexed {last['indexed']}, removed {last['removed']}"
                f", {last['pending_left']} pending, {last['duration_ms']} ms"
            )
            if last.get("errors"):
                text += f", errors: {'; '.join(last['errors'])}"
        if daemon.get("last_sweep"):
            text += f"; last sweep removed {daemon['last_sweep']['orphans_removed']} orphans"
    reindex = daemon.get("reindex")
    if reindex is not None:
        text += f"; re-index to {reindex['model']}: {reindex['done']}/{reindex['total']}"
    return markup_safe(text)


def _detail(name: str, check: dict[str, Any]) -> str:
    """What a check adds to its target when it is ok."""
    if name == "embedder" and check["ok"]:
        return f" — {check['dimension']} dimensions"
    if name == "index" and check["ok"]:
        parts = [
            f"{c}: {info['points']} vectors of {info['vector_size']}"
            if info["vector_size"]
            else f"{c}: not created yet"
            for c, info in check["collections"].items()
        ]
        return " — " + ", ".join(parts) + _owner_detail(check.get("owner"))
    if name == "daemon":
        return " — " + _daemon_detail(check)
    if name == "dimension" and check["ok"] and not check["checked"]:
        return " — not checked (a service is down)"
    return ""


def _owner_detail(owner: dict[str, Any] | None) -> str:
    if owner is None:
        return ""
    how = {"on demand": "started on demand", "daemon": "`aria-mem daemon`"}
    started = how.get(owner["command"], f"`{owner['command']}`")
    model = f", model {owner['model']}" if owner["model"] else ", no model loaded"
    here = ", this process" if owner["pid"] == os.getpid() else ""
    return (
        f"; served by the aria-mem service (pid {owner['pid']}{here}, {markup_safe(started)}, "
        f"aria-mem {owner['version']}, up {owner['uptime_s']:.0f} s{markup_safe(model)})"
    )


def status_report(status: dict[str, Any]) -> None:
    """``operations.status_json``'s answer as a table: run here or by the aria-mem service,
    it renders alike."""
    table = Table(header_style="bold")
    table.add_column("check")
    table.add_column("")
    table.add_column("target / detail", overflow="fold")
    table.add_column("latency", justify="right")
    for name, check in status["checks"].items():
        mark = "[green]ok[/green]" if check["ok"] else "[red]FAIL[/red]"
        detail = markup_safe(check["target"]) + _detail(name, check)
        if check["error"]:
            detail += f"\n[red]{markup_safe(check['error'])}[/red]"
        latency = f"{check['latency_ms']:.1f} ms" if check["latency_ms"] is not None else ""
        table.add_row(name, mark, Text.from_markup(detail), latency)
    console.print(table)
    c = status["memories"]
    if c is not None:
        console.print(
            f"memories: {c['total']} ({c['active']} active, {c['archived']} archived, "
            f"{c['expired']} expired, {c['held']} held) — index: {c['indexed']} indexed, "
            f"{c['pending']} pending, {c['queued_deletions']} vector removals queued; "
            f"knowledge: {c['knowledge_passages']} passages ({c['knowledge_pending']} pending)"
        )
        if c["pending"] and c["last_index_error"]:
            console.print(
                f"[yellow]pending memories wait for the index[/yellow] — last error: "
                f"{markup_safe(c['last_index_error'])}"
            )
