"""`learn` and `knowledge`: documents the companion reads, kept apart from memories."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Table

from aria_mem.adapters import documents
from aria_mem.cli import render
from aria_mem.cli.context import emit_json, scope, services
from aria_mem.cli.memories import CompanionOpt, JsonOpt
from aria_mem.cli.render import markup_safe
from aria_mem.domain.chunking import chunk
from aria_mem.errors import UsageError

knowledge_app = typer.Typer(
    help="List or forget what the companion has learned.", no_args_is_help=True
)


def learn(
    ctx: typer.Context,
    location: Annotated[str, typer.Argument(help="A text, Markdown or HTML file, or a URL.")],
    title: Annotated[str | None, typer.Option(help="Title (default: from the document).")] = None,
    companion: CompanionOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Learn a document: split it into passages, store them, and index them in the knowledge
    collection. In chat they come under their own KNOWLEDGE DATA section, labelled as outside
    data (never as facts about the user), and are the first thing the budget trims. Learning
    the same source again replaces it.

    Example: aria-mem learn notes/pottery-basics.md
    """
    svc = services(ctx)
    _, companion_id = scope(svc, None, companion)
    source, found_title, text = documents.read(location)
    passages = chunk(text)
    if not passages:
        raise UsageError(f"{location} has no text to learn")
    source_id, replaced = svc.store.learn(companion_id, source, title or found_title, passages)
    report = svc.indexer.run_pending()
    summary = {
        "source_id": str(source_id),
        "source": source,
        "title": title or found_title,
        "passages": len(passages),
        "replaced": replaced,
        "indexed": report.indexed,
        "errors": report.errors,
    }
    if as_json:
        emit_json(summary)
        return
    shown_title = markup_safe(title or found_title)
    render.console.print(
        f"Learned [cyan]{str(source_id)[:8]}[/cyan] {shown_title}: "
        f"{len(passages)} passages" + (f" (replacing {replaced})" if replaced else "")
    )
    if report.errors:
        render.console.print(
            "[yellow]not indexed yet[/yellow]: "
            f"{markup_safe('; '.join(report.errors))} — `aria-mem sync` later"
        )


@knowledge_app.command("list")
def list_knowledge(
    ctx: typer.Context, companion: CompanionOpt = None, as_json: JsonOpt = False
) -> None:
    """What the companion has learned."""
    svc = services(ctx)
    _, companion_id = scope(svc, None, companion)
    sources = svc.store.knowledge_sources(companion_id)
    if as_json:
        emit_json(sources)
        return
    if not sources:
        render.console.print("Nothing learned yet — `aria-mem learn FILE|URL`")
        return
    table = Table(header_style="bold")
    for column in ("id", "title", "source", "passages", "pending"):
        table.add_column(column, overflow="fold")
    for s in sources:
        table.add_row(
            str(s["id"])[:8],
            markup_safe(s["title"]),
            markup_safe(s["source"]),
            str(s["passages"]),
            str(s["pending"]),
        )
    render.console.print(table)


@knowledge_app.command("forget")
def forget_knowledge(
    ctx: typer.Context,
    source_id: Annotated[str, typer.Argument(help="Source id (or its start).")],
    as_json: JsonOpt = False,
) -> None:
    """Forget a learned document: its passages are deleted and their vectors removed."""
    svc = services(ctx)
    source = svc.store.forget_knowledge(source_id)
    report = svc.indexer.run_deletions()
    if as_json:
        emit_json(
            {
                "forgotten": str(source["id"]),
                "passages": source["passages"],
                "vectors_removed": report.deletions_done,
            }
        )
    else:
        render.console.print(
            f"Forgot {markup_safe(source['title'])} ({source['passages']} passages)"
        )


def register(app: typer.Typer) -> None:
    app.command()(learn)
    app.add_typer(knowledge_app, name="knowledge")
