"""Knowledge in PostgreSQL: the documents the companion has read, split into passages."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime

import psycopg

from aria_mem.adapters.postgres import rows
from aria_mem.adapters.postgres.connection import Database, Row
from aria_mem.adapters.postgres.retry import rerun_on_deadlock
from aria_mem.domain.models import KNOWLEDGE_COLLECTION
from aria_mem.domain.records import KnowledgeSource, LearnOutcome
from aria_mem.domain.validation import only_match

_SOURCES_SQL = (
    "SELECT s.id, s.companion_id, s.source, s.title, s.created_at,"
    " count(k.id) AS passages,"
    " count(k.id) FILTER (WHERE k.index_state = 'pending') AS pending"
    " FROM knowledge_sources s LEFT JOIN knowledge_items k ON k.source_id = s.id"
)


def _source(row: Row) -> KnowledgeSource:
    return KnowledgeSource(
        id=row["id"],
        companion_id=row["companion_id"],
        source=row["source"],
        title=row["title"],
        created_at=row["created_at"],
        passages=int(row["passages"]),
        pending=int(row["pending"]),
    )


def _queue_removals(conn: psycopg.Connection[Row], source_id: uuid.UUID) -> int:
    """Delete a source's passages and queue their vectors' removal; how many there were."""
    gone = conn.execute(
        "DELETE FROM knowledge_items WHERE source_id = %s RETURNING id", (source_id,)
    ).fetchall()
    if gone:
        conn.execute(
            "INSERT INTO vector_deletions (collection, point_id) SELECT %s, unnest(%s::uuid[])",
            (KNOWLEDGE_COLLECTION, [item["id"] for item in gone]),
        )
    return len(gone)


class PgKnowledge:
    def __init__(self, db: Database) -> None:
        self._db = db

    @rerun_on_deadlock
    def learn(
        self,
        companion_id: str,
        source: str,
        title: str,
        chunks: Sequence[str],
        *,
        restored: tuple[uuid.UUID, datetime] | None = None,
    ) -> LearnOutcome:
        """Store a document's passages, replacing an earlier reading of the same source (its
        passages' vectors are queued for removal)."""
        with self._db.connection() as conn, conn.transaction():
            row = conn.execute(
                "SELECT id FROM knowledge_sources WHERE companion_id = %s AND source = %s",
                (companion_id, source),
            ).fetchone()
            replaced = 0
            if row:
                source_id = uuid.UUID(str(row["id"]))
                replaced = _queue_removals(conn, source_id)
                conn.execute(
                    "UPDATE knowledge_sources SET title = %s WHERE id = %s", (title, source_id)
                )
            else:
                source_id, learned_at = restored or (uuid.uuid4(), None)
                conn.execute(
                    "INSERT INTO knowledge_sources (id, companion_id, source, title, created_at)"
                    " VALUES (%s, %s, %s, %s, coalesce(%s, now()))",
                    (source_id, companion_id, source, title, learned_at),
                )
            with conn.cursor().copy(
                "COPY knowledge_items (id, source_id, chunk_index, text) FROM STDIN"
            ) as copy:
                for n, text in enumerate(chunks):
                    copy.write_row((uuid.uuid4(), source_id, n, text))
        return LearnOutcome(source_id, replaced)

    def sources(self, companion_id: str | None) -> list[KnowledgeSource]:
        where = " WHERE s.companion_id = %s" if companion_id is not None else ""
        params = (companion_id,) if companion_id is not None else ()
        with self._db.connection() as conn:
            found = conn.execute(
                _SOURCES_SQL + where + " GROUP BY s.id ORDER BY s.created_at", params
            ).fetchall()
        return [_source(r) for r in found]

    @rerun_on_deadlock
    def forget(self, companion_id: str, prefix: str) -> KnowledgeSource:
        """Delete a source of the companion and its passages; their vectors are queued for
        removal. Another companion's source is not found, as if it did not exist."""
        pattern = rows.prefix_pattern(prefix, "a knowledge source id", "`aria-mem knowledge list`")
        with self._db.connection() as conn, conn.transaction():
            found = conn.execute(
                _SOURCES_SQL + " WHERE s.companion_id = %s AND s.id::text LIKE %s"
                " GROUP BY s.id LIMIT 2",
                (companion_id, pattern),
            ).fetchall()
            source = _source(
                only_match(found, prefix, "knowledge source", "`aria-mem knowledge list`")
            )
            _queue_removals(conn, source.id)
            conn.execute("DELETE FROM knowledge_sources WHERE id = %s", (source.id,))
        return source

    def passages(self, source_id: uuid.UUID) -> list[str]:
        with self._db.connection() as conn:
            found = conn.execute(
                "SELECT text FROM knowledge_items WHERE source_id = %s ORDER BY chunk_index",
                (source_id,),
            ).fetchall()
        return [r["text"] for r in found]
