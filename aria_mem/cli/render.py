"""Rich rendering of memories and reports, kept apart from the commands."""

from __future__ import annotations

import os
import sys
import uuid
from collections.abc import Sequence
from dataclasses import asdict
from datetime import datetime
from typing import TYPE_CHECKING

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from aria_mem.cli.terminal_text import markup_safe as markup_safe  # the commands' one import
from aria_mem.cli.terminal_text import safe as safe

if TYPE_CHECKING:
    from aria_mem.api import (
        DaemonCheck,
        Fate,
        IndexOwner,
        Memory,
        SearchResult,
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


def _f(value: float | None, digits: int = 2) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def ranked_list(result: SearchResult) -> None:
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


def evidence_text(result: SearchResult, memory_id: uuid.UUID) -> str:
    """Each source's say: the cosine and place among the nearest vectors, the place and
    score among the word matches, the place after fusion, and what a repeat cost."""
    e = result.evidence.get(memory_id)
    if e is None:
        return "—"
    vector = f"cos {e.similarity:.3f}" if e.similarity is not None else "cos —"
    if e.dense_rank is not None:
        vector += f" #{e.dense_rank}"
    words = (
        f"words #{e.lexical_rank} {e.lexical_score:.3f}"
        if e.lexical_rank is not None and e.lexical_score is not None
        else "words —"
    )
    found = f"{vector}\n{words}\nfused #{e.fused_rank}"
    if e.repeat is not None:
        found += f"\nrepeats {str(e.repeat.of)[:8]} -{e.repeat.discount:.3f}"
    return found


def explain(result: SearchResult) -> None:
    sel = result.selection
    console.print(Text(f"query: {result.query!r}", style="dim"))
    console.print(
        f"stage {result.stage.value}: similarity bar {sel.threshold:.2f}, cap "
        f"{sel.cap} memories; {result.candidates} candidates from the nearest vectors "
        f"({markup_safe(result.model)}) and word matches, fused"
    )
    if result.asked is not None:
        console.print(
            f"time: the message {result.asked.text}; the memories dated in it are lifted"
            if result.asked.span
            else f"time: the message {result.asked.text}; memories that state one are lifted"
        )
    table = Table(
        header_style="bold",
        box=box.SIMPLE_HEAD,
        padding=(0, 1),
        title=(
            "selected (P profile, R relevant; each signal, then its weighted part; "
            "sim = cosine + word lift, less any repeat; time = dated in the days the "
            "message names)"
        ),
        title_justify="left",
    )
    table.add_column("#", justify="right", no_wrap=True)
    table.add_column("score", justify="right", no_wrap=True)
    table.add_column("type", overflow="fold", max_width=16)
    table.add_column("text", ratio=1, min_width=16, overflow="fold")
    table.add_column("found", no_wrap=True)
    for name in ("sim", "imp", "emo", "rec", "use", "time"):
        table.add_column(name, justify="right", no_wrap=True)
    for position, r in enumerate(result.chosen, start=1):
        s = r.score
        if s is None:
            total = "always"
            cells = [
                "—",
                _f(r.memory.importance),
                _f(r.memory.emotional_significance),
                "—",
                "—",
                "—",
            ]
        else:
            values = (s.similarity, s.importance, s.emotion, s.recency, s.usage, s.time)
            cells = [
                f"{v:.2f}\n[dim]{c:+.3f}[/dim]"
                for v, c in zip(values, s.contributions.values(), strict=True)
            ]
            total = f"[bold]{s.total:.3f}[/bold]"
        tag = ("P" if r.section.value == "profile" else "R") + str(position)
        found = evidence_text(result, r.memory.id)
        table.add_row(tag, total, r.memory.type.value, Text(safe(r.memory.text)), found, *cells)
    console.print(table)
    if sel.dropped:
        dropped = Table(
            header_style="bold", title="dropped", title_justify="left", box=box.SIMPLE_HEAD
        )
        dropped.add_column("id", style="cyan")
        dropped.add_column("text", overflow="fold")
        dropped.add_column("found", no_wrap=True)
        dropped.add_column("sim", justify="right")
        dropped.add_column("score", justify="right")
        dropped.add_column("why")
        for d in sel.dropped:
            dropped.add_row(
                str(d.memory_id)[:8],
                Text(safe(d.memory.text) if d.memory else "—"),
                evidence_text(result, d.memory_id),
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
        for hit in result.knowledge:
            passages.add_row(
                Text(safe(hit.item.title or hit.item.source)),
                Text(safe(hit.item.text)),
                f"{hit.similarity:.3f}",
            )
        console.print(passages)
    timings = "  ".join(f"{k} {v:.1f} ms" for k, v in result.timings.items())
    console.print(Text(f"timings: {timings}", style="dim"))


def fate(item: Fate) -> None:
    console.print(
        Text.assemble(
            ("why ", "bold"),
            (str(item.memory_id)[:8], "cyan"),
            safe(f": {item.outcome}" + (f" — {item.detail}" if item.detail else "")),
        )
    )


def prompt(result: SearchResult) -> None:
    console.print()
    console.print(
        Text(safe(result.prompt, keep_lines=True) or "(no memory sections)"),
        highlight=False,
        soft_wrap=True,
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
