"""`learn` and `knowledge`: documents the companion reads, kept apart from memories."""

from __future__ import annotations

from dataclasses import asdict
from typing import Annotated

import typer
from rich.table import Table

from aria_mem.cli import render
from aria_mem.cli.context import emit_json, memory
from aria_mem.cli.memories import CompanionOpt, JsonOpt
from aria_mem.cli.render import markup_safe

knowledge_app = typer.Typer(
    help="List or forget what the companion has learned.\n\nExample: aria-mem knowledge list",
    no_args_is_help=True,
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
    the same source again replaces it. Files and pages are read up to 5 MB within 30 s;
    only http(s) addresses are fetched.

    Example: aria-mem learn notes/pottery-basics.md
    """
    learned = memory(ctx).knowledge.learn(location, title=title, companion=companion)
    if as_json:
        emit_json(
            {
                "source_id": learned.source_id,
                "source": learned.source,
                "title": learned.title,
                "passages": learned.passages,
                "replaced": learned.replaced,
                "indexed": learned.index.indexed,
                "errors": learned.index.errors,
            }
        )
        return
    render.console.print(
        f"Learned [cyan]{learned.source_id[:8]}[/cyan] {markup_safe(learned.title)}: "
        f"{learned.passages} passages"
        + (f" (replacing {learned.replaced})" if learned.replaced else "")
    )
    if learned.index.errors:
        render.console.print(
            "[yellow]not indexed yet[/yellow]: "
            f"{markup_safe('; '.join(learned.index.errors))} — `aria-mem sync` later"
        )


@knowledge_app.command("list")
def list_knowledge(
    ctx: typer.Context, companion: CompanionOpt = None, as_json: JsonOpt = False
) -> None:
    """What the companion has learned.

    Example: aria-mem knowledge list --json
    """
    sources = memory(ctx).knowledge.list(companion=companion)
    if as_json:
        emit_json([asdict(s) for s in sources])
        return
    if not sources:
        render.console.print("Nothing learned yet — `aria-mem learn FILE|URL`")
        return
    table = Table(header_style="bold")
    for column in ("id", "title", "source", "passages", "pending"):
        table.add_column(column, overflow="fold")
    for s in sources:
        table.add_row(
            str(s.id)[:8],
            markup_safe(s.title),
            markup_safe(s.source),
            str(s.passages),
            str(s.pending),
        )
    render.console.print(table)


@knowledge_app.command("forget")
def forget_knowledge(
    ctx: typer.Context,
    source_id: Annotated[str, typer.Argument(help="Source id (or its start).")],
    companion: CompanionOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Forget a learned document of the companion: its passages are deleted and their vectors
    removed. Another companion's documents are not touched (name it with --companion).

    Example: aria-mem knowledge forget 9b1c2d3e
    """
    gone = memory(ctx).knowledge.forget(source_id, companion=companion)
    if as_json:
        emit_json(
            {
                "forgotten": str(gone.source.id),
                "passages": gone.source.passages,
                "vectors_removed": gone.vectors_removed,
            }
        )
    else:
        render.console.print(
            f"Forgot {markup_safe(gone.source.title)} ({gone.source.passages} passages)"
        )


def register(app: typer.Typer) -> None:
    app.command()(learn)
    app.add_typer(knowledge_app, name="knowledge")
