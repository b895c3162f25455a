"""What the trip of one message reads from PostgreSQL (each read bounded by a timeout), and
the relationship stage of a user and companion."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

import psycopg

from aria_mem.adapters.postgres import rows
from aria_mem.adapters.postgres.connection import Database
from aria_mem.adapters.postgres.retry import rerun_on_deadlock
from aria_mem.adapters.postgres.text_search import (
    LEXICAL_SQL,
    TextSearch,
    lexical_hits,
    lexical_params,
    lexical_rows,
)
from aria_mem.domain.fusion import LexicalHit
from aria_mem.domain.models import KnowledgeItem, Memory, Stage
from aria_mem.domain.profile import MAX_PROFILE_FACTS, MIN_PROFILE_IMPORTANCE
from aria_mem.ports import Opening

_TOUCHED = "greatest(m.updated_at, m.last_used_at, m.last_confirmed_at)"

_PROFILE_SQL = (
    f"(SELECT {rows.MEMORY_M} FROM memories m {rows.JOIN_RELATIONSHIP}"
    " WHERE m.user_id = %(u)s AND m.companion_id = %(c)s AND m.status = 'active'"
    f" AND m.pinned AND {rows.USABLE})"
    f" UNION ALL (SELECT {rows.MEMORY_M} FROM memories m {rows.JOIN_RELATIONSHIP}"
    " WHERE m.user_id = %(u)s AND m.companion_id = %(c)s AND m.status = 'active'"
    " AND NOT m.pinned AND m.type IN ('ProfileFact', 'Boundary')"
    f" AND m.importance >= %(min)s AND {rows.USABLE}"
    f" ORDER BY m.importance DESC, {_TOUCHED} DESC, m.id LIMIT %(n)s)"
)
"""Every usable pinned memory and the most important usable profile facts and boundaries
(``domain.profile`` has the rule; the LIMIT only spares sending rows that cannot win)."""

_CONTEXT_SQL = (
    "SELECT (SELECT stage FROM relationships WHERE user_id = %(u)s AND companion_id = %(c)s)"
    f" AS pair_stage, p.* FROM (SELECT 1) one LEFT JOIN ({_PROFILE_SQL}) p ON true"
)
"""The pair's stage on every row, and the profile candidates: at least one row (the stage,
with no memory when there is no profile). One statement: a pipeline of two cost 0.1 ms more."""


class PgRetrievalReads:
    def __init__(self, db: Database, text_search: TextSearch | None = None) -> None:
        self._db = db
        self._text_search = text_search or TextSearch()

    def opening(
        self,
        user_id: str,
        companion_id: str,
        text: str,
        limit: int,
        timeout: float | None = None,
    ) -> Opening:
        """The stage, the profile candidates and the word matches: two prepared statements
        on one connection, each bounded by the timeout, so a word search that fails or times
        out costs only the words. Not one round trip: in a psycopg pipeline the two took
        1.6 ms without preparing and 3.4-4.9 ms prepared, against 1.56 ms one after the
        other (scripts/bench_retrieval.py at 100k, the profile stage's median); PostgreSQL
        on this machine answers a round trip in tens of microseconds."""
        with self._db.bounded(timeout) as conn:
            stage, profile = _context(
                rows.tuples(conn, _CONTEXT_SQL, _context_params(user_id, companion_id))
            )
            if not text.strip() or limit <= 0:
                return Opening(stage, profile, [])
            try:
                language = self._text_search.language(conn)
                params = lexical_params(language, user_id, companion_id, text, limit)
                return Opening(stage, profile, lexical_rows(rows.tuples(conn, LEXICAL_SQL, params)))
            except psycopg.OperationalError as exc:  # QueryCanceled (the timeout) among them
                return Opening(stage, profile, [], _why(exc, timeout))

    def retrieval_context(
        self, user_id: str, companion_id: str, timeout: float | None = None
    ) -> tuple[Stage, list[Memory]]:
        """The relationship stage and the profile candidates, in one round trip."""
        with self._db.bounded(timeout) as conn:
            return _context(rows.tuples(conn, _CONTEXT_SQL, _context_params(user_id, companion_id)))

    def lexical_candidates(
        self,
        user_id: str,
        companion_id: str,
        text: str,
        limit: int,
        timeout: float | None = None,
    ) -> list[LexicalHit]:
        """The usable memories of the pair whose words best match ``text`` (full-text
        search; see ``text_search``), best first."""
        if not text.strip() or limit <= 0:
            return []
        with self._db.bounded(timeout) as conn:
            language = self._text_search.language(conn)
            return lexical_hits(conn, language, user_id, companion_id, text, limit)

    def fetch_with_usability(
        self, memory_ids: Sequence[uuid.UUID], timeout: float | None = None
    ) -> dict[uuid.UUID, tuple[Memory, bool]]:
        """The memories that still exist among ``memory_ids``, each with whether it may be used
        now. PostgreSQL's final say over what the index returned."""
        if not memory_ids:
            return {}
        with self._db.bounded(timeout) as conn:
            found = rows.tuples(
                conn,
                f"SELECT {rows.MEMORY_M}, ({rows.USABLE}) AS usable"
                f" FROM memories m {rows.JOIN_RELATIONSHIP} WHERE m.id = ANY(%s)",
                (list(memory_ids),),
            )
        return {r[0]: (rows.memory_at(r), bool(r[-1])) for r in found}

    def knowledge_by_ids(
        self, ids: Sequence[uuid.UUID], timeout: float | None = None
    ) -> dict[uuid.UUID, KnowledgeItem]:
        if not ids:
            return {}
        with self._db.bounded(timeout) as conn:
            found = conn.execute(
                rows.KNOWLEDGE_SELECT + " WHERE k.id = ANY(%s)", (list(ids),)
            ).fetchall()
        return {r["id"]: rows.knowledge_item(r) for r in found}

    @rerun_on_deadlock
    def record_use(self, memory_ids: Sequence[uuid.UUID]) -> None:
        """Count a use of each memory the reply used."""
        if memory_ids:
            with self._db.connection() as conn:
                conn.execute(
                    "UPDATE memories SET use_count = use_count + 1, last_used_at = now()"
                    " WHERE id = ANY(%s)",
                    (list(memory_ids),),
                )


def _context_params(user_id: str, companion_id: str) -> dict[str, Any]:
    return {"u": user_id, "c": companion_id, "min": MIN_PROFILE_IMPORTANCE, "n": MAX_PROFILE_FACTS}


def _context(found: list[tuple[Any, ...]]) -> tuple[Stage, list[Memory]]:
    """``_CONTEXT_SQL``'s rows: the pair's stage, then a profile memory's columns (none on
    the one row of a pair with no profile)."""
    stage = found[0][0] if found else None
    profile = [rows.memory_at(r, 1) for r in found if r[1] is not None]
    return (Stage(stage) if stage else Stage.EARLY), profile


def _why(error: psycopg.OperationalError, timeout: float | None) -> str:
    """What a failed word search says, as ``Database.bounded`` would have said it."""
    if isinstance(error, psycopg.errors.QueryCanceled) and timeout is not None:
        return f"PostgreSQL took longer than {timeout:g}s"
    return f"PostgreSQL failed: {error}".strip()


class PgRelationships:
    def __init__(self, db: Database) -> None:
        self._db = db

    def stage(self, user_id: str, companion_id: str) -> Stage:
        with self._db.connection() as conn:
            row = conn.execute(
                "SELECT stage FROM relationships WHERE user_id = %s AND companion_id = %s",
                (user_id, companion_id),
            ).fetchone()
        return Stage(row["stage"]) if row else Stage.EARLY

    def stages(self, user_id: str | None) -> list[tuple[str, str, Stage]]:
        with self._db.connection() as conn:
            found = conn.execute(
                "SELECT user_id, companion_id, stage FROM relationships"
                " WHERE %(u)s::text IS NULL OR user_id = %(u)s ORDER BY user_id, companion_id",
                {"u": user_id},
            ).fetchall()
        return [(r["user_id"], r["companion_id"], Stage(r["stage"])) for r in found]

    @rerun_on_deadlock
    def set_stage(self, user_id: str, companion_id: str, stage: Stage) -> None:
        """Set the relationship stage; held memories of the pair become pending so the next
        indexing pass gives them a vector (or takes it away) as the new stage allows."""
        with self._db.connection() as conn, conn.transaction():
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
