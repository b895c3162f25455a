"""Rich rendering of memories and reports, kept apart from the commands."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from aria_mem.domain.models import Memory
from aria_mem.services.health import StatusReport
from aria_mem.services.writer import WriteResult

console = Console()
err_console = Console(stderr=True)


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
            Text(m.text),
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
        table.add_row(key, Text(value))
    return table


def write_line(verb: str, result: WriteResult) -> None:
    short = str(result.memory.id)[:8]
    if result.problem and not result.indexed:
        console.print(
            f"{verb} [cyan]{short}[/cyan] — saved in PostgreSQL; "
            f"[yellow]index update pending[/yellow]: {escape(result.problem)}"
        )
    else:
        console.print(f"{verb} [cyan]{short}[/cyan]")


def status_report(report: StatusReport) -> None:
    table = Table(header_style="bold")
    table.add_column("check")
    table.add_column("")
    table.add_column("target / detail", overflow="fold")
    table.add_column("latency", justify="right")
    for check in report.checks:
        mark = "[green]ok[/green]" if check.ok else "[red]FAIL[/red]"
        detail = escape(check.target)
        if check.name == "embedder" and check.ok:
            detail += f" — {check.detail.get('dimension')} dimensions"
        if check.name == "index" and check.ok:
            parts = []
            for name, info in check.detail.get("collections", {}).items():
                size = info["vector_size"]
                parts.append(
                    f"{name}: {info['points']} vectors of {size}"
                    if size
                    else f"{name}: not created yet"
                )
            detail += " — " + ", ".join(parts)
        if check.name == "dimension" and check.ok and check.detail.get("checked") is False:
            detail += " — not checked (a service is down)"
        if check.error:
            detail += f"\n[red]{escape(check.error)}[/red]"
        latency = f"{check.latency_ms:.1f} ms" if check.latency_ms is not None else ""
        table.add_row(check.name, mark, Text.from_markup(detail), latency)
    console.print(table)
    if report.counts is not None:
        c = report.counts
        console.print(
            f"memories: {c['total']} ({c['active']} active, {c['archived']} archived, "
            f"{c['expired']} expired, {c['held']} held) — index: {c['indexed']} indexed, "
            f"{c['pending']} pending, {c['queued_deletions']} vector removals queued"
        )
