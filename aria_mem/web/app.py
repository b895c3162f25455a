"""The review page's web application: server-rendered pages over the public API, behind the
guard. Reading works without JavaScript; every change is a plain form POST that carries the
session's CSRF token and answers with a redirect (post/redirect/get)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from aria_mem.api import AriaMem
from aria_mem.errors import NotFoundError, ServiceError, UsageError
from aria_mem.web import memories, pages, passes
from aria_mem.web.guard import PageGate, Sessions
from aria_mem.web.toolkit import STATIC_DIR, Page, back


def create_app(
    memory: AriaMem,
    *,
    user: str,
    companion: str,
    sessions: Sessions,
    hosts: frozenset[str] | None,
    port: int,
) -> PageGate:
    """The page for one user and companion, behind the guard."""
    page = Page(memory, user, companion)

    async def failed(request: Request, exc: Exception) -> Response:
        status, message = _failure(exc)
        return page.render(request, "message.html", status=status, message=message)

    routes = [
        Route("/", lambda request: back(request, "/memories")),
        *memories.routes(page),
        *pages.routes(page),
        *passes.routes(page),
        Mount("/static", StaticFiles(directory=STATIC_DIR), name="static"),
    ]
    handlers: Mapping[Any, Callable[[Request, Exception], Awaitable[Response]]] = {
        HTTPException: failed,
        UsageError: failed,
        NotFoundError: failed,
        ServiceError: failed,
    }
    app = Starlette(routes=routes, exception_handlers=dict(handlers))
    return PageGate(app, sessions, hosts, port)


def _failure(exc: Exception) -> tuple[int, str]:
    if isinstance(exc, HTTPException):
        return exc.status_code, str(exc.detail)
    if isinstance(exc, NotFoundError):
        return 404, str(exc)
    if isinstance(exc, UsageError):
        return 400, str(exc)
    return 503, f"A service did not answer: {exc}"
