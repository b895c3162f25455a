"""Conversation turns in PostgreSQL, so a chat resumes and its query can use the previous
user message across restarts."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from aria_mem.adapters.postgres import rows
from aria_mem.adapters.postgres.connection import Database
from aria_mem.adapters.postgres.retry import rerun_on_deadlock
from aria_mem.adapters.postgres.text_search import TextSearch
from aria_mem.domain import mentions
from aria_mem.domain.records import (
    ArchivedTurn,
    ConversationRecord,
    ConversationSummary,
    StoredTurn,
)
from aria_mem.domain.validation import only_match
from aria_mem.errors import NotFoundError


class PgConversations:
    def __init__(self, db: Database, text_search: TextSearch | None = None) -> None:
        self._db = db
        self._text_search = text_search or TextSearch()

    @rerun_on_deadlock
    def open_conversation(self, user_id: str, companion_id: str, *, new: bool = False) -> uuid.UUID:
        """The most recent conversation of the pair, or a new one."""
        with self._db.connection() as conn:
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

    @rerun_on_deadlock
    def add_turns(
        self, conversation_id: uuid.UUID, turns: Sequence[tuple[str, str, datetime]]
    ) -> None:
        """Store (role, content, at) turns in order."""
        if not turns:
            return
        with self._db.connection() as conn, conn.transaction():
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
        with self._db.connection() as conn:
            found = conn.execute(
                "SELECT role, content FROM (SELECT id, role, content FROM turns"
                " WHERE conversation_id = %s ORDER BY id DESC LIMIT %s) t ORDER BY id",
                (conversation_id, limit),
            ).fetchall()
        return [(r["role"], r["content"]) for r in found]

    def list_conversations(self, user_id: str, companion_id: str) -> list[ConversationSummary]:
        with self._db.connection() as conn:
            found = conn.execute(
                f"{_SUMMARY} WHERE c.user_id = %s AND c.companion_id = %s"
                " ORDER BY c.updated_at DESC, c.id",
                (user_id, companion_id),
            ).fetchall()
        return [_summary(r) for r in found]

    def find_conversation(
        self, prefix: str, owner: tuple[str, str] | None = None
    ) -> ConversationSummary:
        pattern = rows.prefix_pattern(prefix, "a conversation id", "`aria-mem conversations list`")
        sql = f"{_SUMMARY} WHERE c.id::text LIKE %s"
        params: tuple[str, ...] = (pattern,)
        if owner is not None:
            sql += " AND c.user_id = %s AND c.companion_id = %s"
            params += owner
        with self._db.connection() as conn:
            found = conn.execute(sql + " LIMIT 2", params).fetchall()
        return _summary(only_match(found, prefix, "conversation", "`aria-mem conversations list`"))

    def turns(self, conversation_id: uuid.UUID) -> list[tuple[str, str]]:
        with self._db.connection() as conn:
            found = conn.execute(
                "SELECT role, content FROM turns WHERE conversation_id = %s ORDER BY id",
                (conversation_id,),
            ).fetchall()
        return [(r["role"], r["content"]) for r in found]

    @rerun_on_deadlock
    def forget_conversation(self, conversation_id: uuid.UUID) -> int:
        with self._db.connection() as conn, conn.transaction():
            counted = conn.execute(
                "SELECT count(*) AS n FROM turns WHERE conversation_id = %s", (conversation_id,)
            ).fetchone()
            gone = conn.execute(
                "DELETE FROM conversations WHERE id = %s", (conversation_id,)
            ).rowcount
        if not gone:
            raise NotFoundError(f"No conversation {conversation_id}")
        return int(counted["n"]) if counted else 0

    def turns_mentioning(self, user_id: str, companion_id: str, text: str) -> list[StoredTurn]:
        """Words compared as PostgreSQL's text search makes them, in the configured
        language ([retrieval] language): stemmed, stop words out."""
        with self._db.connection() as conn:
            language = self._text_search.language(conn)
            row = conn.execute(
                "SELECT tsvector_to_array(to_tsvector(%s::regconfig, %s)) AS words",
                (language, text),
            ).fetchone()
            words = mentions.distinctive(list(row["words"]) if row else [])
            if not words:
                return []
            found = conn.execute(
                "SELECT t.id, t.conversation_id, t.role, t.content FROM turns t"
                " JOIN conversations c ON c.id = t.conversation_id"
                " WHERE c.user_id = %s AND c.companion_id = %s AND (SELECT count(*) FROM"
                " unnest(tsvector_to_array(to_tsvector(%s::regconfig, t.content))) AS w"
                " WHERE w = ANY(%s)) >= %s ORDER BY t.id LIMIT %s",
                (
                    user_id,
                    companion_id,
                    language,
                    words,
                    mentions.words_needed(len(words)),
                    mentions.MAX_MENTIONS,
                ),
            ).fetchall()
        return [
            StoredTurn(int(r["id"]), uuid.UUID(str(r["conversation_id"])), r["role"], r["content"])
            for r in found
        ]

    @rerun_on_deadlock
    def forget_turns(self, user_id: str, companion_id: str, turn_ids: Sequence[int]) -> int:
        if not turn_ids:
            return 0
        with self._db.connection() as conn:
            return conn.execute(
                "DELETE FROM turns t USING conversations c WHERE c.id = t.conversation_id"
                " AND c.user_id = %s AND c.companion_id = %s AND t.id = ANY(%s)",
                (user_id, companion_id, list(turn_ids)),
            ).rowcount

    def system_prompt(self, conversation_id: uuid.UUID) -> str | None:
        with self._db.connection() as conn:
            row = conn.execute(
                "SELECT system_prompt FROM conversations WHERE id = %s", (conversation_id,)
            ).fetchone()
        return row["system_prompt"] if row else None

    @rerun_on_deadlock
    def set_system_prompt(self, conversation_id: uuid.UUID, text: str | None) -> None:
        with self._db.connection() as conn:
            conn.execute(
                "UPDATE conversations SET system_prompt = %s WHERE id = %s",
                (text, conversation_id),
            )

    def conversation_records(
        self, user_id: str | None, companion_id: str | None = None
    ) -> list[ConversationRecord]:
        with self._db.connection() as conn:
            heads = conn.execute(
                "SELECT id, user_id, companion_id, started_at, updated_at, system_prompt"
                " FROM conversations"
                " WHERE (%(u)s::text IS NULL OR user_id = %(u)s)"
                " AND (%(c)s::text IS NULL OR companion_id = %(c)s)"
                " ORDER BY started_at, id",
                {"u": user_id, "c": companion_id},
            ).fetchall()
            turns: dict[uuid.UUID, list[ArchivedTurn]] = {
                uuid.UUID(str(h["id"])): [] for h in heads
            }
            for row in conn.execute(
                "SELECT conversation_id, role, content, created_at FROM turns"
                " WHERE conversation_id = ANY(%s) ORDER BY id",
                (list(turns),),
            ):
                turns[uuid.UUID(str(row["conversation_id"]))].append(
                    ArchivedTurn(row["role"], row["content"], row["created_at"])
                )
        return [
            ConversationRecord(
                uuid.UUID(str(h["id"])),
                h["user_id"],
                h["companion_id"],
                h["started_at"],
                h["updated_at"],
                tuple(turns[uuid.UUID(str(h["id"]))]),
                h["system_prompt"],
            )
            for h in heads
        ]

    @rerun_on_deadlock
    def import_conversation(self, record: ConversationRecord) -> bool:
        with self._db.connection() as conn, conn.transaction():
            added = conn.execute(
                "INSERT INTO conversations"
                " (id, user_id, companion_id, started_at, updated_at, system_prompt)"
                " VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT (id) DO NOTHING",
                (
                    record.id,
                    record.user_id,
                    record.companion_id,
                    record.started_at,
                    record.updated_at,
                    record.system_prompt,
                ),
            ).rowcount
            if not added:
                return False
            with conn.cursor().copy(
                "COPY turns (conversation_id, role, content, created_at) FROM STDIN"
            ) as copy:
                for turn in record.turns:
                    copy.write_row((record.id, turn.role, turn.content, turn.created_at))
        return True


_SUMMARY = (
    "SELECT c.id, c.user_id, c.companion_id, c.updated_at,"
    " (SELECT count(*) FROM turns t WHERE t.conversation_id = c.id) AS turns,"
    " coalesce((SELECT t.content FROM turns t WHERE t.conversation_id = c.id"
    " AND t.role = 'user' ORDER BY t.id LIMIT 1), '') AS first_message"
    " FROM conversations c"
)


def _summary(row: dict[str, Any]) -> ConversationSummary:
    return ConversationSummary(
        uuid.UUID(str(row["id"])),
        row["user_id"],
        row["companion_id"],
        row["updated_at"],
        int(row["turns"]),
        row["first_message"],
    )
