"""Conversation turns in PostgreSQL, so a chat resumes and its query can use the previous
user message across restarts."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime

from aria_mem.adapters.postgres.connection import Database


class PgConversations:
    def __init__(self, db: Database) -> None:
        self._db = db

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
