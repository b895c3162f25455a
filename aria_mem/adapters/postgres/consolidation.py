"""Consolidation in the background, in PostgreSQL: the memories still to judge (the
``to_consolidate`` mark every insert sets, migration 011), what each pass did, and a history
brought back by an import."""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from aria_mem.adapters.postgres import rows
from aria_mem.adapters.postgres.connection import Database, Row
from aria_mem.adapters.postgres.retry import rerun_on_deadlock
from aria_mem.domain.hygiene import Consolidation, MemoryEvent, Outcome
from aria_mem.domain.models import Memory
from aria_mem.errors import ValidationError


class PgConsolidation:
    _db: Database

    def to_consolidate(self, limit: int, owner: tuple[str, str] | None = None) -> list[Memory]:
        with self._db.connection() as conn:
            found = conn.execute(
                f"SELECT {rows.MEMORY} FROM memories WHERE to_consolidate"
                " AND (%(u)s::text IS NULL OR (user_id = %(u)s AND companion_id = %(c)s))"
                " ORDER BY created_at, id LIMIT %(n)s",
                {"u": owner[0] if owner else None, "c": owner[1] if owner else None, "n": limit},
            ).fetchall()
        return [rows.memory(r) for r in found]

    @rerun_on_deadlock
    def consolidated(self, memory_id: uuid.UUID, action: Consolidation | None) -> None:
        with self._db.connection() as conn, conn.transaction():
            cleared = conn.execute(
                "UPDATE memories SET to_consolidate = false WHERE id = %s", (memory_id,)
            )
            if action is None or cleared.rowcount == 0:
                return
            conn.execute(
                "INSERT INTO consolidations (id, user_id, companion_id, memory_id, other_id,"
                " outcome, reason, at) SELECT %s, %s, %s, %s, %s, %s, %s, %s"
                " WHERE %s::uuid IS NULL OR EXISTS (SELECT 1 FROM memories WHERE id = %s)",
                (
                    action.id,
                    action.user_id,
                    action.companion_id,
                    action.memory_id,
                    action.other_id,
                    action.outcome.value,
                    action.reason,
                    action.at,
                    action.other_id,
                    action.other_id,
                ),
            )

    def consolidations(
        self, user_id: str | None, companion_id: str | None, limit: int
    ) -> list[Consolidation]:
        with self._db.connection() as conn:
            found = conn.execute(
                "SELECT * FROM consolidations WHERE (%(u)s::text IS NULL OR user_id = %(u)s)"
                " AND (%(c)s::text IS NULL OR companion_id = %(c)s)"
                " ORDER BY at DESC, id LIMIT %(n)s",
                {"u": user_id, "c": companion_id, "n": limit},
            ).fetchall()
        return [_consolidation(r) for r in found]

    def find_consolidation(self, prefix: str, owner: tuple[str, str] | None) -> Consolidation:
        with self._db.connection() as conn:
            found = rows.owned_by_prefix(
                conn,
                "consolidations",
                prefix,
                owner,
                what="pass action",
                noun="pass actions",
                where="aria-mem tidy --list",
                missing=f"No pass action {prefix!r} — `aria-mem tidy --list` lists them",
            )
        return _consolidation(found)

    @rerun_on_deadlock
    def mark_undone(self, action_id: uuid.UUID) -> None:
        with self._db.connection() as conn:
            done = conn.execute(
                "UPDATE consolidations SET undone_at = now() WHERE id = %s AND undone_at IS NULL",
                (action_id,),
            )
        if done.rowcount == 0:
            raise ValidationError("That pass action was undone already — nothing to undo")

    @rerun_on_deadlock
    def add_events(self, events: Sequence[MemoryEvent]) -> int:
        if not events:
            return 0
        with self._db.connection() as conn, conn.transaction():
            added = 0
            for e in events:
                done = conn.execute(
                    "INSERT INTO memory_events (memory_id, kind, at, other_id, text, detail)"
                    " SELECT %(m)s, %(k)s, %(at)s, %(o)s, %(t)s, %(d)s"
                    " WHERE EXISTS (SELECT 1 FROM memories WHERE id = %(m)s)"
                    " AND NOT EXISTS (SELECT 1 FROM memory_events WHERE memory_id = %(m)s"
                    "  AND kind = %(k)s AND at = %(at)s"
                    "  AND other_id IS NOT DISTINCT FROM %(o)s)",
                    {
                        "m": e.memory_id,
                        "k": e.kind.value,
                        "at": e.at,
                        "o": e.other_id,
                        "t": e.text,
                        "d": e.detail,
                    },
                )
                added += done.rowcount
        return added


def _consolidation(r: Row) -> Consolidation:
    return Consolidation(
        r["id"],
        r["user_id"],
        r["companion_id"],
        r["memory_id"],
        r["other_id"],
        Outcome(r["outcome"]),
        r["reason"],
        r["at"],
        r["undone_at"],
    )
