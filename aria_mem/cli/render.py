"""Rich rendering of memories and reports, kept apart from the commands."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from dataclasses import asdict
from datetime import datetime
from typing import TYPE_CHECKING

from rich.console import Console
from rich.table import Table
from rich.text import Text

from aria_mem.cli.terminal_text import markup_safe as markup_safe  # the commands' one import
from aria_mem.cli.terminal_text import safe as safe

if TYPE_CHECKING:
    from aria_mem.api import (
        DaemonCheck,
        IndexOwner,
        Memory,
        StatusReport,
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


def _daemon_detail(check: DaemonCheck) -> str:
    state = check.state
    if not check.running or state is None:
        text = "not running (pending memories wait for `aria-mem sync` or the daemon)"
    else:
        age = f"{state.heartbeat_age_s:.1f}" if state.heartbeat_age_s is not None else "?"
        text = f"running, pid {state.pid}, heartbeat {age} s ago"
        last = state.last_pass
        if last is not None:
            text += (
                f"; last pass indexed {last.indexed}, removed {last.removed}"
                f", {last.pending_left} pending, {last.duration_ms} ms"
            )
            if last.errors:
                text += f", errors: {'; '.join(last.errors)}"
        if state.last_sweep is not None:
            text += f"; last sweep removed {state.last_sweep.orphans_removed} orphans"
    if check.reindex is not None:
        text += f"; re-index to {check.reindex.model}: {check.reindex.done}/{check.reindex.total}"
    return markup_safe(text)


def _detail(report: StatusReport, name: str) -> str:
    """What a check adds to its target when it is ok."""
    if name == "embedder" and report.embedder.ok:
        return f" — {report.embedder.dimension} dimensions"
    if name == "index" and report.index.ok:
        parts = [
            f"{c.name}: {c.points} vectors of {c.vector_size}"
            if c.vector_size
            else f"{c.name}: not created yet"
            for c in report.index.collections
        ]
        return " — " + ", ".join(parts) + _owner_detail(report.index.owner)
    if name == "daemon" and report.daemon is not None:
        return " — " + _daemon_detail(report.daemon)
    if name == "dimension" and report.dimension.ok and not report.dimension.checked:
        return " — not checked (a service is down)"
    return ""


def _owner_detail(owner: IndexOwner | None) -> str:
    if owner is None:
        return ""
    how = {"on demand": "started on demand", "daemon": "`aria-mem daemon`"}
    started = how.get(owner.command, f"`{owner.command}`")
    model = f", model {owner.model}" if owner.model else ", no model loaded"
    here = ", this process" if owner.this_process else ""
    return (
        f"; served by the aria-mem service (pid {owner.pid}{here}, {markup_safe(started)}, "
        f"aria-mem {owner.version}, up {owner.uptime_s:.0f} s{markup_safe(model)})"
    )


def status_report(report: StatusReport) -> None:
    table = Table(header_style="bold")
    table.add_column("check")
    table.add_column("")
    table.add_column("target / detail", overflow="fold")
    table.add_column("latency", justify="right")
    for check in report.checks:
        mark = "[green]ok[/green]" if check.ok else "[red]FAIL[/red]"
        detail = markup_safe(check.target) + _detail(report, check.name)
        if check.error:
            detail += f"\n[red]{markup_safe(check.error)}[/red]"
        latency = f"{check.latency_ms:.1f} ms" if check.latency_ms is not None else ""
        table.add_row(check.name, mark, Text.from_markup(detail), latency)
    console.print(table)
    if report.counts is not None:
        c = report.counts
        console.print(
            f"memories: {c.total} ({c.active} active, {c.archived} archived, "
            f"{c.expired} expired, {c.held} held) — index: {c.indexed} indexed, "
            f"{c.pending} pending, {c.queued_deletions} vector removals queued; "
            f"knowledge: {c.knowledge_passages} passages ({c.knowledge_pending} pending)"
        )
        if c.pending and c.last_index_error:
            console.print(
                f"[yellow]pending memories wait for the index[/yellow] — last error: "
                f"{markup_safe(c.last_index_error)}"
            )


def status_json(report: StatusReport) -> dict[str, object]:
    """`status --json`: every check by name, its target, latency, error and details."""
    checks: dict[str, dict[str, object]] = {}
    for check in report.checks:
        body: dict[str, object] = {
            "ok": check.ok,
            "target": check.target,
            "latency_ms": check.latency_ms,
            "error": check.error,
        }
        checks[check.name] = body
    checks["index"]["collections"] = {
        c.name: {"vector_size": c.vector_size, "points": c.points} for c in report.index.collections
    }
    owner = report.index.owner
    checks["index"]["owner"] = asdict(owner) if owner is not None else None
    checks["embedder"].update(model=report.embedder.model, dimension=report.embedder.dimension)
    checks["dimension"].update(
        checked=report.dimension.checked, model_dimension=report.dimension.model_dimension
    )
    if report.data is not None:
        checks["data"]["unreadable"] = report.data.unreadable
    if (v := report.vectors) is not None:
        found = ("model", "indexed", "present", "missing", "other_model", "stale")
        checks["vectors"].update({name: getattr(v, name) for name in found})
    if report.daemon is not None:
        checks["daemon"].update(_daemon_json(report.daemon))
    return {
        "ok": report.ok,
        "checks": checks,
        "memories": asdict(report.counts) if report.counts is not None else None,
    }


def _daemon_json(check: DaemonCheck) -> dict[str, object]:
    state = check.state
    body: dict[str, object] = {"running": check.running}
    if state is not None:
        body.update(
            pid=state.pid,
            host=state.host,
            heartbeat_age_s=None
            if state.heartbeat_age_s is None
            else round(state.heartbeat_age_s, 1),
            interval_s=state.reconcile_interval,
            stopped_at=state.stopped_at,
            last_pass=state.last_pass.as_dict() if state.last_pass else None,
            last_sweep=state.last_sweep.as_dict() if state.last_sweep else None,
            dimension=state.dimension.as_dict() if state.dimension else None,
        )
    if check.reindex is not None:
        body["reindex"] = {
            "model": check.reindex.model,
            "total": check.reindex.total,
            "done": check.reindex.done,
            "started_at": check.reindex.started_at,
            "background": check.reindex.background,
        }
    return body
