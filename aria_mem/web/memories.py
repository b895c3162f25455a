"""The memory pages: the list (search, filters, sort, paging), one memory with its history,
and the changes a person makes to one: edit, pin, archive, restore, confirm, forget."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import urlencode

from starlette.datastructures import FormData
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from aria_mem.api import Memory, MemoryOrder, MemoryStatus, MemoryType
from aria_mem.domain.mentions import MAX_MENTIONS
from aria_mem.web.toolkit import PAGE_SIZE, Page, back, checked_form, field, memory_id, page_number

_CHOICES = ("", "yes", "no")


def routes(page: Page) -> list[Route]:
    async def listing(request: Request) -> Response:
        filters = _filters(request)
        number = page_number(request.query_params.get("page", "1"))
        rows, more, how = await page.run(_find, page, filters, number)
        return page.render(
            request,
            "memories.html",
            memories=rows,
            filters=filters,
            number=number,
            more=more,
            how=how,
            types=[t.value for t in MemoryType],
            statuses=[s.value for s in MemoryStatus],
            orders=[o.value for o in MemoryOrder],
            query_for=lambda n: _query(filters, n),
        )

    async def one(request: Request) -> Response:
        found = await page.run(page.memory.get, memory_id(request), **page.scope)
        history = await page.run(page.memory.history, found.id, **page.scope)
        return page.render(request, "memory.html", memory=found, history=history)

    async def edit(request: Request) -> Response:
        form = await checked_form(request)
        found = await page.run(page.memory.get, memory_id(request), **page.scope)
        changes = _changes(form, found)
        if changes:
            await page.run(page.memory.update, found.id, **changes, **page.scope)
        return back(request, f"/memories/{found.id}", "saved")

    async def act(request: Request) -> Response:
        await checked_form(request)
        target = memory_id(request)
        action = str(request.path_params["action"])
        calls: dict[str, tuple[Any, dict[str, Any], str]] = {
            "pin": (page.memory.update, {"pinned": True}, "pinned"),
            "unpin": (page.memory.update, {"pinned": False}, "unpinned"),
            "archive": (page.memory.update, {"archived": True}, "archived"),
            "restore": (page.memory.restore, {}, "restored"),
            "confirm": (page.memory.confirm, {}, "confirmed"),
        }
        if action not in calls:
            raise HTTPException(404, "There is no such change.")
        call, extra, notice = calls[action]
        await page.run(call, target, **extra, **page.scope)
        return back(request, f"/memories/{target}", notice)

    async def ask_forget(request: Request) -> Response:
        found = await page.run(page.memory.get, memory_id(request), **page.scope)
        turns = await page.run(page.memory.conversations.turns_mentioning, found.text, **page.scope)
        return page.render(request, "forget.html", memory=found, turns=turns)

    async def forget(request: Request) -> Response:
        """Forgets the memory, then the turns the person was shown and left ticked (only
        those that still mention it, of this user and companion)."""
        form = await checked_form(request, max_fields=MAX_MENTIONS + 5)
        found = await page.run(page.memory.get, memory_id(request), **page.scope)
        ticked = {v for v in form.getlist("turn") if isinstance(v, str)}
        turns = []
        if ticked:
            mentioning = await page.run(
                page.memory.conversations.turns_mentioning, found.text, **page.scope
            )
            turns = [t for t in mentioning if str(t.id) in ticked]
        await page.run(page.memory.forget, found.id, **page.scope)
        if turns:
            await page.run(page.memory.conversations.forget_turns, turns, **page.scope)
        return back(request, "/memories", "forgotten-with-turns" if turns else "forgotten")

    return [
        Route("/memories", listing),
        Route("/memories/{memory_id}", one),
        Route("/memories/{memory_id}/edit", edit, methods=["POST"]),
        Route("/memories/{memory_id}/forget", ask_forget),
        Route("/memories/{memory_id}/forget", forget, methods=["POST"]),
        Route("/memories/{memory_id}/{action}", act, methods=["POST"]),
    ]


def _filters(request: Request) -> dict[str, str]:
    params = request.query_params
    wanted = {
        "q": params.get("q", "").strip()[:500],
        "type": params.get("type", ""),
        "status": params.get("status", ""),
        "pinned": params.get("pinned", ""),
        "held": params.get("held", ""),
        "expiring": params.get("expiring", ""),
        "sort": params.get("sort", MemoryOrder.CREATED.value),
        "order": params.get("order", "newest"),
    }
    if wanted["type"] and wanted["type"] not in {t.value for t in MemoryType}:
        raise HTTPException(400, "There is no such memory type.")
    if wanted["status"] and wanted["status"] not in {s.value for s in MemoryStatus}:
        raise HTTPException(400, "There is no such status.")
    if wanted["sort"] not in {o.value for o in MemoryOrder}:
        raise HTTPException(400, "There is no such order.")
    if wanted["order"] not in ("newest", "oldest"):
        raise HTTPException(400, "The order is newest or oldest.")
    for name in ("pinned", "held", "expiring"):
        if wanted[name] not in _CHOICES:
            raise HTTPException(400, f"{name} is yes, no or empty.")
    return wanted


def _query(filters: dict[str, str], number: int) -> str:
    return urlencode({**{k: v for k, v in filters.items() if v}, "page": str(number)})


def _choice(value: str) -> bool | None:
    return None if not value else value == "yes"


@dataclass(frozen=True)
class _Narrowing:
    """The filters of the list, as the API takes them."""

    memory_type: str | None
    status: MemoryStatus | None
    pinned: bool | None
    held: bool | None
    expiring: bool | None

    @classmethod
    def of(cls, filters: dict[str, str]) -> _Narrowing:
        return cls(
            memory_type=filters["type"] or None,
            status=MemoryStatus(filters["status"]) if filters["status"] else None,
            pinned=_choice(filters["pinned"]),
            held=_choice(filters["held"]),
            expiring=_choice(filters["expiring"]),
        )

    def admits(self, memory: Memory) -> bool:
        return all(
            (
                self.memory_type is None or memory.type.value == self.memory_type,
                self.status is None or memory.status == self.status,
                self.pinned is None or memory.pinned == self.pinned,
                self.held is None or (memory.held_until_stage is not None) == self.held,
                self.expiring is None or (memory.expires_at is not None) == self.expiring,
            )
        )


def _find(page: Page, filters: dict[str, str], number: int) -> tuple[list[Memory], bool, str]:
    """One page of memories and whether more follow. With words to look for, the companion's
    own search (meaning and words, active memories) comes first, then memories of any status
    whose text holds them."""
    narrow = _Narrowing.of(filters)
    if not filters["q"]:
        rows = page.memory.list(
            memory_type=narrow.memory_type,
            status=narrow.status,
            pinned=narrow.pinned,
            held=narrow.held,
            expiring=narrow.expiring,
            order=MemoryOrder(filters["sort"]),
            newest_first=filters["order"] == "newest",
            offset=(number - 1) * PAGE_SIZE,
            limit=PAGE_SIZE + 1,
            user=page.user,
            companion=page.companion,
        )
        return rows[:PAGE_SIZE], len(rows) > PAGE_SIZE, "listed"
    result = page.memory.search(filters["q"], user=page.user, companion=page.companion)
    ranked = sorted(result.evidence.items(), key=lambda item: item[1].fused_rank or 1_000_000)
    by_id = {r.memory.id: r.memory for r in result.chosen}
    by_id.update({d.memory_id: d.memory for d in result.dropped if d.memory is not None})
    found = [by_id[i] for i, _ in ranked if i in by_id]
    seen = {m.id for m in found}
    found += [
        m
        for m in page.memory.list(
            contains=filters["q"], limit=1000, user=page.user, companion=page.companion
        )
        if m.id not in seen
    ]
    found = [m for m in found if narrow.admits(m)]
    start = (number - 1) * PAGE_SIZE
    return found[start : start + PAGE_SIZE], len(found) > start + PAGE_SIZE, "searched"


def _changes(form: FormData, memory: Memory) -> dict[str, Any]:
    """What the edit form changed: each field is compared with the value the form was shown
    with (sent back hidden), so saving a new text leaves the importance and expiry as they
    are, whatever the form rounded or dropped when it showed them."""
    changes: dict[str, Any] = {}
    text = _lines(field(form, "text")).strip()
    if text and text != _lines(field(form, "shown_text")).strip():
        changes["text"] = text
    importance = field(form, "importance").strip()
    if importance != field(form, "shown_importance").strip():
        changes["importance"] = _number("importance", importance)
    expires = field(form, "expires").strip()
    if field(form, "clear_expiry"):
        if memory.expires_at is not None:
            changes["clear_expiry"] = True
    elif expires != field(form, "shown_expires").strip():
        if expires:
            changes["expires"] = _moment(expires)
        elif memory.expires_at is not None:
            changes["clear_expiry"] = True
    return changes


def _lines(text: str) -> str:
    """A form's text with the line ends browsers send (CRLF) as stored (LF)."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _number(name: str, raw: str) -> float:
    try:
        return float(raw)
    except ValueError:
        raise HTTPException(400, f"{name} is a number from 0 to 1.") from None


def _moment(raw: str) -> datetime:
    """A day from the form: the end of that day, local time."""
    try:
        day = datetime.strptime(raw, "%Y-%m-%d")
        return day.replace(hour=23, minute=59, second=59).astimezone()
    except (ValueError, OverflowError):
        raise HTTPException(400, "The expiry is a date like 2027-01-31.") from None
