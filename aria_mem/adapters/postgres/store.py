"""The PostgreSQL store: the source of truth, one narrow part per job, over one pool.

Opening it connects nothing: the pool connects on first use. Every statement is
parameterised (table names come from constants, never from input).
"""

from __future__ import annotations

from aria_mem.adapters.postgres import migrations
from aria_mem.adapters.postgres.connection import Database
from aria_mem.adapters.postgres.conversations import PgConversations
from aria_mem.adapters.postgres.daemon_records import PgDaemonRecords
from aria_mem.adapters.postgres.erasure import PgErasure
from aria_mem.adapters.postgres.hygiene import PgHygiene
from aria_mem.adapters.postgres.knowledge import PgKnowledge
from aria_mem.adapters.postgres.memories import PgMemories
from aria_mem.adapters.postgres.queue import PgIndexQueue
from aria_mem.adapters.postgres.reads import PgRelationships, PgRetrievalReads
from aria_mem.adapters.postgres.text_search import TextSearch


class PostgresStore:
    def __init__(
        self,
        dsn: str,
        *,
        connect_timeout: float = 5.0,
        max_size: int = 4,
        language: str = "english",
        trust_account: str = "",
    ) -> None:
        """``language``: the text-search configuration memories' words are made with;
        ``trust_account``: another person's account whose server on this machine may be used."""
        self.db = Database(
            dsn, connect_timeout=connect_timeout, max_size=max_size, trust_account=trust_account
        )
        self.text_search = TextSearch(language)
        self.memories = PgMemories(self.db)
        self.reads = PgRetrievalReads(self.db, self.text_search)
        self.relationships = PgRelationships(self.db)
        self.queue = PgIndexQueue(self.db)
        self.knowledge = PgKnowledge(self.db)
        self.conversations = PgConversations(self.db, self.text_search)
        self.daemon = PgDaemonRecords(self.db)
        self.erasure = PgErasure(self.db)
        self.hygiene = PgHygiene(self.db)

    def migrate(self) -> list[str]:
        """Apply missing migrations; then make the stored words follow the language."""
        with self.db.connection() as conn:
            if self.text_search.settled(conn, migrations.newest()):
                return []
        applied = self.db.migrate()
        with self.db.connection() as conn:
            self.text_search.apply(conn)
        return applied

    def schema_version(self) -> int:
        return self.db.schema_version()

    def ping(self) -> None:
        self.db.ping()

    def close(self) -> None:
        self.db.close()
