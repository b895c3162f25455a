"""Forgetting a person: every row about one user, in one transaction."""

from __future__ import annotations

from aria_mem.adapters.postgres.connection import Database
from aria_mem.adapters.postgres.questions import lock_for_forgetting_user
from aria_mem.adapters.postgres.retry import rerun_on_deadlock
from aria_mem.domain.models import MEMORIES_COLLECTION
from aria_mem.domain.records import ErasedUser


class PgErasure:
    def __init__(self, db: Database) -> None:
        self._db = db

    @rerun_on_deadlock
    def erase_user(self, user_id: str) -> ErasedUser:
        with self._db.connection() as conn, conn.transaction():
            lock_for_forgetting_user(conn, user_id)
            gone = conn.execute(
                "DELETE FROM memories WHERE user_id = %s RETURNING id", (user_id,)
            ).fetchall()
            if gone:
                conn.execute(
                    "INSERT INTO vector_deletions (collection, point_id)"
                    " SELECT %s, unnest(%s::uuid[])",
                    (MEMORIES_COLLECTION, [r["id"] for r in gone]),
                )
            turns = conn.execute(
                "SELECT count(*) AS n FROM turns t JOIN conversations c"
                " ON c.id = t.conversation_id WHERE c.user_id = %s",
                (user_id,),
            ).fetchone()
            conversations = conn.execute(
                "DELETE FROM conversations WHERE user_id = %s", (user_id,)
            ).rowcount  # their turns go with them (ON DELETE CASCADE)
            relationships = conn.execute(
                "DELETE FROM relationships WHERE user_id = %s", (user_id,)
            ).rowcount
        return ErasedUser(len(gone), conversations, int(turns["n"]) if turns else 0, relationships)
