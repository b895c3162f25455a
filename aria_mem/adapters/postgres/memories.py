"""Memories in PostgreSQL: saving, changing, reading, importing and counting them."""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from typing import Any

import psycopg

from aria_mem.adapters.postgres import rows, unjoin
from aria_mem.adapters.postgres.connection import Database
from aria_mem.adapters.postgres.hygiene import record_event
from aria_mem.adapters.postgres.questions import HOLD, before_rows, lock_questions
from aria_mem.adapters.postgres.retry import rerun_on_deadlock
from aria_mem.domain.hygiene import EventKind
from aria_mem.domain.memory_line import EXPORT_FIELDS
from aria_mem.domain.models import (
    DERIVED_FIELDS,
    MEMORIES_COLLECTION,
    Memory,
    MemoryOrder,
    MemoryStatus,
    MemoryType,
    NewMemory,
)
from aria_mem.domain.records import ImportResult, MemoryChanges, MemoryCounts, SaveOutcome
from aria_mem.domain.unjoining import edit_record
from aria_mem.domain.validation import (
    EARLIEST,
    LATEST,
    moved_by_import,
    no_memory,
    normalize_text,
    only_match,
    owned_by,
    parse_full_id,
)
from aria_mem.domain.when import event_dates
from aria_mem.errors import SaidElsewhereError, ValidationError

_ORDER_BY = {  # the table's columns, not the clamped values rows.MEMORY names the same
    MemoryOrder.CREATED: "memories.created_at",
    MemoryOrder.UPDATED: "memories.updated_at",
    MemoryOrder.IMPORTANCE: "memories.importance",
    MemoryOrder.USES: "memories.use_count",
    MemoryOrder.LAST_USED: "COALESCE(memories.last_used_at, '-infinity')",
}
_IMPORT_COLUMNS = (*EXPORT_FIELDS[:5], "normalized_text", *EXPORT_FIELDS[5:], *DERIVED_FIELDS)


class PgMemories:
    def __init__(self, db: Database) -> None:
        self._db = db

    # -- writes -------------------------------------------------------------------------

    @rerun_on_deadlock
    def save(self, new: NewMemory) -> SaveOutcome:
        """Insert, or confirm this pair's memory that states the same fact (one row a fact)."""
        with self._db.connection() as conn:
            row = conn.execute(
                f"""
                INSERT INTO memories (id, user_id, companion_id, type, text, normalized_text,
                    importance, emotional_significance, confidence, reason, pinned,
                    held_until_stage, expires_at, event_from, event_until)
                VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)
                ON CONFLICT (user_id, companion_id, md5(normalized_text))
                DO UPDATE SET {rows.SAID_AGAIN_SET}
                RETURNING {rows.MEMORY}, (xmax = 0) AS inserted
                """,
                (
                    new.id,
                    new.user_id,
                    new.companion_id,
                    new.type.value,
                    new.text,
                    normalize_text(new.text),
                    new.importance,
                    new.emotional_significance,
                    new.confidence,
                    new.reason,
                    new.pinned,
                    new.held_until_stage.value if new.held_until_stage else None,
                    new.expires_at,
                    *event_dates(new.text, datetime.now(UTC)),
                ),
            ).fetchone()
        assert row is not None
        return SaveOutcome(memory=rows.memory(row), created=bool(row["inserted"]))

    def _update_one(self, memory_id: uuid.UUID, sql: str, params: Sequence[Any]) -> Memory:
        with self._db.connection() as conn:
            row = conn.execute(sql, (*params, memory_id)).fetchone()
        if row is None:
            raise no_memory(memory_id)
        return rows.memory(row)

    @rerun_on_deadlock
    def edit(self, memory_id: uuid.UUID, changes: MemoryChanges) -> Memory:
        sets: list[str] = []
        params: list[Any] = []
        if changes.text is not None:
            sets += ["text = %s", "normalized_text = %s"]
            params += [changes.text, normalize_text(changes.text)]
        for column in ("importance", "emotional_significance", "confidence", "reason"):
            value = getattr(changes, column)
            if value is not None:
                sets.append(f"{column} = %s")
                params.append(value)
        if changes.clear_expiry:
            sets.append("expires_at = NULL")
        elif changes.expires_at is not None:
            sets.append("expires_at = %s")
            params.append(changes.expires_at)
        if changes.pinned is not None:
            sets.append("pinned = %s")
            params.append(changes.pinned)
        if changes.status is not None:
            sets.append("status = %s")
            params.append(changes.status.value)
        if not sets:
            return self.get(memory_id)
        sets += ["updated_at = now()", "index_state = 'pending'", "index_attempts = 0"]
        try:
            with self._db.connection() as conn, conn.transaction():
                before_rows(conn)
                before = conn.execute(
                    f"SELECT text FROM memories WHERE id = %s {HOLD}", (memory_id,)
                ).fetchone()
                if before is None:
                    raise no_memory(memory_id)
                unjoin.hold_joined(conn, changes.joins if changes.text is not None else None)
                row = conn.execute(
                    f"UPDATE memories SET {', '.join(sets)} WHERE id = %s RETURNING {rows.MEMORY}",
                    (*params, memory_id),
                ).fetchone()
                assert row is not None
                edited = rows.memory(row)
                if changes.text is not None and changes.text != before["text"]:
                    edit = edit_record(before["text"], changes)  # a join's: what it took in
                    record_event(conn, memory_id, EventKind.EDITED, **edit)
                if changes.text is not None:
                    edited = rows.reread_event_dates(conn, edited)
                return edited
        except psycopg.errors.UniqueViolation as exc:
            raise SaidElsewhereError() from exc

    @rerun_on_deadlock
    def confirm(self, memory_id: uuid.UUID) -> Memory:
        return self._update_one(
            memory_id,
            f"UPDATE memories SET last_confirmed_at = now() WHERE id = %s RETURNING {rows.MEMORY}",
            (),
        )

    @rerun_on_deadlock
    def delete(self, memory_id: uuid.UUID) -> Memory:
        """Remove the memory for good and queue its vector's removal, in one transaction."""
        with self._db.connection() as conn, conn.transaction():
            joined = unjoin.joined_into(conn, memory_id)  # a join's: held first, as a merge does
            lock_questions(conn, [memory_id, *joined])  # in order: the cascade takes them too
            before_rows(conn)
            unjoin.hold(conn, joined)
            conn.execute("SELECT 1 FROM memories WHERE id = %s FOR UPDATE", (memory_id,))
            given = unjoin.wordings_back(conn, memory_id)  # forget means gone: joins too
            conn.execute(  # before the delete's word counts, as a restore takes its row first
                "UPDATE memories SET superseded_by = NULL WHERE superseded_by = %s", (memory_id,)
            )
            row = conn.execute(
                f"DELETE FROM memories WHERE id = %s RETURNING {rows.MEMORY}", (memory_id,)
            ).fetchone()
            if row is None:
                raise no_memory(memory_id)
            conn.execute(
                "INSERT INTO vector_deletions (collection, point_id) VALUES (%s, %s)",
                (MEMORIES_COLLECTION, memory_id),
            )
            unjoin.give_back(conn, memory_id, given)
        return rows.memory(row)

    # -- reads --------------------------------------------------------------------------

    def get(self, memory_id: uuid.UUID) -> Memory:
        with self._db.connection() as conn:
            row = conn.execute(
                f"SELECT {rows.MEMORY} FROM memories WHERE id = %s", (memory_id,)
            ).fetchone()
        if row is None:
            raise no_memory(memory_id)
        return rows.memory(row)

    def find_prefix(self, prefix: str, owner: tuple[str, str] | None = None) -> Memory:
        """The memory whose id starts with ``prefix`` (as `list` shows ids shortened); with
        ``owner`` (user, companion), only among theirs: another's memory is not found."""
        full = parse_full_id(prefix)
        if full is not None:
            return owned_by(self.get(full), owner)
        pattern = rows.prefix_pattern(prefix, "a memory id", "`aria-mem list`")
        sql = f"SELECT {rows.MEMORY} FROM memories WHERE id::text LIKE %s"
        params: tuple[str, ...] = (pattern,)
        if owner is not None:
            sql += " AND user_id = %s AND companion_id = %s"
            params += owner
        with self._db.connection() as conn:
            found_rows = conn.execute(sql + " LIMIT 2", params).fetchall()
        return rows.memory(only_match(found_rows, prefix, "memory", "`aria-mem list`"))

    def list_memories(
        self,
        *,
        user_id: str | None,
        companion_id: str | None,
        status: MemoryStatus | None = None,
        limit: int | None = None,
        type: MemoryType | None = None,
        contains: str | None = None,
        newest_first: bool = False,
        pinned: bool | None = None,
        held: bool | None = None,
        expiring: bool | None = None,
        order: MemoryOrder = MemoryOrder.CREATED,
        offset: int = 0,
    ) -> list[Memory]:
        where: list[str] = ["true"]
        params: list[Any] = []
        for column, value in (("user_id", user_id), ("companion_id", companion_id)):
            if value is not None:
                where.append(f"{column} = %s")
                params.append(value)
        if status is not None:
            where.append("status = %s")
            params.append(status.value)
        if type is not None:
            where.append("type = %s")
            params.append(type.value)
        if contains:
            where.append("strpos(lower(text), lower(%s)) > 0")
            params.append(contains)
        for column, wanted in (
            ("pinned", pinned),
            ("held_until_stage IS NOT NULL", held),
            ("expires_at IS NOT NULL", expiring),
        ):
            if wanted is not None:
                where.append(f"({column}) = %s")
                params.append(wanted)
        direction = "DESC" if newest_first else "ASC"
        sql = (
            f"SELECT {rows.MEMORY} FROM memories WHERE {' AND '.join(where)}"
            f" ORDER BY {_ORDER_BY[order]} {direction}, id {direction}"
        )
        params += [limit, offset]  # LIMIT NULL: no limit
        with self._db.connection() as conn:
            return [rows.memory(r) for r in conn.execute(sql + " LIMIT %s OFFSET %s", params)]

    def iter_all(self, batch_size: int = 1000) -> Iterator[Memory]:
        """Every memory, in id order, a batch at a time (keyset paging, no long transaction)."""
        last: uuid.UUID | None = None
        while True:
            after, params = (
                ("", (batch_size,)) if last is None else ("WHERE id > %s", (last, batch_size))
            )
            with self._db.connection() as conn:
                batch = conn.execute(
                    f"SELECT {rows.MEMORY} FROM memories {after} ORDER BY id LIMIT %s", params
                ).fetchall()
            if not batch:
                return
            for row in batch:
                yield rows.memory(row)
            last = batch[-1]["id"]

    def counts(self, owner: tuple[str, str] | None = None) -> MemoryCounts:
        """Every memory's counts, or (``owner``) one user and companion's; the deletion queue
        is counted whole either way, knowledge per companion when ``owner`` is given."""
        mine = "m.user_id = %(user)s AND m.companion_id = %(companion)s" if owner else "TRUE"
        theirs = "s.companion_id = %(companion)s" if owner else "TRUE"
        knowledge = f"knowledge_items k JOIN knowledge_sources s ON s.id = k.source_id AND {theirs}"
        user, companion = owner or (None, None)
        with self._db.connection() as conn:
            row = conn.execute(
                f"""
                SELECT count(*) AS total,
                    count(*) FILTER (WHERE m.status = 'active') AS active,
                    count(*) FILTER (WHERE m.status = 'archived') AS archived,
                    count(*) FILTER (WHERE m.expires_at IS NOT NULL
                                     AND m.expires_at <= now()) AS expired,
                    count(*) FILTER (WHERE m.status = 'active' AND NOT ({rows.USABLE})
                                     AND (m.expires_at IS NULL OR m.expires_at > now())) AS held,
                    count(*) FILTER (WHERE m.index_state = 'pending') AS pending,
                    count(*) FILTER (WHERE m.index_state = 'indexed') AS indexed,
                    count(*) FILTER (WHERE m.index_state = 'indexed'
                                     AND m.indexed_model IS NOT NULL) AS with_vector,
                    count(*) FILTER (WHERE m.index_error IS NOT NULL) AS index_errors,
                    count(*) FILTER (WHERE {rows.OUT_OF_RANGE}) AS unreadable,
                    (SELECT count(*) FROM vector_deletions) AS queued_deletions,
                    (SELECT count(*) FROM {knowledge}) AS knowledge_passages,
                    (SELECT count(*) FILTER (WHERE k.index_state = 'pending') FROM {knowledge})
                        AS knowledge_pending,
                    (SELECT m.index_error FROM memories m
                     WHERE {mine} AND m.index_state = 'pending' AND m.index_error IS NOT NULL
                     ORDER BY m.updated_at DESC LIMIT 1) AS last_index_error
                FROM memories m {rows.JOIN_RELATIONSHIP} WHERE {mine}
                """,
                {"earliest": EARLIEST, "latest": LATEST, "user": user, "companion": companion},
            ).fetchone()
        assert row is not None
        error = row.pop("last_index_error")
        return MemoryCounts(**{k: int(v) for k, v in row.items()}, last_index_error=error)

    # -- bulk ---------------------------------------------------------------------------

    @rerun_on_deadlock
    def import_memories(self, memories: Sequence[Memory]) -> ImportResult:
        """Insert or update by id, in one transaction. A line whose fact another memory of the
        same user and companion already states (different id) is merged into that one. A row
        equal to the stored one is left alone (it keeps its vector: nothing to re-embed).
        Imports take the table in turn (a lock), so two at once cannot collide on a fact."""
        columns = _IMPORT_COLUMNS
        stored = ", ".join(f"memories.{c}" for c in columns)
        given = ", ".join(f"EXCLUDED.{c}" for c in columns)
        try:
            with self._db.connection() as conn, conn.transaction():
                conn.execute("LOCK TABLE memories IN SHARE ROW EXCLUSIVE MODE")
                conn.execute(
                    "CREATE TEMP TABLE incoming (LIKE memories INCLUDING DEFAULTS) ON COMMIT DROP"
                )
                with conn.cursor().copy(f"COPY incoming ({', '.join(columns)}) FROM STDIN") as copy:
                    for m in memories:
                        copy.write_row(_import_row(m))
                seen = conn.execute(
                    "SELECT (array_agg(i.id) FILTER (WHERE (m.user_id, m.companion_id) <> "
                    "(i.user_id, i.companion_id)))[1] AS moved, "
                    "count(m.id) AS existing, count(m.id) FILTER (WHERE ("
                    + ", ".join(f"m.{c}" for c in columns)
                    + ") IS NOT DISTINCT FROM ("
                    + ", ".join(f"i.{c}" for c in columns)
                    + ")) AS unchanged FROM incoming i LEFT JOIN memories m ON m.id = i.id"
                ).fetchone()
                if seen is not None and seen["moved"] is not None:
                    raise ValidationError(moved_by_import(seen["moved"]))
                updates = ", ".join(f"{c} = EXCLUDED.{c}" for c in columns if c != "id")
                written = conn.execute(
                    f"""
                    INSERT INTO memories ({", ".join(columns)}, index_state)
                    SELECT DISTINCT ON (i.user_id, i.companion_id, md5(i.normalized_text))
                        {", ".join("i." + c for c in columns)}, 'pending'
                    FROM incoming i
                    WHERE NOT EXISTS (
                        SELECT 1 FROM memories m
                        WHERE m.user_id = i.user_id AND m.companion_id = i.companion_id
                          AND md5(m.normalized_text) = md5(i.normalized_text) AND m.id <> i.id)
                    ORDER BY i.user_id, i.companion_id, md5(i.normalized_text), i.updated_at DESC
                    ON CONFLICT (id) DO UPDATE SET {updates}, index_state = 'pending',
                        index_attempts = 0
                    WHERE ({stored}) IS DISTINCT FROM ({given})
                    """
                ).rowcount
        except (psycopg.DataError, psycopg.IntegrityError) as exc:
            raise ValidationError(
                f"PostgreSQL refused the data: {exc.diag.message_primary or exc}"
            ) from exc
        assert seen is not None
        unchanged = int(seen["unchanged"])
        updated = max(0, int(seen["existing"]) - unchanged)
        return ImportResult(
            inserted=max(0, written - updated),
            updated=min(updated, written),
            merged_duplicates=max(0, len(memories) - written - unchanged),
            unchanged=unchanged,
        )


def _import_row(m: Memory) -> tuple[object, ...]:
    return (
        m.id,
        m.user_id,
        m.companion_id,
        m.type.value,
        m.text,
        normalize_text(m.text),
        m.importance,
        m.emotional_significance,
        m.confidence,
        m.reason,
        m.pinned,
        m.status.value,
        m.held_until_stage.value if m.held_until_stage else None,
        m.expires_at,
        m.created_at,
        m.updated_at,
        m.last_used_at,
        m.last_confirmed_at,
        m.use_count,
        m.superseded_by,
        m.event_from,
        m.event_until,
    )
