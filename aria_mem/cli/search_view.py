"""Rich rendering of one search for people: the ranked list, `--why` and `--prompt` from the
search's JSON (as the aria-mem service answers it), and `--explain` (every source's say and
every signal of the formula) from the search itself."""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING, Any

from rich import box
from rich.table import Table
from rich.text import Text

from aria_mem.cli.render import console, markup_safe, safe

if TYPE_CHECKING:
    from aria_mem.api import SearchResult


def _f(value: float | None, digits: int = 2) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def ranked_list(search: dict[str, Any]) -> None:
    """The memories a search chose, from its JSON (``operations.search_json``)."""
    if not search["memories"]:
        console.print("No memories would be brought up for this message.")
        return
    for position, ranked in enumerate(search["memories"], start=1):
        score = f"{ranked['score']:.3f}" if "score" in ranked else "profile"
        console.print(
            Text.assemble(
                f"{position:>2}. ",
                (f"[{ranked['section']}] ", "dim"),
                f"{safe(ranked['text'])}  ",
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
        console.print(f"time: {result.asked.explained}")
    table = Table(
        header_style="bold",
        box=box.SIMPLE_HEAD,
        padding=(0, 1),
        title=(
            "selected (P profile, R relevant; each signal, then its weighted part; "
            "sim = cosine + word lift, less any repeat; time = dated as the message asks)"
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
            cells = ["—", _f(r.memory.importance), _f(r.memory.emotional_significance), *"———"]
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


def fate(item: dict[str, Any]) -> None:
    """`--why`: the fate of one memory, from the search's JSON (its ``why``)."""
    console.print(
        Text.assemble(
            ("why ", "bold"),
            (str(item["id"])[:8], "cyan"),
            safe(f": {item['outcome']}" + (f" — {item['detail']}" if item["detail"] else "")),
        )
    )


def prompt(text: str) -> None:
    """`--prompt`: the sections that would go to the model."""
    console.print()
    console.print(
        Text(safe(text, keep_lines=True) or "(no memory sections)"),
        highlight=False,
        soft_wrap=True,
    )
