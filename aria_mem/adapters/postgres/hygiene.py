"""Supersession, merges, retirement, history and the review queue in PostgreSQL: each change
and the event that records it in one transaction."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import Any

import psycopg

from aria_mem.adapters.postgres import rows
from aria_mem.adapters.postgres.connection import Database, Row
from aria_mem.adapters.postgres.consolidation import PgConsolidation
from aria_mem.adapters.postgres.questions import (
    HOLD,
    before_rows,
    lock_questions,
    move_questions,
    one_at_a_time,
    reorder_questions,
    review_item,
    settle,
    standing,
)
from aria_mem.adapters.postgres.retry import rerun_on_deadlock
from aria_mem.domain.hygiene import (
    EventKind,
    MemoryEvent,
    ReviewItem,
    confirmed_by_repeat,
    last_said,
)
from aria_mem.domain.models import Memory
from aria_mem.domain.validation import no_memory, normalize_text
from aria_mem.errors import ValidationError

_PENDING = "updated_at = now(), index_state = 'pending', index_attempts = 0"
SETTLE_BATCH = 1000
"""Memories whose questions one transaction puts right after an import."""


def _event(
    conn: psycopg.Connection[Row],
    memory_id: uuid.UUID,
    kind: EventKind,
    *,
    other_id: uuid.UUID | None = None,
    text: str | None = None,
    detail: str = "",
) -> None:
    conn.execute(
        "INSERT INTO memory_events (memory_id, kind, other_id, text, detail)"
        " VALUES (%s, %s, %s, %s, %s)",
        (memory_id, kind.value, other_id, text, detail),
    )


def record_event(
    conn: psycopg.Connection[Row], memory_id: uuid.UUID, kind: EventKind, **more: Any
) -> None:
    """For the memories' own writes (an edit keeps the text before)."""
    _event(conn, memory_id, kind, **more)


def _one(conn: psycopg.Connection[Row], sql: str, params: Sequence[Any]) -> Memory:
    row = conn.execute(f"{sql} RETURNING {rows.MEMORY}", params).fetchone()
    if row is None:
        raise no_memory(params[-1])
    return rows.memory(row)


class PgHygiene(PgConsolidation):
    def __init__(self, db: Database) -> None:
        self._db = db

    @rerun_on_deadlock
    def merge_into(
        self,
        memory_id: uuid.UUID,
        *,
        said: str,
        text: str | None,
        importance: float,
        confidence: float,
        detail: str,
    ) -> Memory:
        sets = [
            "last_confirmed_at = now()",
            "importance = greatest(importance, %s)",
            "confidence = greatest(confidence, %s)",
        ]
        params: list[Any] = [importance, confidence]
        if text is not None:
            sets += ["text = %s", "normalized_text = %s", _PENDING]
            params += [text, normalize_text(text)]
        with self._db.connection() as conn, conn.transaction():
            lock_questions(conn, [memory_id])
            before_rows(conn)
            row = conn.execute(
                f"SELECT text FROM memories WHERE id = %s {HOLD}", (memory_id,)
            ).fetchone()
            if row is None:
                raise no_memory(memory_id)
            try:
                merged = _one(
                    conn,
                    f"UPDATE memories SET {', '.join(sets)} WHERE id = %s",
                    [*params, memory_id],
                )
            except psycopg.errors.UniqueViolation:  # the new wording is another memory's
                raise ValidationError("That wording is already another memory") from None
            if text is not None:
                merged = rows.reread_event_dates(conn, merged)
            kept = row["text"] if text is not None else None
            _event(conn, memory_id, EventKind.MERGED, text=said, detail=detail)
            if kept is not None:
                _event(conn, memory_id, EventKind.EDITED, text=kept, detail="a fuller wording")
            reorder_questions(conn, merged, last_said(merged))  # a repeat said now
        return merged

    @rerun_on_deadlock
    def restated(self, memory_id: uuid.UUID) -> None:
        with self._db.connection() as conn, conn.transaction():
            row = conn.execute(f"SELECT {rows.MEMORY} FROM memories WHERE id = %s", (memory_id,))
            if (said := row.fetchone()) is not None:
                memory = rows.memory(said)
                reorder_questions(conn, memory, last_said(memory))

    @rerun_on_deadlock
    def supersede(
        self, old_id: uuid.UUID, new_id: uuid.UUID, detail: str, *, merged: bool = False
    ) -> Memory:
        if old_id == new_id:
            raise ValidationError("A memory cannot supersede itself — name another memory")
        with self._db.connection() as conn, conn.transaction():
            lock_questions(conn, [old_id, new_id])
            before_rows(conn)
            found = conn.execute(  # its key first, as a forget of it takes its row
                f"SELECT {rows.MEMORY} FROM memories WHERE id = %s FOR KEY SHARE", (new_id,)
            ).fetchone()
            old = _one(
                conn,
                "UPDATE memories SET status = 'superseded', superseded_by = %s, "
                + _PENDING
                + " WHERE id = %s",
                [new_id, old_id],
            )
            _event(conn, old_id, EventKind.SUPERSEDED, other_id=new_id, detail=detail)
            _event(conn, new_id, EventKind.REPLACES, other_id=old_id, detail=detail)
            if found is not None:
                holder = rows.memory(found)
                said_at = max(last_said(holder), last_said(old))
                move_questions(conn, old, holder, said_at, merged)
        return old

    @rerun_on_deadlock
    def fold(self, new_id: uuid.UUID, into_id: uuid.UUID, detail: str) -> Memory:
        if new_id == into_id:
            raise ValidationError("A memory cannot be merged into itself — name another memory")
        with self._db.connection() as conn, conn.transaction():
            lock_questions(conn, [new_id, into_id])
            before_rows(conn)
            into = conn.execute(  # when its fact was last stated, before the repeat's
                f"SELECT {rows.MEMORY} FROM memories WHERE id = %s {HOLD}", (into_id,)
            ).fetchone()
            new = _one(
                conn,
                "UPDATE memories SET status = 'superseded', superseded_by = %s, "
                + _PENDING
                + " WHERE id = %s",
                [into_id, new_id],
            )
            said_at = last_said(new)
            confirmed: datetime | None = said_at  # ``into`` gone: the update below raises
            if into is not None:
                before = rows.memory(into)
                said_at = max(said_at, last_said(before))
                confirmed = confirmed_by_repeat(before, new)
            kept = _one(
                conn,
                "UPDATE memories SET last_confirmed_at = %s,"
                " importance = greatest(importance, %s), confidence = greatest(confidence, %s)"
                " WHERE id = %s",
                [confirmed, new.importance, new.confidence, into_id],
            )
            _event(conn, new_id, EventKind.SUPERSEDED, other_id=into_id, detail=detail)
            _event(conn, into_id, EventKind.MERGED, other_id=new_id, text=new.text, detail=detail)
            move_questions(conn, new, kept, said_at, True)
        return kept

    @rerun_on_deadlock
    def restore(self, memory_id: uuid.UUID, detail: str, *, reconsider: bool = False) -> Memory:
        with self._db.connection() as conn, conn.transaction():
            restored = _one(
                conn,
                "UPDATE memories SET status = 'active', superseded_by = NULL, "
                "to_consolidate = to_consolidate OR %s, " + _PENDING + " WHERE id = %s",
                [reconsider, memory_id],
            )
            _event(conn, memory_id, EventKind.RESTORED, detail=detail)
        return restored

    @rerun_on_deadlock
    def retire(self, memory_id: uuid.UUID, detail: str) -> Memory:
        with self._db.connection() as conn, conn.transaction():
            retired = _one(
                conn,
                f"UPDATE memories SET status = 'archived', {_PENDING}"
                " WHERE id = %s AND status = 'active'",
                [memory_id],
            )
            _event(conn, memory_id, EventKind.RETIRED, detail=detail)
        return retired

    @rerun_on_deadlock
    def keep(self, memory_id: uuid.UUID, detail: str) -> None:
        with self._db.connection() as conn:
            _event(conn, memory_id, EventKind.KEPT, detail=detail)

    def events(self, memory_ids: Sequence[uuid.UUID]) -> list[MemoryEvent]:
        with self._db.connection() as conn:
            found = conn.execute(
                "SELECT memory_id, kind, at, other_id, text, detail FROM memory_events"
                " WHERE memory_id = ANY(%s) ORDER BY at, id",
                (list(memory_ids),),
            ).fetchall()
        return [
            MemoryEvent(
                r["memory_id"],
                EventKind(r["kind"]),
                r["at"],
                r["other_id"],
                r["text"],
                r["detail"],
            )
            for r in found
        ]

    def replaced_by(self, memory_id: uuid.UUID) -> list[Memory]:
        with self._db.connection() as conn:
            found = conn.execute(
                f"SELECT {rows.MEMORY} FROM memories WHERE superseded_by = %s ORDER BY created_at",
                (memory_id,),
            ).fetchall()
        return [rows.memory(r) for r in found]

    def retirement_candidates(self, older_than: datetime, limit: int) -> list[Memory]:
        with self._db.connection() as conn:
            found = conn.execute(
                f"SELECT {rows.MEMORY} FROM memories"
                " WHERE status = 'active' AND NOT pinned"
                " AND type NOT IN ('ProfileFact', 'Boundary')"
                " AND NOT EXISTS (SELECT 1 FROM memory_events e"
                "                 WHERE e.memory_id = memories.id AND e.kind = 'kept')"
                " AND greatest(created_at, coalesce(last_used_at, created_at),"
                "              coalesce(last_confirmed_at, created_at)) < %s"
                " ORDER BY created_at LIMIT %s",
                (older_than, limit),
            ).fetchall()
        return [rows.memory(r) for r in found]

    # -- the review queue -----------------------------------------------------------------

    @rerun_on_deadlock
    def propose(self, item: ReviewItem) -> bool:
        with self._db.connection() as conn, conn.transaction():
            asked = standing(conn, item)
            if asked is None:
                return False
            one_at_a_time(conn, asked)
            done = conn.execute(  # one question a pair, either way round
                "INSERT INTO review_items (id, user_id, companion_id, kind, memory_id,"
                " other_id, reason, created_at) SELECT %s, %s, %s, %s, %s, %s, %s, %s"
                " WHERE NOT EXISTS (SELECT 1 FROM review_items WHERE kind = %s"
                " AND memory_id = %s AND other_id = %s) ON CONFLICT DO NOTHING",
                (
                    asked.id,
                    asked.user_id,
                    asked.companion_id,
                    asked.kind.value,
                    asked.memory_id,
                    asked.other_id,
                    asked.reason,
                    asked.created_at,
                    asked.kind.value,
                    asked.other_id,
                    asked.memory_id,
                ),
            )
            return done.rowcount == 1

    @rerun_on_deadlock
    def settle_questions(self, memory_ids: Sequence[uuid.UUID]) -> int:
        ids = list(dict.fromkeys(memory_ids))
        changed = 0
        for start in range(0, len(ids), SETTLE_BATCH):
            with self._db.connection() as conn, conn.transaction():
                changed += settle(conn, ids[start : start + SETTLE_BATCH])
        return changed

    def reviews(
        self,
        user_id: str | None,
        companion_id: str | None,
        *,
        limit: int | None = None,
        offset: int = 0,
    ) -> list[ReviewItem]:
        with self._db.connection() as conn:
            found = conn.execute(
                "SELECT * FROM review_items WHERE (%(u)s::text IS NULL OR user_id = %(u)s)"
                " AND (%(c)s::text IS NULL OR companion_id = %(c)s) ORDER BY created_at, id"
                " LIMIT %(n)s OFFSET %(o)s",
                {"u": user_id, "c": companion_id, "n": limit, "o": offset},
            ).fetchall()
        return [review_item(r) for r in found]

    def asked_against(self, memory_id: uuid.UUID) -> list[uuid.UUID]:
        with self._db.connection() as conn:  # review_items_once serves it, kind by kind
            found = conn.execute(
                "SELECT other_id FROM review_items WHERE kind IN ('merge', 'conflict')"
                " AND memory_id = %s AND other_id IS NOT NULL ORDER BY created_at, id",
                (memory_id,),
            ).fetchall()
        return [r["other_id"] for r in found]

    def count_reviews(self, user_id: str | None, companion_id: str | None) -> int:
        with self._db.connection() as conn:
            found = conn.execute(
                "SELECT count(*) AS n FROM review_items"
                " WHERE (%(u)s::text IS NULL OR user_id = %(u)s)"
                " AND (%(c)s::text IS NULL OR companion_id = %(c)s)",
                {"u": user_id, "c": companion_id},
            ).fetchone()
        return int(found["n"]) if found else 0

    def review_memories(
        self, review_ids: Sequence[uuid.UUID], user_id: str | None, companion_id: str | None
    ) -> list[Memory]:
        if not review_ids:
            return []
        with self._db.connection() as conn:
            found = conn.execute(
                f"SELECT {rows.MEMORY} FROM memories"
                " WHERE (id, user_id, companion_id) IN ("
                "  SELECT named.id, r.user_id, r.companion_id FROM review_items r,"
                "  unnest(ARRAY[r.memory_id, r.other_id]) AS named(id)"
                "  WHERE r.id = ANY(%(ids)s) AND named.id IS NOT NULL"
                "  AND (%(u)s::text IS NULL OR r.user_id = %(u)s)"
                "  AND (%(c)s::text IS NULL OR r.companion_id = %(c)s))",
                {"ids": list(review_ids), "u": user_id, "c": companion_id},
            ).fetchall()
        return [rows.memory(r) for r in found]

    def find_review(self, prefix: str, owner: tuple[str, str] | None) -> ReviewItem:
        with self._db.connection() as conn:
            found = rows.owned_by_prefix(
                conn,
                "review_items",
                prefix,
                owner,
                what="review item",
                noun="review items",
                where="aria-mem review",
                missing=f"No review item {prefix!r} — `aria-mem review` lists them",
            )
        return review_item(found)

    @rerun_on_deadlock
    def close_review(self, review_id: uuid.UUID) -> None:
        with self._db.connection() as conn:
            conn.execute("DELETE FROM review_items WHERE id = %s", (review_id,))
