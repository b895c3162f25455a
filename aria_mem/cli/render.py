"""Rich rendering of memories and reports, kept apart from the commands."""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from datetime import datetime

from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from aria_mem.domain.models import Memory
from aria_mem.services.health import StatusReport
from aria_mem.services.retriever import Fate, RetrievalResult
from aria_mem.services.writer import WriteResult

console = Console()
err_console = Console(stderr=True)

_SHOWN_AS = {"\n": "↵", "\r": "↵", "\t": " ", "\u2028": "↵", "\u2029": "↵"}
_JOINERS = {"\u200c", "\u200d"}
"""Zero-width (non-)joiners are format characters that emoji and some scripts need."""


def safe(text: str, *, keep_lines: bool = False) -> str:
    """Text from memories, documents, models or arguments, made safe for a terminal: escape
    sequences, other control characters and invisible format characters (bidirectional
    overrides included) are shown as visible escapes (``\\x1b``, ``\\u202e``), so no
    stored text can clear the screen, set the window title or reorder what is shown."""
    if text.isprintable():
        return text
    shown = []
    for ch in text:
        if keep_lines and ch == "\n":
            shown.append(ch)
        elif ch in _SHOWN_AS:
            shown.append(_SHOWN_AS[ch])
        elif unicodedata.category(ch) in ("Cc", "Cf", "Cs") and ch not in _JOINERS:
            shown.append(ch.encode("unicode_escape", "backslashreplace").decode("ascii"))
        else:
            shown.append(ch)
    return "".join(shown)


def markup_safe(text: str, *, keep_lines: bool = False) -> str:
    """``safe`` text for a Rich markup string (its brackets escaped too)."""
    return escape(safe(text, keep_lines=keep_lines))


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
    short = str(result.memory.id)[:8]
    if result.problem and not result.indexed:
        console.print(
            f"{verb} [cyan]{short}[/cyan] — saved in PostgreSQL; "
            f"[yellow]index update pending[/yellow]: {markup_safe(result.problem)}"
        )
    else:
        console.print(f"{verb} [cyan]{short}[/cyan]")


def _daemon_detail(d: dict[str, object]) -> str:
    if not d.get("running"):
        text = "not running (pending memories wait for `aria-mem sync` or the daemon)"
    else:
        text = f"running, pid {d.get('pid')}, heartbeat {d.get('heartbeat_age_s')} s ago"
        last = d.get("last_pass")
        if isinstance(last, dict):
            text += (
                f"; last pass indexed {last.get('indexed')}, removed {last.get('removed')}"
                f", {last.get('pending_left')} pending, {last.get('duration_ms')} ms"
            )
            if last.get("errors"):
                text += f", errors: {'; '.join(map(str, last['errors']))}"
        sweep = d.get("last_sweep")
        if isinstance(sweep, dict):
            text += f"; last sweep removed {sweep.get('orphans_removed')} orphans"
    run = d.get("reindex")
    if isinstance(run, dict):
        text += f"; re-index to {run['model']}: {run['done']}/{run['total']}"
    return markup_safe(text)


def status_report(report: StatusReport) -> None:
    table = Table(header_style="bold")
    table.add_column("check")
    table.add_column("")
    table.add_column("target / detail", overflow="fold")
    table.add_column("latency", justify="right")
    for check in report.checks:
        mark = "[green]ok[/green]" if check.ok else "[red]FAIL[/red]"
        detail = markup_safe(check.target)
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
        if check.name == "daemon":
            detail += " — " + _daemon_detail(check.detail)
        if check.name == "dimension" and check.ok and check.detail.get("checked") is False:
            detail += " — not checked (a service is down)"
        if check.error:
            detail += f"\n[red]{markup_safe(check.error)}[/red]"
        latency = f"{check.latency_ms:.1f} ms" if check.latency_ms is not None else ""
        table.add_row(check.name, mark, Text.from_markup(detail), latency)
    console.print(table)
    if report.counts is not None:
        c = report.counts
        console.print(
            f"memories: {c['total']} ({c['active']} active, {c['archived']} archived, "
            f"{c['expired']} expired, {c['held']} held) — index: {c['indexed']} indexed, "
            f"{c['pending']} pending, {c['queued_deletions']} vector removals queued; "
            f"knowledge: {c['knowledge_passages']} passages ({c['knowledge_pending']} pending)"
        )


def _f(value: float | None, digits: int = 2) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def ranked_list(result: RetrievalResult) -> None:
    if not result.chosen:
        console.print("No memories would be brought up for this message.")
        return
    for position, ranked in enumerate(result.chosen, start=1):
        score = f"{ranked.score.total:.3f}" if ranked.score else "profile"
        console.print(
            Text.assemble(
                f"{position:>2}. ",
                (f"[{ranked.section.value}] ", "dim"),
                f"{safe(ranked.memory.text)}  ",
                (f"({score})", "cyan"),
            )
        )


def explain(result: RetrievalResult) -> None:
    sel = result.selection
    console.print(Text(f"query: {result.query!r}", style="dim"))
    console.print(
        f"stage {result.stage.value}: similarity bar {sel.threshold:.2f}, cap "
        f"{sel.cap} memories; {result.candidates} candidates from the index "
        f"({markup_safe(result.model)})"
    )
    table = Table(
        header_style="bold",
        box=box.SIMPLE_HEAD,
        padding=(0, 1),
        title="selected (P profile, R relevant; each signal, then its weighted part)",
        title_justify="left",
    )
    table.add_column("#", justify="right", no_wrap=True)
    table.add_column("score", justify="right", no_wrap=True)
    table.add_column("type", overflow="fold", max_width=16)
    table.add_column("text", ratio=1, min_width=16, overflow="fold")
    for name in ("sim", "imp", "emo", "rec", "use"):
        table.add_column(name, justify="right", no_wrap=True)
    for position, r in enumerate(result.chosen, start=1):
        s = r.score
        if s is None:
            total = "always"
            cells = ["—", _f(r.memory.importance), _f(r.memory.emotional_significance), "—", "—"]
        else:
            values = (s.similarity, s.importance, s.emotion, s.recency, s.usage)
            cells = [
                f"{v:.2f}\n[dim]{c:+.3f}[/dim]"
                for v, c in zip(values, s.contributions.values(), strict=True)
            ]
            total = f"[bold]{s.total:.3f}[/bold]"
        tag = ("P" if r.section.value == "profile" else "R") + str(position)
        table.add_row(tag, total, r.memory.type.value, Text(safe(r.memory.text)), *cells)
    console.print(table)
    if sel.dropped:
        dropped = Table(
            header_style="bold", title="dropped", title_justify="left", box=box.SIMPLE_HEAD
        )
        dropped.add_column("id", style="cyan")
        dropped.add_column("text", overflow="fold")
        dropped.add_column("sim", justify="right")
        dropped.add_column("score", justify="right")
        dropped.add_column("why")
        for d in sel.dropped:
            dropped.add_row(
                str(d.memory_id)[:8],
                Text(safe(d.memory.text) if d.memory else "—"),
                _f(d.similarity, 3),
                _f(d.score.total if d.score else None, 3),
                d.reason.value,
            )
        console.print(dropped)
    if result.knowledge:
        passages = Table(
            header_style="bold",
            title="knowledge (outside data, not about the user)",
            title_justify="left",
            box=box.SIMPLE_HEAD,
        )
        passages.add_column("source", overflow="fold", max_width=24)
        passages.add_column("passage", overflow="fold")
        passages.add_column("sim", justify="right")
        for item, similarity in result.knowledge:
            passages.add_row(
                Text(safe(item.title or item.source)), Text(safe(item.text)), f"{similarity:.3f}"
            )
        console.print(passages)
    timings = "  ".join(f"{k} {v:.1f} ms" for k, v in result.timings_ms.items())
    console.print(Text(f"timings: {timings}", style="dim"))


def fate(item: Fate) -> None:
    console.print(
        Text.assemble(
            ("why ", "bold"),
            (str(item.memory_id)[:8], "cyan"),
            safe(f": {item.outcome}" + (f" — {item.detail}" if item.detail else "")),
        )
    )


def prompt(result: RetrievalResult) -> None:
    console.print()
    console.print(
        Text(safe(result.prompt, keep_lines=True) or "(no memory sections)"),
        highlight=False,
        soft_wrap=True,
    )
