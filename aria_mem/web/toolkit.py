"""What every route module of the review page shares: the ``Page`` a handler renders with,
the bounded, CSRF-checked form, the redirect with a notice, and the path parameters. It lives
apart from the application that assembles the routes (``web/app.py``) so the route modules
import it and the application imports them, with no circle."""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import jinja2
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import FormData
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse

from aria_mem.api import AriaMem
from aria_mem.web.guard import CSRF_FIELD, form_csrf_ok

_HERE = Path(__file__).parent
STATIC_DIR = _HERE / "static"
MAX_BODY_BYTES = 64 * 1024
"""A form holds at most a memory's text and a few fields."""
PAGE_SIZE = 50
MAX_PAGE = 10_000

NOTICES = {
    "saved": "Saved.",
    "pinned": "Pinned: always in the profile.",
    "unpinned": "Unpinned.",
    "archived": "Archived: kept, never used.",
    "restored": "Restored: active again.",
    "confirmed": "Confirmed: its recency is refreshed.",
    "forgotten": "Forgotten for good.",
    "forgotten-with-turns": "Forgotten for good, with the chat turns that mentioned it.",
    "accepted": "Done as proposed.",
    "rejected": "Both left as they were.",
    "reworded": "Said right; the old wording is in its history.",
    "undone": "Undone: what the pass set aside is back.",
    "conversation-forgotten": "The conversation is forgotten for good, with its turns.",
    "source-forgotten": "Forgotten: its passages and vectors are gone.",
}
"""What a page may say about the change before it: a redirect names one of these, so no
address can make the page say anything else."""


def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(_HERE / "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["short"] = lambda value: str(value)[:8]
    env.filters["when"] = lambda value: "" if value is None else value.strftime("%Y-%m-%d %H:%M")
    env.filters["num"] = lambda value: "" if value is None else f"{value:.2f}"
    env.filters["fields"] = fields_of
    return env


def fields_of(record: object) -> list[tuple[str, object]]:
    """A record's plain fields (name, value), for a page that lists them all: read through
    ``dataclasses.fields``, as the records are slotted dataclasses with no ``__dict__``."""
    if not dataclasses.is_dataclass(record) or isinstance(record, type):
        return []
    plain = (str, int, float, bool, datetime, type(None))
    values = ((f.name, getattr(record, f.name)) for f in dataclasses.fields(record))
    return [(name, value) for name, value in values if isinstance(value, plain)]


class Page:
    """What every handler needs: the memory, whose memories, and how to answer."""

    def __init__(self, memory: AriaMem, user: str, companion: str) -> None:
        self.memory = memory
        self.user = user
        self.companion = companion
        self._env = _environment()

    @property
    def scope(self) -> dict[str, str]:
        return {"user": self.user, "companion": self.companion}

    def render(
        self, request: Request, template: str, status: int = 200, **values: Any
    ) -> HTMLResponse:
        base = prefix_of(request)
        values.update(
            csrf=request.scope.get("state", {}).get("csrf", ""),
            csrf_field=CSRF_FIELD,
            user=self.user,
            companion=self.companion,
            base=base,
            path=request.url.path.removeprefix(base),
            notice=NOTICES.get(request.query_params.get("notice", ""), ""),
        )
        body = self._env.get_template(template).render(**values)
        return HTMLResponse(body, status_code=status)

    async def run(self, work: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """A call of the synchronous API, off the event loop."""
        return await run_in_threadpool(work, *args, **kwargs)


async def checked_form(request: Request, max_fields: int = 20) -> FormData:
    """The form of a change, bounded and with the session's CSRF token, or a 4xx."""
    length = request.headers.get("content-length")
    if length is None or not length.isdigit():
        raise HTTPException(411, "A change must say how long it is.")
    if int(length) > MAX_BODY_BYTES:
        raise HTTPException(413, f"A change is at most {MAX_BODY_BYTES // 1024} KiB.")
    form = await request.form(max_files=0, max_fields=max_fields, max_part_size=MAX_BODY_BYTES)
    token = form.get(CSRF_FIELD)
    if not form_csrf_ok(request.scope, token if isinstance(token, str) else None):
        raise HTTPException(403, "This form is out of date: reload the page and try again.")
    return form


def field(form: FormData, name: str) -> str:
    value = form.get(name, "")
    return value if isinstance(value, str) else ""


def prefix_of(request: Request) -> str:
    """The page's secret path prefix (the guard's): every link, form and redirect starts
    with it, so the browser sends the session cookie, whose Path it is, to no other address."""
    return str(request.scope.get("root_path", ""))


def back(request: Request, path: str, notice: str = "") -> RedirectResponse:
    """Post/redirect/get, with a notice (one of NOTICES) for the next page."""
    target = prefix_of(request) + path + ("?" + urlencode({"notice": notice}) if notice else "")
    return RedirectResponse(target, status_code=303)


def page_number(raw: str) -> int:
    """The ``page`` of an address, from 1: one rule for the memories' and the review queue's
    pages, so both refuse the same odd ones."""
    if not (raw.isascii() and raw.isdecimal()) or not 1 <= int(raw) <= MAX_PAGE:
        raise HTTPException(400, f"The page is a number from 1 to {MAX_PAGE}.")
    return int(raw)


def memory_id(request: Request) -> str:
    raw = str(request.path_params["memory_id"])
    try:
        return str(uuid.UUID(raw))
    except ValueError:
        raise HTTPException(404, "There is no such memory.") from None
