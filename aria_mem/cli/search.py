"""`search` (what would the companion remember for this message, and why) and `stage`."""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING, Annotated, Any

import typer

from aria_mem.cli import render, search_view
from aria_mem.cli.context import emit_json, memory
from aria_mem.cli.memories import CompanionOpt, JsonOpt, UserOpt
from aria_mem.cli.render import markup_safe

if TYPE_CHECKING:
    from aria_mem.api import Dropped, Ranked, SearchResult


def _evidence_json(result: SearchResult, memory_id: uuid.UUID) -> dict[str, Any] | None:
    e = result.evidence.get(memory_id)
    if e is None:
        return None
    return {
        "cosine": e.similarity,
        "dense_rank": e.dense_rank,
        "lexical_rank": e.lexical_rank,
        "lexical_score": e.lexical_score,
        "relevance": e.relevance,
        "fused_rank": e.fused_rank,
        "repeats": None
        if e.repeat is None
        else {
            "of": str(e.repeat.of),
            "overlap": e.repeat.overlap,
            "discount": e.repeat.discount,
        },
    }


def _ranked_json(position: int, r: Ranked, result: SearchResult) -> dict[str, Any]:
    data: dict[str, Any] = {
        "rank": position,
        "section": r.section.value,
        "id": str(r.memory.id),
        "type": r.memory.type.value,
        "text": r.memory.text,
        "confidence": r.memory.confidence,
        "event": None
        if r.memory.event_from is None or r.memory.event_until is None
        else {"from": r.memory.event_from.isoformat(), "until": r.memory.event_until.isoformat()},
        "found": _evidence_json(result, r.memory.id),
    }
    if r.score is not None:
        data.update(
            similarity=r.score.similarity,
            importance=r.score.importance,
            emotion=r.score.emotion,
            recency=r.score.recency,
            usage=r.score.usage,
            time=r.score.time,
            repeat=r.score.repeat,
            contributions=r.score.contributions,
            score=r.score.total,
        )
    return data


def _dropped_json(d: Dropped, result: SearchResult) -> dict[str, Any]:
    return {
        "id": str(d.memory_id),
        "reason": d.reason.value,
        "similarity": d.similarity,
        "found": _evidence_json(result, d.memory_id),
        "text": d.memory.text if d.memory else None,
        "score": d.score.total if d.score else None,
    }


def result_json(result: SearchResult) -> dict[str, Any]:
    return {
        "query": result.query,
        "user": result.user_id,
        "companion": result.companion_id,
        "model": result.model,
        "stage": result.stage.value,
        "threshold": result.selection.threshold,
        "cap": result.selection.cap,
        "candidates": result.candidates,
        "time": None
        if result.asked is None
        else {
            "from": result.asked.span.start.isoformat() if result.asked.span else None,
            "until": result.asked.span.end.isoformat() if result.asked.span else None,
            "asks_when": result.asked.when,
        },
        "memories": [_ranked_json(i, r, result) for i, r in enumerate(result.chosen, start=1)],
        "dropped": [_dropped_json(d, result) for d in result.selection.dropped],
        "knowledge": [
            {
                "id": str(hit.item.id),
                "source": hit.item.source,
                "title": hit.item.title,
                "text": hit.item.text,
                "similarity": hit.similarity,
            }
            for hit in result.knowledge
        ],
        "degraded": list(result.degraded),
        "timings_ms": dict(result.timings.items()),
        "prompt": result.prompt,
    }


def search(
    ctx: typer.Context,
    message: Annotated[str, typer.Argument(help="The user's message.")],
    previous: Annotated[
        str | None,
        typer.Option(
            "--previous", "-p", help="The user's message before it (short follow-ups need it)."
        ),
    ] = None,
    explain: Annotated[
        bool,
        typer.Option(
            "--explain",
            "-x",
            help="Every signal, every contribution, and what was dropped and why.",
        ),
    ] = False,
    why: Annotated[
        str | None,
        typer.Option(help="Explain the fate of one memory (id or its first characters)."),
    ] = None,
    prompt: Annotated[
        bool, typer.Option("--prompt", help="Print the exact sections that would go to the model.")
    ] = False,
    user: UserOpt = None,
    companion: CompanionOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Show which memories the companion would bring up for a message, and why.

    Runs the same retrieval as a chat turn (query from the previous and current message,
    nearest vectors filtered to this user, companion and model, fused with PostgreSQL's
    word matches; PostgreSQL's check, ranking, profile and cap) but does not count as a use
    of the memories it shows. --explain shows, for each memory, its cosine, its place among
    the word matches, its place after fusion, and, for one that mostly repeats the profile
    or a more similar memory, which one and what that took off its similarity ("found").

    Example: aria-mem search "I need to find a gift" --previous "My sister is getting
    married in June" --explain
    """
    mem = memory(ctx)
    mem.warm_up()
    result = mem.search(message, previous=previous, user=user, companion=companion)
    fate = mem.why(result, why) if why is not None else None
    if as_json:
        data = result_json(result)
        if fate is not None:
            data["why"] = {
                "id": str(fate.memory_id),
                "outcome": fate.outcome,
                "detail": fate.detail,
            }
        emit_json(data)
        return
    if explain:
        search_view.explain(result)
    else:
        search_view.ranked_list(result)
    if fate is not None:
        search_view.fate(fate)
    if prompt:
        search_view.prompt(result)
    for reason in result.degraded:
        render.err_console.print(f"[yellow]degraded:[/yellow] {markup_safe(reason)}")


def stage(
    ctx: typer.Context,
    new_stage: Annotated[
        str | None,
        typer.Argument(
            metavar="[STAGE]", help="early, established or close; omit to show the current one."
        ),
    ] = None,
    user: UserOpt = None,
    companion: CompanionOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Show or set the relationship stage of a user and companion.

    The stage moves the similarity bar (+0.05 early) and the memory cap (x0.6 early, x1.25
    close), and releases memories held until it.

    Example: aria-mem stage established
    """
    mem = memory(ctx)
    if new_stage is not None:
        report = mem.relationship.set_stage(new_stage, user=user, companion=companion)
        if report.errors:
            render.err_console.print(
                "[yellow]held memories will be (un)indexed by the next "
                f"sync:[/yellow] {markup_safe('; '.join(report.errors))}"
            )
    current = mem.relationship.stage(user=user, companion=companion)
    user_id = user if user is not None else mem.settings.identity.user
    companion_id = companion if companion is not None else mem.settings.identity.companion
    if as_json:
        emit_json({"user": user_id, "companion": companion_id, "stage": current.value})
    else:
        render.console.print(
            f"{markup_safe(user_id)} / {markup_safe(companion_id)}: {current.value}"
        )


def register(app: typer.Typer) -> None:
    app.command()(search)
    app.command()(stage)
