"""Whole operations, as the aria-mem service answers them for a command: the command sends one
request (``api.remote.call``) and renders the JSON answer, so it imports neither PostgreSQL's
driver nor the index client nor the model; the service runs the operation on the public API,
with an ``AriaMem`` of the command's own settings kept open (its PostgreSQL pool beside the
index and the model the service holds).

Every operation scopes its user and companion per request, exactly as in-process: the answer
is what the command would compute itself, and ``answer`` is also what a command runs in-process
when no service can answer it (an index server of one's own, ``--no-service``).

    python -m aria_mem.operations INDEX_DIR [--idle-exit S] [--client-timeout S]
"""

from __future__ import annotations

import json
import os
import sys
import uuid
from collections.abc import Callable
from dataclasses import fields
from datetime import date, datetime
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aria_mem.api import remote
from aria_mem.errors import UsageError

if TYPE_CHECKING:
    from aria_mem.api import AriaMem, Dropped, Ranked, SearchResult, WriteResult
    from aria_mem.domain.models import Memory

# -- search ---------------------------------------------------------------------------------


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


def search_json(result: SearchResult) -> dict[str, Any]:
    """A search as `aria-mem search --json` prints it."""
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


def search(mem: AriaMem, args: dict[str, Any]) -> dict[str, Any]:
    """`aria-mem search`: the search as JSON, with ``why`` (the fate of one memory) when
    asked."""
    result = mem.search(
        str(args["message"]),
        previous=_text_or_none(args.get("previous")),
        user=_text_or_none(args.get("user")),
        companion=_text_or_none(args.get("companion")),
    )
    data = search_json(result)
    why = _text_or_none(args.get("why"))
    if why is not None:
        fate = mem.why(result, why)
        data["why"] = {"id": str(fate.memory_id), "outcome": fate.outcome, "detail": fate.detail}
    return data


# -- memories ---------------------------------------------------------------------------------


def memory_wire(memory: Memory) -> dict[str, Any]:
    """Every field of a memory as JSON (``memory_from_wire`` reads it back whole), so a
    command renders it exactly as it would the memory itself."""
    out: dict[str, Any] = {}
    for f in fields(memory):
        value = getattr(memory, f.name)
        if isinstance(value, Enum):
            value = value.value
        elif isinstance(value, date | uuid.UUID):  # datetime is a date
            value = value.isoformat() if isinstance(value, date) else str(value)
        out[f.name] = value
    return out


def memory_from_wire(data: dict[str, Any]) -> Memory:
    from aria_mem.domain.models import IndexState, Memory, MemoryStatus, MemoryType, Stage

    def when(name: str) -> datetime | None:
        raw = data.get(name)
        return None if raw is None else datetime.fromisoformat(raw)

    def day(name: str) -> date | None:
        raw = data.get(name)
        return None if raw is None else date.fromisoformat(raw)

    created, updated = when("created_at"), when("updated_at")
    assert created is not None and updated is not None
    return Memory(
        **{
            **data,
            "id": uuid.UUID(data["id"]),
            "type": MemoryType(data["type"]),
            "status": MemoryStatus(data["status"]),
            "held_until_stage": None
            if data.get("held_until_stage") is None
            else Stage(data["held_until_stage"]),
            "index_state": IndexState(data["index_state"]),
            "superseded_by": None
            if data.get("superseded_by") is None
            else uuid.UUID(data["superseded_by"]),
            "expires_at": when("expires_at"),
            "created_at": created,
            "updated_at": updated,
            "last_used_at": when("last_used_at"),
            "last_confirmed_at": when("last_confirmed_at"),
            "event_from": day("event_from"),
            "event_until": day("event_until"),
        }
    )


def list_memories(mem: AriaMem, args: dict[str, Any]) -> list[dict[str, Any]]:
    """`aria-mem list`: the memories, each whole (``memory_wire``)."""
    from aria_mem.domain.models import MemoryStatus

    status = _text_or_none(args.get("status"))
    limit = args.get("limit")
    memories = mem.list(
        user=_text_or_none(args.get("user")),
        companion=_text_or_none(args.get("companion")),
        everyone=args.get("everyone") is True,
        status=None if status is None else MemoryStatus(status),
        limit=limit if isinstance(limit, int) else None,
        memory_type=_text_or_none(args.get("type")),
        contains=_text_or_none(args.get("grep")),
        newest_first=args.get("newest") is True,
    )
    return [memory_wire(m) for m in memories]


def show(mem: AriaMem, args: dict[str, Any]) -> dict[str, Any]:
    """`aria-mem show`: one memory of the user and companion, whole."""
    found = mem.get(
        str(args["memory"]),
        user=_text_or_none(args.get("user")),
        companion=_text_or_none(args.get("companion")),
    )
    return memory_wire(found)


def write_wire(result: WriteResult) -> dict[str, Any]:
    """A write's result, its memories whole (``write_from_wire`` reads it back)."""
    return {
        "memory": memory_wire(result.memory),
        "created": result.created,
        "indexed": result.indexed,
        "problem": result.problem,
        "merged": result.merged,
        "superseded": None if result.superseded is None else memory_wire(result.superseded),
        "review": result.review,
        "note": result.note,
        "restored": result.restored,
    }


def write_from_wire(data: dict[str, Any]) -> WriteResult:
    from aria_mem.api import WriteResult

    superseded = data["superseded"]
    return WriteResult(
        **{
            **data,
            "memory": memory_from_wire(data["memory"]),
            "superseded": None if superseded is None else memory_from_wire(superseded),
        }
    )


def remember(mem: AriaMem, args: dict[str, Any]) -> dict[str, Any]:
    """`aria-mem remember`: the fact as the command was given it (stdin read, the expiry
    parsed, by the command)."""
    expires = _text_or_none(args.get("expires"))
    result = mem.remember(
        str(args["text"]),
        memory_type=str(args["type"]),
        importance=float(args["importance"]),
        emotional_significance=float(args["emotion"]),
        confidence=float(args["confidence"]),
        reason=str(args.get("reason") or ""),
        pinned=args.get("pinned") is True,
        expires=None if expires is None else datetime.fromisoformat(expires),
        hold_until=_text_or_none(args.get("hold_until")),
        merge=args.get("merge") is not False,
        replaces=_text_or_none(args.get("replaces")),
        user=_text_or_none(args.get("user")),
        companion=_text_or_none(args.get("companion")),
    )
    return write_wire(result)


# -- status ---------------------------------------------------------------------------------


def status(mem: AriaMem, args: dict[str, Any]) -> dict[str, Any]:
    from aria_mem.api.status_json import status_body

    return status_body(mem)


# -- the table --------------------------------------------------------------------------------

OPERATIONS: dict[str, Callable[[AriaMem, dict[str, Any]], Any]] = {
    "search": search,
    remote.RETRIEVE: lambda mem, args: remote.answer_retrieve(mem.search, args),
    "remember": remember,
    "list": list_memories,
    "show": show,
    "status": status,
}
"""Every whole operation, by the name a request gives: the command's ``AriaMem`` and its
arguments in, JSON out."""


def answer(mem: AriaMem, name: str, args: dict[str, Any]) -> Any:
    """Operation ``name`` on ``mem``, as JSON values (what crosses the socket; in-process the
    same, so both ways render alike)."""
    operation = OPERATIONS.get(name)
    if operation is None:
        raise UsageError(f"aria-mem knows no operation {name!r}")
    answered = operation(mem, args)
    if isinstance(answered, bytes):  # a program's search result whole: sent as it is
        return answered
    return json.loads(json.dumps(answered, default=str))


def _text_or_none(value: object) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise UsageError(f"expected text, got {type(value).__name__}")
    return value


# -- the service's side -----------------------------------------------------------------------


def handle(root: Path, request: dict[str, Any]) -> Any:
    """A request the service received: the operation run on the ``AriaMem`` of the settings
    the command (or program) runs with, kept open for the next request (``api.kept``)."""
    from aria_mem.api import kept

    args = request.get("args")
    if not isinstance(args, dict):
        raise UsageError("an operation's args are a JSON object")
    settings = remote.settings_of(root, request)  # a command's config file read again
    name = str(request.get("name"))
    with kept.borrowed(settings, search=name == remote.RETRIEVE) as mem:
        return answer(mem, name, args)


def close_all() -> None:
    """Close every ``AriaMem`` the service keeps (once the requests using them are done)."""
    from aria_mem.api import kept

    kept.close_all()


def main(argv: list[str] | None = None) -> int:
    try:
        return remote.serve(argv, handle, OPERATIONS)
    finally:
        close_all()


if __name__ == "__main__":
    sys.stdout.flush()
    # os._exit: torch's and Edge's native threads never see interpreter teardown
    os._exit(main())
