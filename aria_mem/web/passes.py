"""The consolidation passes' page: what each pass did with a new memory and why (merged,
superseded, asked), newest first, each undone with one button."""

from __future__ import annotations

import uuid

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from aria_mem.api import Consolidation, Memory
from aria_mem.errors import NotFoundError
from aria_mem.web.toolkit import Page, back, checked_form

SHOWN = 100
"""The most recent actions shown; `aria-mem tidy --list` has them all."""


def routes(page: Page) -> list[Route]:
    async def passes(request: Request) -> Response:
        rows = await page.run(_rows, page)
        return page.render(request, "passes.html", rows=rows)

    async def undo(request: Request) -> Response:
        await checked_form(request)
        raw = str(request.path_params["action_id"])
        try:
            action = str(uuid.UUID(raw))
        except ValueError:
            raise HTTPException(404, "There is no such pass action.") from None
        await page.run(page.memory.review.undo, action, **page.scope)
        return back(request, "/passes", "undone")

    return [
        Route("/passes", passes),
        Route("/passes/{action_id}/undo", undo, methods=["POST"]),
    ]


def _rows(page: Page) -> list[tuple[Consolidation, Memory | None, Memory | None]]:
    actions = page.memory.review.passes(user=page.user, companion=page.companion, limit=SHOWN)
    rows = []
    for action in actions:
        rows.append((action, _memory(page, action.memory_id), _memory(page, action.other_id)))
    return rows


def _memory(page: Page, memory_id: uuid.UUID | None) -> Memory | None:
    if memory_id is None:
        return None
    try:
        return page.memory.get(memory_id, **page.scope)
    except NotFoundError:
        return None
