"""The index queue in PostgreSQL: which memories and knowledge passages wait for the index
(one ``kind`` parameter picks the table), and the durable queue of vector removals."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime

from psycopg.rows import tuple_row

from aria_mem.adapters.postgres import rows
from aria_mem.adapters.postgres.connection import Database
from aria_mem.adapters.postgres.retry import rerun_on_deadlock
from aria_mem.domain.models import Kind
from aria_mem.domain.payload import knowledge_entry, memory_entry
from aria_mem.domain.records import IndexEntry, QueuedDeletion

_MAX_ERROR = 1000


class PgIndexQueue:
    def __init__(self, db: Database) -> None:
        self._db = db

    def pending(self, kind: Kind, limit: int) -> list[IndexEntry]:
        """Entries whose vector must be (re)written or removed, the least tried first; a
        memory says whether it may be used (usable ones get a vector, the others lose it)."""
        with self._db.connection() as conn:
            if kind is Kind.MEMORY:
                found = conn.execute(
                    f"SELECT {rows.MEMORY_M}, ({rows.USABLE}) AS usable FROM memories m"
                    f" {rows.JOIN_RELATIONSHIP} WHERE m.index_state = 'pending'"
                    " ORDER BY m.index_attempts, m.updated_at LIMIT %s",
                    (limit,),
                ).fetchall()
                return [memory_entry(rows.memory(r), bool(r["usable"])) for r in found]
            found = conn.execute(
                rows.KNOWLEDGE_SELECT + " WHERE k.index_state = 'pending'"
                " ORDER BY k.index_attempts, k.updated_at LIMIT %s",
                (limit,),
            ).fetchall()
        return [knowledge_entry(rows.knowledge_item(r)) for r in found]

    @rerun_on_deadlock
    def mark_indexed(
        self, kind: Kind, versions: Sequence[tuple[uuid.UUID, datetime]], model: str | None
    ) -> int:
        """In line with the index, unless changed since they were read (then they stay pending
        and the next pass writes the newer text)."""
        if not versions:
            return 0
        with self._db.connection() as conn:
            return conn.execute(
                f"UPDATE {rows.TABLES[kind]} t SET index_state = 'indexed', indexed_model = %s,"
                " index_error = NULL, index_attempts = 0"
                " FROM unnest(%s::uuid[], %s::timestamptz[]) AS v(id, updated_at)"
                " WHERE t.id = v.id AND t.updated_at = v.updated_at",
                (model, [v[0] for v in versions], [v[1] for v in versions]),
            ).rowcount

    @rerun_on_deadlock
    def mark_failed(self, kind: Kind, ids: Sequence[uuid.UUID], error: str) -> None:
        if ids:
            with self._db.connection() as conn:
                conn.execute(
                    f"UPDATE {rows.TABLES[kind]} SET index_attempts = index_attempts + 1,"
                    " index_error = %s WHERE id = ANY(%s) AND index_state = 'pending'",
                    (error[:_MAX_ERROR], list(ids)),
                )

    @rerun_on_deadlock
    def mark_pending(self, kind: Kind, ids: Sequence[uuid.UUID]) -> int:
        if not ids:
            return 0
        with self._db.connection() as conn:
            return conn.execute(
                f"UPDATE {rows.TABLES[kind]} SET index_state = 'pending' WHERE id = ANY(%s)",
                (list(ids),),
            ).rowcount

    def indexed_ids(self, kind: Kind, model: str) -> set[uuid.UUID]:
        with self._db.connection() as conn:
            found = (
                conn.cursor(row_factory=tuple_row)
                .execute(
                    f"SELECT id FROM {rows.TABLES[kind]}"
                    " WHERE index_state = 'indexed' AND indexed_model = %s",
                    (model,),
                )
                .fetchall()
            )
        return {r[0] for r in found}

    def unwanted(self, kind: Kind, ids: Sequence[uuid.UUID], model: str) -> set[uuid.UUID]:
        if not ids:
            return set()
        with self._db.connection() as conn:
            found = (
                conn.cursor(row_factory=tuple_row)
                .execute(
                    f"SELECT v.id FROM unnest(%s::uuid[]) AS v(id)"
                    f" LEFT JOIN {rows.TABLES[kind]} t ON t.id = v.id"
                    " WHERE t.id IS NULL OR (t.index_state = 'indexed'"
                    " AND t.indexed_model IS DISTINCT FROM %s)",
                    (list(ids), model),
                )
                .fetchall()
            )
        return {r[0] for r in found}

    @rerun_on_deadlock
    def mark_pending_for_model(self, model: str, *, force: bool = False) -> int:
        """Pending: every entry whose vector was made by another model (``force``: every
        entry, to rebuild a lost index). Returns how many changed."""
        which = "" if force else " AND indexed_model IS NOT NULL AND indexed_model <> %s"
        changed = 0
        with self._db.connection() as conn, conn.transaction():  # run again whole, counted once
            for table in rows.TABLES.values():
                changed += conn.execute(
                    f"UPDATE {table} SET index_state = 'pending', index_attempts = 0"
                    f" WHERE index_state = 'indexed'{which}",
                    () if force else (model,),
                ).rowcount
        return changed

    def pending_count(self) -> int:
        with self._db.connection() as conn:
            row = conn.execute(
                "SELECT (SELECT count(*) FROM memories WHERE index_state = 'pending')"
                " + (SELECT count(*) FROM knowledge_items WHERE index_state = 'pending') AS n"
            ).fetchone()
        assert row is not None
        return int(row["n"])

    @rerun_on_deadlock
    def mark_expired_pending(self) -> int:
        """Memories that expired since they were indexed: pending, so their vector goes."""
        with self._db.connection() as conn:
            return conn.execute(
                "UPDATE memories SET index_state = 'pending' WHERE index_state = 'indexed'"
                " AND indexed_model IS NOT NULL AND expires_at IS NOT NULL"
                " AND expires_at <= now()"
            ).rowcount

    def queued_deletions(self, limit: int) -> list[QueuedDeletion]:
        with self._db.connection() as conn:
            found = conn.execute(
                "SELECT id, collection, point_id FROM vector_deletions"
                " ORDER BY attempts, id LIMIT %s",
                (limit,),
            ).fetchall()
        return [QueuedDeletion(r["id"], r["collection"], r["point_id"]) for r in found]

    @rerun_on_deadlock
    def drop_queued_deletions(self, ids: Sequence[int]) -> None:
        if ids:
            with self._db.connection() as conn:
                conn.execute("DELETE FROM vector_deletions WHERE id = ANY(%s)", (list(ids),))

    @rerun_on_deadlock
    def note_deletion_failure(self, ids: Sequence[int], error: str) -> None:
        if ids:
            with self._db.connection() as conn:
                conn.execute(
                    "UPDATE vector_deletions SET attempts = attempts + 1, last_error = %s"
                    " WHERE id = ANY(%s)",
                    (error[:_MAX_ERROR], list(ids)),
                )
