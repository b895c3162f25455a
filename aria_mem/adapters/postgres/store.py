"""The PostgreSQL memory store. Every statement is parameterised."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

import psycopg
from psycopg.abc import Buffer
from psycopg.rows import dict_row, tuple_row
from psycopg.types.datetime import TimestamptzLoader
from psycopg.types.json import Jsonb
from psycopg_pool import ConnectionPool, PoolTimeout

from aria_mem.adapters.postgres import migrations, problems
from aria_mem.domain.models import (
    KNOWLEDGE_COLLECTION,
    IndexState,
    KnowledgeItem,
    Memory,
    MemoryStatus,
    MemoryType,
    NewMemory,
    Stage,
)
from aria_mem.domain.profile import MAX_PROFILE_FACTS, MIN_PROFILE_IMPORTANCE
from aria_mem.domain.validation import EARLIEST, EXPORT_FIELDS, LATEST, normalize_text
from aria_mem.errors import NotFoundError, StoreError, ValidationError
from aria_mem.ports import ImportResult, MemoryChanges, QueuedDeletion, SaveOutcome

log = logging.getLogger(__name__)

Row = dict[str, Any]

_STAGE_RANK_SQL = "array_position(ARRAY['early','established','close'], {})"
USABLE_SQL = (
    "m.status = 'active' AND (m.expires_at IS NULL OR m.expires_at > now())"
    " AND (m.held_until_stage IS NULL OR "
    + _STAGE_RANK_SQL.format("coalesce(r.stage, 'early')")
    + " >= "
    + _STAGE_RANK_SQL.format("m.held_until_stage")
    + ")"
)
"""SQL that is true when a memory may be used (needs ``memories m LEFT JOIN relationships r``)."""

_JOIN_REL = "LEFT JOIN relationships r ON r.user_id = m.user_id AND r.companion_id = m.companion_id"

_TIMESTAMPS = ("expires_at", "created_at", "updated_at", "last_used_at", "last_confirmed_at")
_OUT_OF_RANGE_SQL = " OR ".join(f"m.{c} < %(earliest)s OR m.{c} > %(latest)s" for c in _TIMESTAMPS)
"""True for a row an older aria-mem let in with a timestamp Python cannot hold."""


class _ClampingTimestamptzLoader(TimestamptzLoader):
    """Reads a timestamp outside Python's years 1-9999 (stored by an older aria-mem) as the
    nearest one it can hold, so such a row can still be listed, shown and forgotten instead of
    breaking every command; `status` counts these rows."""

    def load(self, data: Buffer) -> datetime:
        try:
            return super().load(data)
        except psycopg.DataError:
            text = bytes(data)
            low = text.startswith(b"0") or b" BC" in text or text.startswith(b"-")
            return (datetime.min if low else datetime.max).replace(tzinfo=UTC)


def _memory(row: Row) -> Memory:
    held = row["held_until_stage"]
    return Memory(
        id=row["id"],
        user_id=row["user_id"],
        companion_id=row["companion_id"],
        type=MemoryType(row["type"]),
        text=row["text"],
        importance=float(row["importance"]),
        emotional_significance=float(row["emotional_significance"]),
        confidence=float(row["confidence"]),
        reason=row["reason"],
        pinned=row["pinned"],
        status=MemoryStatus(row["status"]),
        held_until_stage=Stage(held) if held else None,
        expires_at=row["expires_at"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        last_used_at=row["last_used_at"],
        last_confirmed_at=row["last_confirmed_at"],
        use_count=row["use_count"],
        index_state=IndexState(row["index_state"]),
        indexed_model=row["indexed_model"],
        index_attempts=row["index_attempts"],
        index_error=row["index_error"],
    )


def _configure(conn: psycopg.Connection[Any]) -> None:
    conn.adapters.register_loader("timestamptz", _ClampingTimestamptzLoader)


class PostgresStore:
    """The source of truth. Opening it connects nothing: the pool connects on first use."""

    def __init__(self, dsn: str, *, connect_timeout: float = 5.0, max_size: int = 4) -> None:
        problems.check_dsn(dsn)
        self._dsn = dsn
        self._timeout = connect_timeout
        self._max_size = max_size
        self._pool: ConnectionPool | None = None
        self._broken = False

    def _new_pool(self) -> ConnectionPool:
        pool = ConnectionPool(
            self._dsn,
            min_size=0,
            max_size=self._max_size,
            kwargs={"connect_timeout": max(1, round(self._timeout)), "autocommit": True},
            timeout=self._timeout,
            open=False,
            configure=_configure,
        )
        pool.open(wait=False)
        return pool

    def close(self) -> None:
        if self._pool is not None:
            self._pool.close(timeout=1)
            self._pool = None

    @contextmanager
    def _conn(self) -> Iterator[psycopg.Connection[Row]]:
        if self._broken:
            # After a failure the pool backs off before it reconnects; a fresh pool answers
            # as soon as PostgreSQL is back (e.g. after a restart).
            self.close()
            self._broken = False
        if self._pool is None:
            self._pool = self._new_pool()
        try:
            with self._pool.connection() as conn:
                conn.row_factory = dict_row  # type: ignore[assignment]
                yield conn  # type: ignore[misc]
        except PoolTimeout as exc:
            self._broken = True
            raise StoreError(problems.diagnose(self._dsn, self._timeout)) from exc
        except psycopg.OperationalError as exc:
            self._broken = True
            raise StoreError(f"PostgreSQL failed: {exc}".strip()) from exc

    # -- schema -------------------------------------------------------------------------

    def migrate(self) -> list[str]:
        with self._conn() as conn:
            return migrations.apply(conn)

    def ping(self) -> None:
        with self._conn() as conn:
            conn.execute("SELECT 1")

    def schema_version(self) -> int:
        with self._conn() as conn:
            return migrations.current_version(conn)

    # -- writes -------------------------------------------------------------------------

    def save(self, new: NewMemory) -> SaveOutcome:
        with self._conn() as conn:
            row = conn.execute(
                """
                INSERT INTO memories (id, user_id, companion_id, type, text, normalized_text,
                    importance, emotional_significance, confidence, reason, pinned,
                    held_until_stage, expires_at)
                VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)
                ON CONFLICT (user_id, companion_id, md5(normalized_text))
                DO UPDATE SET last_confirmed_at = now()
                RETURNING *, (xmax = 0) AS inserted
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
                ),
            ).fetchone()
        assert row is not None
        return SaveOutcome(memory=_memory(row), created=bool(row["inserted"]))

    def _update_one(self, memory_id: uuid.UUID, sql: str, params: Sequence[Any]) -> Memory:
        with self._conn() as conn:
            row = conn.execute(sql, (*params, memory_id)).fetchone()
        if row is None:
            raise NotFoundError(f"No memory with id {memory_id} — `aria-mem list` shows them")
        return _memory(row)

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
        if not sets:
            return self.get(memory_id)
        sets += ["updated_at = now()", "index_state = 'pending'", "index_attempts = 0"]
        try:
            return self._update_one(
                memory_id,
                f"UPDATE memories SET {', '.join(sets)} WHERE id = %s RETURNING *",
                params,
            )
        except psycopg.errors.UniqueViolation as exc:
            raise StoreError(
                "Another memory of this user and companion already says that — "
                "edit or forget that one instead"
            ) from exc

    def set_pinned(self, memory_id: uuid.UUID, pinned: bool) -> Memory:
        return self._update_one(
            memory_id,
            "UPDATE memories SET pinned = %s, updated_at = now(), index_state = 'pending'"
            " WHERE id = %s RETURNING *",
            (pinned,),
        )

    def set_status(self, memory_id: uuid.UUID, status: MemoryStatus) -> Memory:
        return self._update_one(
            memory_id,
            "UPDATE memories SET status = %s, updated_at = now(), index_state = 'pending'"
            " WHERE id = %s RETURNING *",
            (status.value,),
        )

    def confirm(self, memory_id: uuid.UUID) -> Memory:
        return self._update_one(
            memory_id,
            "UPDATE memories SET last_confirmed_at = now() WHERE id = %s RETURNING *",
            (),
        )

    def delete(self, memory_id: uuid.UUID, collection: str) -> Memory:
        """Remove the memory for good and queue its vector's removal, in one transaction."""
        with self._conn() as conn, conn.transaction():
            row = conn.execute(
                "DELETE FROM memories WHERE id = %s RETURNING *", (memory_id,)
            ).fetchone()
            if row is None:
                raise NotFoundError(f"No memory with id {memory_id} — `aria-mem list` shows them")
            conn.execute(
                "INSERT INTO vector_deletions (collection, point_id) VALUES (%s, %s)",
                (collection, memory_id),
            )
        return _memory(row)

    # -- reads --------------------------------------------------------------------------

    def get(self, memory_id: uuid.UUID) -> Memory:
        with self._conn() as conn:
            row = conn.execute("SELECT * FROM memories WHERE id = %s", (memory_id,)).fetchone()
        if row is None:
            raise NotFoundError(f"No memory with id {memory_id} — `aria-mem list` shows them")
        return _memory(row)

    def find_prefix(self, prefix: str) -> Memory:
        """The memory whose id starts with ``prefix`` (as `list` shows ids shortened)."""
        clean = prefix.strip().lower()
        try:
            return self.get(uuid.UUID(clean))
        except ValueError:
            pass
        if len(clean) < 4 or any(c not in "0123456789abcdef-" for c in clean):
            raise NotFoundError(
                f"{prefix!r} is not a memory id — give the id (or its first 8 characters) "
                "that `aria-mem list` shows"
            )
        with self._conn() as conn:
            rows = conn.execute(
                "SELECT * FROM memories WHERE id::text LIKE %s LIMIT 2", (clean + "%",)
            ).fetchall()
        if not rows:
            raise NotFoundError(
                f"No memory with an id starting {prefix!r} — `aria-mem list` shows them"
            )
        if len(rows) > 1:
            raise NotFoundError(f"More than one memory id starts with {prefix!r} — give more of it")
        return _memory(rows[0])

    def list_memories(
        self,
        *,
        user_id: str | None,
        companion_id: str | None,
        status: MemoryStatus | None = None,
        limit: int | None = None,
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
        sql = f"SELECT * FROM memories WHERE {' AND '.join(where)} ORDER BY created_at, id"
        if limit is not None:
            sql += " LIMIT %s"
            params.append(limit)
        with self._conn() as conn:
            return [_memory(r) for r in conn.execute(sql, params).fetchall()]

    def iter_all(self, batch_size: int = 1000) -> Iterator[Memory]:
        """Every memory, in id order, a batch at a time (keyset paging, no long transaction)."""
        last: uuid.UUID | None = None
        while True:
            with self._conn() as conn:
                if last is None:
                    rows = conn.execute(
                        "SELECT * FROM memories ORDER BY id LIMIT %s", (batch_size,)
                    ).fetchall()
                else:
                    rows = conn.execute(
                        "SELECT * FROM memories WHERE id > %s ORDER BY id LIMIT %s",
                        (last, batch_size),
                    ).fetchall()
            if not rows:
                return
            for row in rows:
                yield _memory(row)
            last = rows[-1]["id"]

    def stage(self, user_id: str, companion_id: str) -> Stage:
        with self._conn() as conn:
            row = conn.execute(
                "SELECT stage FROM relationships WHERE user_id = %s AND companion_id = %s",
                (user_id, companion_id),
            ).fetchone()
        return Stage(row["stage"]) if row else Stage.EARLY

    def set_stage(self, user_id: str, companion_id: str, stage: Stage) -> None:
        """Set the relationship stage; held memories of the pair become pending so the next
        indexing pass gives them a vector (or takes it away) as the new stage allows."""
        with self._conn() as conn, conn.transaction():
            conn.execute(
                "INSERT INTO relationships (user_id, companion_id, stage) VALUES (%s, %s, %s)"
                " ON CONFLICT (user_id, companion_id)"
                " DO UPDATE SET stage = EXCLUDED.stage, updated_at = now()",
                (user_id, companion_id, stage.value),
            )
            conn.execute(
                "UPDATE memories SET index_state = 'pending' WHERE user_id = %s"
                " AND companion_id = %s AND held_until_stage IS NOT NULL",
                (user_id, companion_id),
            )

    # -- retrieval ----------------------------------------------------------------------

    @contextmanager
    def _bounded(self, timeout: float | None) -> Iterator[psycopg.Connection[Row]]:
        """A pipelined transaction whose statements give up after ``timeout`` seconds, so a
        slow or locked database cannot hold up a reply; pipelining sends the whole short
        transaction in one round trip."""
        with self._conn() as conn:
            try:
                with conn.pipeline(), conn.transaction():
                    if timeout is not None:
                        conn.execute(
                            "SELECT set_config('statement_timeout', %s, true)",
                            (str(max(1, int(timeout * 1000))),),
                        )
                    yield conn
            except psycopg.errors.QueryCanceled as exc:
                raise StoreError(f"PostgreSQL took longer than {timeout:g}s") from exc

    def retrieval_context(
        self, user_id: str, companion_id: str, timeout: float | None = None
    ) -> tuple[Stage, list[Memory]]:
        """The relationship stage and the profile candidates: every usable pinned memory and
        the most important usable profile facts and boundaries (``domain.profile`` has the
        rule; the LIMIT only keeps the database from sending rows that cannot win)."""
        with self._bounded(timeout) as conn:
            stage_cur = conn.execute(
                "SELECT stage FROM relationships WHERE user_id = %s AND companion_id = %s",
                (user_id, companion_id),
            )
            touched = "greatest(m.updated_at, m.last_used_at, m.last_confirmed_at)"
            profile_cur = conn.execute(
                f"(SELECT m.* FROM memories m {_JOIN_REL}"
                " WHERE m.user_id = %(u)s AND m.companion_id = %(c)s AND m.status = 'active'"
                f" AND m.pinned AND {USABLE_SQL})"
                f" UNION ALL (SELECT m.* FROM memories m {_JOIN_REL}"
                " WHERE m.user_id = %(u)s AND m.companion_id = %(c)s AND m.status = 'active'"
                " AND NOT m.pinned AND m.type IN ('ProfileFact', 'Boundary')"
                f" AND m.importance >= %(min)s AND {USABLE_SQL}"
                f" ORDER BY m.importance DESC, {touched} DESC, m.id LIMIT %(n)s)",
                {
                    "u": user_id,
                    "c": companion_id,
                    "min": MIN_PROFILE_IMPORTANCE,
                    "n": MAX_PROFILE_FACTS,
                },
            )
            stage_row = stage_cur.fetchone()
            rows = profile_cur.fetchall()
        stage = Stage(stage_row["stage"]) if stage_row else Stage.EARLY
        return stage, [_memory(r) for r in rows]

    def fetch_with_usability(
        self, memory_ids: Sequence[uuid.UUID], timeout: float | None = None
    ) -> dict[uuid.UUID, tuple[Memory, bool]]:
        """The memories that still exist among ``memory_ids``, each with whether it may be used
        now. PostgreSQL's final say over what the index returned."""
        if not memory_ids:
            return {}
        with self._bounded(timeout) as conn:
            rows = conn.execute(
                f"SELECT m.*, ({USABLE_SQL}) AS usable FROM memories m {_JOIN_REL}"
                " WHERE m.id = ANY(%s)",
                (list(memory_ids),),
            ).fetchall()
        return {r["id"]: (_memory(r), bool(r["usable"])) for r in rows}

    def record_use(self, memory_ids: Sequence[uuid.UUID]) -> None:
        """Count a use of each memory that went into a prompt."""
        if memory_ids:
            with self._conn() as conn:
                conn.execute(
                    "UPDATE memories SET use_count = use_count + 1, last_used_at = now()"
                    " WHERE id = ANY(%s)",
                    (list(memory_ids),),
                )

    # -- index bookkeeping --------------------------------------------------------------

    def pending(self, limit: int) -> list[tuple[Memory, bool]]:
        """Memories whose vector must be (re)written or removed, each with whether it may
        be used (usable ones get a vector, the others lose theirs)."""
        with self._conn() as conn:
            rows = conn.execute(
                f"SELECT m.*, ({USABLE_SQL}) AS usable FROM memories m {_JOIN_REL}"
                " WHERE m.index_state = 'pending'"
                " ORDER BY m.index_attempts, m.updated_at LIMIT %s",
                (limit,),
            ).fetchall()
        return [(_memory(r), bool(r["usable"])) for r in rows]

    def mark_indexed(
        self, versions: Sequence[tuple[uuid.UUID, datetime]], model: str | None
    ) -> int:
        """Mark memories as agreeing with the index, unless they changed since they were read
        (then they stay pending and the next pass writes the newer text)."""
        if not versions:
            return 0
        ids = [v[0] for v in versions]
        stamps = [v[1] for v in versions]
        with self._conn() as conn:
            cur = conn.execute(
                """
                UPDATE memories m SET index_state = 'indexed', indexed_model = %s,
                    index_error = NULL, index_attempts = 0
                FROM unnest(%s::uuid[], %s::timestamptz[]) AS v(id, updated_at)
                WHERE m.id = v.id AND m.updated_at = v.updated_at
                """,
                (model, ids, stamps),
            )
            return cur.rowcount

    def mark_index_failed(self, memory_ids: Sequence[uuid.UUID], error: str) -> None:
        if not memory_ids:
            return
        with self._conn() as conn:
            conn.execute(
                "UPDATE memories SET index_attempts = index_attempts + 1, index_error = %s"
                " WHERE id = ANY(%s) AND index_state = 'pending'",
                (error[:1000], list(memory_ids)),
            )

    def queued_deletions(self, limit: int) -> list[QueuedDeletion]:
        with self._conn() as conn:
            rows = conn.execute(
                "SELECT id, collection, point_id FROM vector_deletions"
                " ORDER BY attempts, id LIMIT %s",
                (limit,),
            ).fetchall()
        return [QueuedDeletion(r["id"], r["collection"], r["point_id"]) for r in rows]

    def drop_queued_deletions(self, ids: Sequence[int]) -> None:
        if ids:
            with self._conn() as conn:
                conn.execute("DELETE FROM vector_deletions WHERE id = ANY(%s)", (list(ids),))

    def note_deletion_failure(self, ids: Sequence[int], error: str) -> None:
        if ids:
            with self._conn() as conn:
                conn.execute(
                    "UPDATE vector_deletions SET attempts = attempts + 1, last_error = %s"
                    " WHERE id = ANY(%s)",
                    (error[:1000], list(ids)),
                )

    def counts(self) -> dict[str, int]:
        with self._conn() as conn:
            row = conn.execute(
                f"""
                SELECT count(*) AS total,
                    count(*) FILTER (WHERE m.status = 'active') AS active,
                    count(*) FILTER (WHERE m.status = 'archived') AS archived,
                    count(*) FILTER (WHERE m.expires_at IS NOT NULL
                                     AND m.expires_at <= now()) AS expired,
                    count(*) FILTER (WHERE m.status = 'active' AND NOT ({USABLE_SQL})
                                     AND (m.expires_at IS NULL OR m.expires_at > now())) AS held,
                    count(*) FILTER (WHERE m.index_state = 'pending') AS pending,
                    count(*) FILTER (WHERE m.index_state = 'indexed') AS indexed,
                    count(*) FILTER (WHERE m.index_state = 'indexed'
                                     AND m.indexed_model IS NOT NULL) AS with_vector,
                    count(*) FILTER (WHERE m.index_error IS NOT NULL) AS index_errors,
                    count(*) FILTER (WHERE {_OUT_OF_RANGE_SQL}) AS unreadable
                FROM memories m {_JOIN_REL}
                """,
                {"earliest": EARLIEST, "latest": LATEST},
            ).fetchone()
            queued = conn.execute("SELECT count(*) AS n FROM vector_deletions").fetchone()
            passages = conn.execute(
                "SELECT count(*) AS total, count(*) FILTER (WHERE index_state = 'pending')"
                " AS pending FROM knowledge_items"
            ).fetchone()
        assert row is not None and queued is not None and passages is not None
        result = {k: int(v) for k, v in row.items()}
        result["queued_deletions"] = int(queued["n"])
        result["knowledge_passages"] = int(passages["total"])
        result["knowledge_pending"] = int(passages["pending"])
        return result

    # -- reconciling ----------------------------------------------------------------------

    def mark_pending_for_model(self, model: str, *, force: bool = False) -> int:
        """Make pending every memory whose vector is missing or was made by another model
        (``force``: every memory, to rebuild a lost index). Returns how many changed."""
        with self._conn() as conn:
            changed = 0
            for table in ("memories", "knowledge_items"):
                if force:
                    cur = conn.execute(
                        f"UPDATE {table} SET index_state = 'pending', index_attempts = 0"
                        " WHERE index_state = 'indexed'"
                    )
                else:
                    cur = conn.execute(
                        f"UPDATE {table} SET index_state = 'pending', index_attempts = 0"
                        " WHERE index_state = 'indexed' AND indexed_model IS NOT NULL"
                        " AND indexed_model <> %s",
                        (model,),
                    )
                changed += cur.rowcount
            return changed

    def pending_count(self) -> int:
        """How many memories and knowledge passages wait for the index."""
        with self._conn() as conn:
            row = conn.execute(
                "SELECT (SELECT count(*) FROM memories WHERE index_state = 'pending')"
                " + (SELECT count(*) FROM knowledge_items WHERE index_state = 'pending') AS n"
            ).fetchone()
        assert row is not None
        return int(row["n"])

    def mark_expired_pending(self) -> int:
        """Memories that expired since they were indexed: pending, so their vector goes."""
        with self._conn() as conn:
            return conn.execute(
                "UPDATE memories SET index_state = 'pending' WHERE index_state = 'indexed'"
                " AND indexed_model IS NOT NULL AND expires_at IS NOT NULL"
                " AND expires_at <= now()"
            ).rowcount

    def indexed_ids(self, model: str, *, knowledge: bool = False) -> set[uuid.UUID]:
        """Ids of the memories (or knowledge passages) that should have a vector made by
        ``model`` right now."""
        table = "knowledge_items" if knowledge else "memories"
        with self._conn() as conn:
            cur = conn.cursor(row_factory=tuple_row)
            rows = cur.execute(
                f"SELECT id FROM {table} WHERE index_state = 'indexed' AND indexed_model = %s",
                (model,),
            ).fetchall()
        return {r[0] for r in rows}

    def mark_pending(self, ids: Sequence[uuid.UUID], *, knowledge: bool = False) -> int:
        if not ids:
            return 0
        table = "knowledge_items" if knowledge else "memories"
        with self._conn() as conn:
            return conn.execute(
                f"UPDATE {table} SET index_state = 'pending' WHERE id = ANY(%s)",
                (list(ids),),
            ).rowcount

    # -- daemon state -------------------------------------------------------------------

    def save_daemon_state(self, **fields: Any) -> None:
        """Upsert the daemon's row; dict values are stored as JSON."""
        allowed = {
            "pid",
            "host",
            "started_at",
            "heartbeat_at",
            "last_pass",
            "dimension",
            "last_sweep",
            "reconcile_interval",
            "stopped_at",
        }
        unknown = set(fields) - allowed
        if unknown:
            raise ValueError(f"unknown daemon state fields: {sorted(unknown)}")
        names = sorted(fields)
        values = [Jsonb(fields[n]) if isinstance(fields[n], dict) else fields[n] for n in names]
        updates = ", ".join(f"{n} = EXCLUDED.{n}" for n in names)
        with self._conn() as conn:
            conn.execute(
                f"INSERT INTO daemon_state (id, {', '.join(names)})"
                f" VALUES (1, {', '.join(['%s'] * len(names))})"
                f" ON CONFLICT (id) DO UPDATE SET {updates}",
                values,
            )

    def daemon_state(self) -> dict[str, Any] | None:
        with self._conn() as conn:
            row = conn.execute(
                "SELECT *, extract(epoch FROM now() - heartbeat_at) AS heartbeat_age"
                " FROM daemon_state WHERE id = 1"
            ).fetchone()
        return dict(row) if row else None

    def start_reindex(self, model: str, total: int, background: bool) -> int:
        """Record a new run; an unfinished run of another model is superseded by it."""
        with self._conn() as conn, conn.transaction():
            conn.execute("UPDATE reindex_runs SET finished_at = now() WHERE finished_at IS NULL")
            row = conn.execute(
                "INSERT INTO reindex_runs (model, total, background) VALUES (%s, %s, %s)"
                " RETURNING id",
                (model, total, background),
            ).fetchone()
        assert row is not None
        return int(row["id"])

    def finish_reindex(self, model: str) -> None:
        with self._conn() as conn:
            conn.execute(
                "UPDATE reindex_runs SET finished_at = now()"
                " WHERE model = %s AND finished_at IS NULL",
                (model,),
            )

    def open_reindex(self) -> dict[str, Any] | None:
        """The unfinished re-index run, with how many memories are still pending."""
        with self._conn() as conn:
            row = conn.execute(
                "SELECT r.*, (SELECT count(*) FROM memories WHERE index_state = 'pending')"
                " AS pending FROM reindex_runs r WHERE finished_at IS NULL"
                " ORDER BY id DESC LIMIT 1"
            ).fetchone()
        return dict(row) if row else None

    # -- conversations ------------------------------------------------------------------

    def open_conversation(self, user_id: str, companion_id: str, *, new: bool = False) -> uuid.UUID:
        """The most recent conversation of the pair, or a new one."""
        with self._conn() as conn:
            if not new:
                row = conn.execute(
                    "SELECT id FROM conversations WHERE user_id = %s AND companion_id = %s"
                    " ORDER BY updated_at DESC LIMIT 1",
                    (user_id, companion_id),
                ).fetchone()
                if row:
                    return uuid.UUID(str(row["id"]))
            conversation_id = uuid.uuid4()
            conn.execute(
                "INSERT INTO conversations (id, user_id, companion_id) VALUES (%s, %s, %s)",
                (conversation_id, user_id, companion_id),
            )
            return conversation_id

    def add_turns(
        self, conversation_id: uuid.UUID, turns: Sequence[tuple[str, str, datetime]]
    ) -> None:
        """Store (role, content, at) turns in order."""
        if not turns:
            return
        with self._conn() as conn, conn.transaction():
            for role, content, at in turns:
                conn.execute(
                    "INSERT INTO turns (conversation_id, role, content, created_at)"
                    " VALUES (%s, %s, %s, %s)",
                    (conversation_id, role, content, at),
                )
            conn.execute(
                "UPDATE conversations SET updated_at = now() WHERE id = %s", (conversation_id,)
            )

    def recent_turns(self, conversation_id: uuid.UUID, limit: int) -> list[tuple[str, str]]:
        """The last ``limit`` turns as (role, content), oldest first."""
        with self._conn() as conn:
            rows = conn.execute(
                "SELECT role, content FROM (SELECT id, role, content FROM turns"
                " WHERE conversation_id = %s ORDER BY id DESC LIMIT %s) t ORDER BY id",
                (conversation_id, limit),
            ).fetchall()
        return [(r["role"], r["content"]) for r in rows]

    # -- knowledge ----------------------------------------------------------------------

    _KNOWLEDGE_SELECT = (
        "SELECT k.id, k.source_id, s.companion_id, s.source, s.title, k.chunk_index, k.text,"
        " k.updated_at FROM knowledge_items k JOIN knowledge_sources s ON s.id = k.source_id"
    )

    @staticmethod
    def _knowledge(row: Row) -> KnowledgeItem:
        return KnowledgeItem(
            row["id"],
            row["source_id"],
            row["companion_id"],
            row["source"],
            row["title"],
            row["chunk_index"],
            row["text"],
            row["updated_at"],
        )

    def learn(
        self, companion_id: str, source: str, title: str, chunks: Sequence[str]
    ) -> tuple[uuid.UUID, int]:
        """Store a document's passages (replacing an earlier reading of the same source; the
        old passages' vectors are queued for removal). Returns (source id, passages replaced)."""
        with self._conn() as conn, conn.transaction():
            row = conn.execute(
                "SELECT id FROM knowledge_sources WHERE companion_id = %s AND source = %s",
                (companion_id, source),
            ).fetchone()
            replaced = 0
            if row:
                source_id = uuid.UUID(str(row["id"]))
                old = conn.execute(
                    "DELETE FROM knowledge_items WHERE source_id = %s RETURNING id",
                    (source_id,),
                ).fetchall()
                replaced = len(old)
                for item in old:
                    conn.execute(
                        "INSERT INTO vector_deletions (collection, point_id) VALUES (%s, %s)",
                        (KNOWLEDGE_COLLECTION, item["id"]),
                    )
                conn.execute(
                    "UPDATE knowledge_sources SET title = %s WHERE id = %s", (title, source_id)
                )
            else:
                source_id = uuid.uuid4()
                conn.execute(
                    "INSERT INTO knowledge_sources (id, companion_id, source, title)"
                    " VALUES (%s, %s, %s, %s)",
                    (source_id, companion_id, source, title),
                )
            for n, text in enumerate(chunks):
                conn.execute(
                    "INSERT INTO knowledge_items (id, source_id, chunk_index, text)"
                    " VALUES (%s, %s, %s, %s)",
                    (uuid.uuid4(), source_id, n, text),
                )
        return source_id, replaced

    def knowledge_sources(self, companion_id: str | None) -> list[dict[str, Any]]:
        where = "WHERE s.companion_id = %s" if companion_id is not None else ""
        params = (companion_id,) if companion_id is not None else ()
        with self._conn() as conn:
            rows = conn.execute(
                "SELECT s.id, s.companion_id, s.source, s.title, s.created_at,"
                " count(k.id) AS passages,"
                " count(k.id) FILTER (WHERE k.index_state = 'pending') AS pending"
                f" FROM knowledge_sources s LEFT JOIN knowledge_items k ON k.source_id = s.id"
                f" {where} GROUP BY s.id ORDER BY s.created_at",
                params,
            ).fetchall()
        return [dict(r) for r in rows]

    def forget_knowledge(self, prefix: str) -> dict[str, Any]:
        """Delete a source and its passages; their vectors are queued for removal."""
        clean = prefix.strip().lower()
        if len(clean) < 4 or any(c not in "0123456789abcdef-" for c in clean):
            raise NotFoundError(
                f"{prefix!r} is not a knowledge source id — `aria-mem knowledge list` shows them"
            )
        with self._conn() as conn, conn.transaction():
            rows = conn.execute(
                "SELECT * FROM knowledge_sources WHERE id::text LIKE %s LIMIT 2",
                (clean + "%",),
            ).fetchall()
            if len(rows) != 1:
                raise NotFoundError(
                    f"No knowledge source with an id starting {prefix!r}"
                    if not rows
                    else f"More than one knowledge source id starts with {prefix!r}"
                )
            source = dict(rows[0])
            items = conn.execute(
                "DELETE FROM knowledge_items WHERE source_id = %s RETURNING id", (source["id"],)
            ).fetchall()
            for item in items:
                conn.execute(
                    "INSERT INTO vector_deletions (collection, point_id) VALUES (%s, %s)",
                    (KNOWLEDGE_COLLECTION, item["id"]),
                )
            conn.execute("DELETE FROM knowledge_sources WHERE id = %s", (source["id"],))
        source["passages"] = len(items)
        return source

    def pending_knowledge(self, limit: int) -> list[KnowledgeItem]:
        with self._conn() as conn:
            rows = conn.execute(
                self._KNOWLEDGE_SELECT + " WHERE k.index_state = 'pending'"
                " ORDER BY k.index_attempts, k.updated_at LIMIT %s",
                (limit,),
            ).fetchall()
        return [self._knowledge(r) for r in rows]

    def mark_knowledge_indexed(
        self, versions: Sequence[tuple[uuid.UUID, datetime]], model: str
    ) -> None:
        if not versions:
            return
        with self._conn() as conn:
            conn.execute(
                "UPDATE knowledge_items k SET index_state = 'indexed', indexed_model = %s,"
                " index_error = NULL, index_attempts = 0"
                " FROM unnest(%s::uuid[], %s::timestamptz[]) AS v(id, updated_at)"
                " WHERE k.id = v.id AND k.updated_at = v.updated_at",
                (model, [v[0] for v in versions], [v[1] for v in versions]),
            )

    def mark_knowledge_failed(self, ids: Sequence[uuid.UUID], error: str) -> None:
        if ids:
            with self._conn() as conn:
                conn.execute(
                    "UPDATE knowledge_items SET index_attempts = index_attempts + 1,"
                    " index_error = %s WHERE id = ANY(%s)",
                    (error[:1000], list(ids)),
                )

    def knowledge_by_ids(
        self, ids: Sequence[uuid.UUID], timeout: float | None = None
    ) -> dict[uuid.UUID, KnowledgeItem]:
        if not ids:
            return {}
        with self._bounded(timeout) as conn:
            rows = conn.execute(
                self._KNOWLEDGE_SELECT + " WHERE k.id = ANY(%s)", (list(ids),)
            ).fetchall()
        return {r["id"]: self._knowledge(r) for r in rows}

    # -- bulk ---------------------------------------------------------------------------

    def import_memories(self, memories: Sequence[Memory]) -> ImportResult:
        """Insert or update by id, in one transaction. A line whose fact another memory of the
        same user and companion already states (different id) is merged into that one. A row
        equal to the stored one is left alone (it keeps its vector: nothing to re-embed).
        Imports take the table in turn (a lock), so two at once cannot collide on a fact."""
        columns = (*EXPORT_FIELDS[:5], "normalized_text", *EXPORT_FIELDS[5:])
        stored = ", ".join(f"memories.{c}" for c in columns)
        given = ", ".join(f"EXCLUDED.{c}" for c in columns)
        try:
            with self._conn() as conn, conn.transaction():
                conn.execute("LOCK TABLE memories IN SHARE ROW EXCLUSIVE MODE")
                conn.execute(
                    "CREATE TEMP TABLE incoming (LIKE memories INCLUDING DEFAULTS) ON COMMIT DROP"
                )
                with conn.cursor().copy(f"COPY incoming ({', '.join(columns)}) FROM STDIN") as copy:
                    for m in memories:
                        copy.write_row(_import_row(m))
                seen = conn.execute(
                    "SELECT count(m.id) AS existing, count(m.id) FILTER (WHERE ("
                    + ", ".join(f"m.{c}" for c in columns)
                    + ") IS NOT DISTINCT FROM ("
                    + ", ".join(f"i.{c}" for c in columns)
                    + ")) AS unchanged FROM incoming i LEFT JOIN memories m ON m.id = i.id"
                ).fetchone()
                updates = ", ".join(f"{c} = EXCLUDED.{c}" for c in columns if c != "id")
                cur = conn.execute(
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
                )
                written = cur.rowcount
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
    )
