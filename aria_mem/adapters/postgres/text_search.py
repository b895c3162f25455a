"""The lexical candidate source: PostgreSQL full-text search over a user's memories.

PostgreSQL keeps each memory's words (``search_words``, a generated tsvector) and a GIN index
over them with the scope, so a search reads one user's and companion's matches only. The words
are made with a text-search configuration ([retrieval] language, e.g. english: stemming and
stop words); a name the server does not know falls back to ``simple`` (lower-cased words, no
stemming), with a warning, rather than failing retrieval. Changing the language re-makes the
words of every row once, when the store migrates.

The query is the message's words joined by OR (any shared word makes a candidate), less the
words common among the pair's memories; a match scores the share of the query's words it holds,
each weighed by its rarity among the pair's memories (an IDF of the pair's own: 0..1, 1 for a
memory with every word). ``ts_rank_cd``, used before, has no IDF: a name the pair says
everywhere counted as much as the one rare word that tells the memory apart.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

import psycopg
from psycopg import sql

from aria_mem.adapters.postgres import rows
from aria_mem.domain.fusion import LexicalHit
from aria_mem.domain.words import BRINGING_SHARE, COMMON_MINIMUM, COMMON_SHARE

log = logging.getLogger(__name__)

FALLBACK_LANGUAGE = "simple"

_AS_LEXEME = r"('''' || replace(replace(w.lexeme, '\', '\\'), '''', '''''') || '''')::tsquery"
"""A lexeme as a tsquery that matches exactly it: quoted, quotes doubled, backslashes escaped,
so no text of the message can become query syntax."""

_PAIR_COUNT = "SELECT memories FROM pair_words WHERE user_id = %(u)s AND companion_id = %(c)s"
"""How many of the pair's active memories have a word ('' for all of them; no row: none)."""

LEXICAL_SQL = (
    "WITH scope AS ("
    f" SELECT coalesce(({_PAIR_COUNT} AND word = ''), 0) AS pair),"
    " bar AS (SELECT greatest(%(min)s, ceil(%(share)s * pair))::int AS common,"
    "  greatest(%(min)s, ceil(%(bringing)s * pair))::int AS bringing FROM scope),"
    f" words AS (SELECT w.lexeme, {_AS_LEXEME} AS word"
    "  FROM unnest(to_tsvector(%(lang)s::regconfig, %(text)s)) w),"
    " counted AS MATERIALIZED ("
    f"  SELECT word, coalesce(({_PAIR_COUNT} AND word = words.lexeme), 0) AS have FROM words),"
    " rare AS ("
    "  SELECT word, ln(1 + (scope.pair - have + 0.5) / (have + 0.5)) AS idf,"
    "  have < bar.bringing AS brings"
    "  FROM counted, scope, bar WHERE have < bar.common),"
    " query AS ("
    "  SELECT string_agg(word::text, ' | ') FILTER (WHERE brings)::tsquery AS q,"
    "  sum(idf) AS total FROM rare)"
    f" SELECT {rows.MEMORY_M},"
    "  (SELECT sum(r.idf) FROM rare r WHERE m.search_words @@ r.word) / query.total AS score"
    f" FROM query, memories m {rows.JOIN_RELATIONSHIP}"
    " WHERE m.user_id = %(u)s AND m.companion_id = %(c)s AND m.search_words @@ query.q"
    f" AND m.status = 'active' AND {rows.USABLE}"
    " ORDER BY score DESC, m.id LIMIT %(n)s"
)
"""The message's words (made by the language's configuration: stemmed, stop words out) that
are not common among the pair's memories; those rarer than ``BRINGING_SHARE`` joined by OR, so
a memory sharing any of them is a candidate; no such word, no candidates. Each match scores the
share of all those words it holds, each word weighed by its rarity among the pair's memories
(``domain.words.rarity``: a word few of them have counts most). What is common and how rare
a word is are read from ``pair_words``, which triggers keep exact (migration 008): counting
each word's matches here read every user's postings of it. Each word's count is read once
(``counted`` is MATERIALIZED: inlined, PostgreSQL looked it up again for each of the four
uses of ``have``; the statement's execution at 100k memories 0.38-1.01 -> 0.28-0.30 ms
median, same rows). Each match comes with its row, so
retrieval does not read it again to validate it."""


_CONFIGURATION_NAMED = (
    "SELECT oid::regconfig::text FROM pg_ts_config"
    " WHERE cfgname = %s AND pg_ts_config_is_visible(oid)"
)
"""The configuration of that name the server has (no row: none)."""


class TextSearch:
    """Which configuration the words are made with, resolved once against the server."""

    def __init__(self, wanted: str = "english") -> None:
        self.wanted = wanted.strip().lower() or "english"
        self._resolved: str | None = None
        self._lock = threading.Lock()

    def language(self, conn: psycopg.Connection[Any]) -> str:
        """The configuration in use: the one asked for, or ``simple`` when the server has no
        configuration of that name."""
        with self._lock:
            if self._resolved is None:
                found = conn.execute(
                    f"SELECT ({_CONFIGURATION_NAMED}) AS name", (self.wanted,)
                ).fetchone()
                name = found["name"] if found else None
                if name is None:
                    log.warning(
                        "PostgreSQL has no text-search configuration '%s' ([retrieval] language);"
                        " lexical search uses '%s' (no stemming). Choose one of: %s",
                        self.wanted,
                        FALLBACK_LANGUAGE,
                        ", ".join(available(conn)),
                    )
                self._resolved = str(name) if name is not None else FALLBACK_LANGUAGE
            return self._resolved

    def settled(self, conn: psycopg.Connection[Any], newest_version: int) -> bool:
        """Whether the schema is at ``newest_version`` and the stored words already follow
        the language, asked in one round trip (every command opens the store, and the full
        check takes a lock and five). When so, the language is resolved too."""
        try:
            found = conn.execute(
                "SELECT (SELECT max(version) FROM schema_migrations) AS version,"
                " (SELECT language::text FROM text_search) AS stored,"
                f" ({_CONFIGURATION_NAMED}) AS resolved",
                (self.wanted,),
            ).fetchone()
        except psycopg.errors.UndefinedTable:
            return False  # a new database
        if found is None or found["version"] != newest_version or found["resolved"] is None:
            return False
        if found["stored"] != found["resolved"]:
            return False
        with self._lock:
            self._resolved = str(found["resolved"])
        return True

    def apply(self, conn: psycopg.Connection[Any]) -> int:
        """Make the stored words follow the configured language; return how many rows were
        re-made (none unless the language changed since the last time)."""
        language = self.language(conn)
        with conn.transaction():
            current = conn.execute(
                "SELECT language::text AS name FROM text_search FOR UPDATE"
            ).fetchone()
            if current is not None and current["name"] == language:
                return 0
            conn.execute(
                sql.SQL(
                    "ALTER TABLE memories ALTER COLUMN search_language SET DEFAULT {}::regconfig"
                ).format(sql.Literal(language))
            )
            changed = conn.execute(
                "UPDATE memories SET search_language = %(l)s::regconfig"
                " WHERE search_language <> %(l)s::regconfig",
                {"l": language},
            ).rowcount
            conn.execute(
                "INSERT INTO text_search (language) VALUES (%(l)s::regconfig)"
                " ON CONFLICT (only_row) DO UPDATE SET language = EXCLUDED.language",
                {"l": language},
            )
        log.info(
            "lexical search now uses '%s'; re-made the words of %d memories", language, changed
        )
        return changed


def available(conn: psycopg.Connection[Any]) -> list[str]:
    found = conn.execute(
        "SELECT cfgname FROM pg_ts_config WHERE pg_ts_config_is_visible(oid) ORDER BY cfgname"
    ).fetchall()
    return [str(r["cfgname"]) for r in found]


def lexical_params(
    language: str, user_id: str, companion_id: str, text: str, limit: int
) -> dict[str, Any]:
    """``LEXICAL_SQL``'s parameters."""
    return {
        "min": COMMON_MINIMUM,
        "share": COMMON_SHARE,
        "bringing": BRINGING_SHARE,
        "lang": language,
        "text": text,
        "u": user_id,
        "c": companion_id,
        "n": limit,
    }


def lexical_rows(found: list[tuple[Any, ...]]) -> list[LexicalHit]:
    """``LEXICAL_SQL``'s rows: each memory's columns, then its score."""
    return [LexicalHit(r[0], float(r[-1]), rows.memory_at(r)) for r in found]


def lexical_hits(
    conn: psycopg.Connection[Any],
    language: str,
    user_id: str,
    companion_id: str,
    text: str,
    limit: int,
) -> list[LexicalHit]:
    params = lexical_params(language, user_id, companion_id, text, limit)
    return lexical_rows(rows.tuples(conn, LEXICAL_SQL, params))
