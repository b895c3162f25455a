-- The words of each memory, for the lexical candidate source beside the vector search.
-- PostgreSQL keeps them itself (a generated column), so they are never stale and need no
-- embedder: a memory can be found by its words the moment it is committed.
--
-- Each row records the text-search configuration its words were made with; the store sets
-- the column default (and re-makes the rows) when [retrieval] language changes, and
-- text_search remembers which configuration that was.
CREATE TABLE text_search (
    only_row  boolean PRIMARY KEY DEFAULT true CHECK (only_row),
    language  regconfig NOT NULL
);
INSERT INTO text_search (language) VALUES ('english');

ALTER TABLE memories ADD COLUMN search_language regconfig NOT NULL DEFAULT 'english';
ALTER TABLE memories ADD COLUMN search_words tsvector
    GENERATED ALWAYS AS (to_tsvector(search_language, text)) STORED;

-- btree_gin lets one GIN index hold the user and the words, so a lexical search reads only
-- one user's matches (the companion is left out: it has few values, and its long posting
-- lists made each search ten times slower at 100,000 memories). A server where btree_gin
-- cannot be created gets the plain index: the same results, found by reading every user's.
DO $$
BEGIN
    BEGIN
        CREATE EXTENSION IF NOT EXISTS btree_gin;
    EXCEPTION WHEN OTHERS THEN
        RAISE NOTICE 'btree_gin unavailable (%): lexical search uses a plain GIN index', SQLERRM;
    END;
    IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'btree_gin') THEN
        CREATE INDEX memories_words ON memories USING gin (user_id, search_words)
            WITH (fastupdate = off);
    ELSE
        CREATE INDEX memories_words ON memories USING gin (search_words)
            WITH (fastupdate = off);
    END IF;
END
$$;
