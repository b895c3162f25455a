"""The other pages: "why would this come up?", the review queue, conversations, knowledge,
status, and the export of everything kept about the user."""

from __future__ import annotations

import io
import uuid
from datetime import UTC, datetime

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from aria_mem.api import Memory, ReviewItem
from aria_mem.web.toolkit import PAGE_SIZE, Page, back, checked_form, field, page_number

MAX_MESSAGE_CHARS = 2000


def routes(page: Page) -> list[Route]:
    async def why(request: Request) -> Response:
        message = request.query_params.get("message", "").strip()
        previous = request.query_params.get("previous", "").strip() or None
        if len(message) > MAX_MESSAGE_CHARS or len(previous or "") > MAX_MESSAGE_CHARS:
            raise HTTPException(400, f"A message is at most {MAX_MESSAGE_CHARS} characters.")
        result = None
        if message:
            result = await page.run(page.memory.search, message, previous=previous, **page.scope)
        return page.render(
            request, "why.html", message=message, previous=previous or "", result=result
        )

    async def review(request: Request) -> Response:
        number = page_number(request.query_params.get("page", "1"))
        rows, total = await page.run(_review_page, page, number)
        return page.render(
            request,
            "review.html",
            rows=rows,
            total=total,
            number=number,
            pages=max(1, -(-total // PAGE_SIZE)),
            more=number * PAGE_SIZE < total,
        )

    async def decide(request: Request) -> Response:
        form = await checked_form(request)
        item = _item_id(request)
        action = str(request.path_params["action"])
        if action == "accept":
            await page.run(page.memory.review.accept, item, **page.scope)
            return back(request, "/review", "accepted")
        if action == "reject":
            await page.run(page.memory.review.reject, item, **page.scope)
            return back(request, "/review", "rejected")
        if action == "edit":
            await page.run(page.memory.review.edit, item, field(form, "text"), **page.scope)
            return back(request, "/review", "reworded")
        raise HTTPException(404, "There is no such decision.")

    async def conversations(request: Request) -> Response:
        words = request.query_params.get("q", "").strip()[:MAX_MESSAGE_CHARS]
        found = await page.run(page.memory.conversations.list, **page.scope)
        turns = []
        if words:
            turns = await page.run(page.memory.conversations.turns_mentioning, words, **page.scope)
        return page.render(
            request, "conversations.html", conversations=found, words=words, turns=turns
        )

    async def conversation(request: Request) -> Response:
        summary, turns = await page.run(
            page.memory.conversations.get, _conversation_id(request), **page.scope
        )
        return page.render(request, "conversation.html", summary=summary, turns=turns)

    async def forget_conversation(request: Request) -> Response:
        await checked_form(request)
        await page.run(page.memory.conversations.forget, _conversation_id(request), **page.scope)
        return back(request, "/conversations", "conversation-forgotten")

    async def knowledge(request: Request) -> Response:
        words = request.query_params.get("q", "").strip()[:MAX_MESSAGE_CHARS]
        sources = await page.run(page.memory.knowledge.list, companion=page.companion)
        if words:
            wanted = words.casefold()
            sources = [s for s in sources if wanted in f"{s.title} {s.source}".casefold()]
        return page.render(request, "knowledge.html", sources=sources, words=words)

    async def forget_source(request: Request) -> Response:
        await checked_form(request)
        raw = str(request.path_params["source_id"])
        try:
            source_id = str(uuid.UUID(raw))
        except ValueError:
            raise HTTPException(404, "There is no such source.") from None
        own = await page.run(page.memory.knowledge.list, companion=page.companion)
        if source_id not in {str(s.id) for s in own}:
            raise HTTPException(404, "There is no such source.")
        await page.run(page.memory.knowledge.forget, source_id, companion=page.companion)
        return back(request, "/knowledge", "source-forgotten")

    async def status(request: Request) -> Response:
        report = await page.run(page.memory.admin.status)
        return page.render(request, "status.html", report=report)

    async def export(request: Request) -> Response:
        stream = io.StringIO()
        await page.run(page.memory.transfer.export, stream, user=page.user, everything=True)
        stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
        return Response(
            stream.getvalue(),
            media_type="application/x-ndjson",
            headers={
                "content-disposition": f'attachment; filename="aria-mem-{stamp}.jsonl"',
                "cache-control": "no-store",
                "x-content-type-options": "nosniff",
            },
        )

    return [
        Route("/why", why),
        Route("/review", review),
        Route("/review/{item_id}/{action}", decide, methods=["POST"]),
        Route("/conversations", conversations),
        Route("/conversations/{conversation_id}", conversation),
        Route("/conversations/{conversation_id}/forget", forget_conversation, methods=["POST"]),
        Route("/knowledge", knowledge),
        Route("/knowledge/{source_id}/forget", forget_source, methods=["POST"]),
        Route("/status", status),
        Route("/export", export),
    ]


def _review_page(
    page: Page, number: int
) -> tuple[list[tuple[ReviewItem, Memory | None, Memory | None]], int]:
    """One page of the queue with the memories each item is about, as they are now (None:
    gone since), and how many items wait: three queries however long the queue is."""
    reviews, user, companion = page.memory.review, page.user, page.companion
    offset = (number - 1) * PAGE_SIZE
    items = reviews.list(user=user, companion=companion, limit=PAGE_SIZE, offset=offset)
    known = reviews.memories(items, user=user, companion=companion)
    rows = [
        (item, known.get(item.memory_id), known.get(item.other_id) if item.other_id else None)
        for item in items
    ]
    return rows, reviews.count(user=user, companion=companion)


def _item_id(request: Request) -> str:
    try:
        return str(uuid.UUID(str(request.path_params["item_id"])))
    except ValueError:
        raise HTTPException(404, "There is no such review item.") from None


def _conversation_id(request: Request) -> str:
    try:
        return str(uuid.UUID(str(request.path_params["conversation_id"])))
    except ValueError:
        raise HTTPException(404, "There is no such conversation.") from None
