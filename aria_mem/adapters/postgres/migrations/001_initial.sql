-- Memories, relationship stages, the durable queue of vector deletions, knowledge tables.
CREATE TABLE memories (
    id                      uuid PRIMARY KEY,
    user_id                 text NOT NULL,
    companion_id            text NOT NULL,
    type                    text NOT NULL,
    text                    text NOT NULL,
    normalized_text         text NOT NULL,
    importance              real NOT NULL CHECK (importance BETWEEN 0 AND 1),
    emotional_significance  real NOT NULL CHECK (emotional_significance BETWEEN 0 AND 1),
    confidence              real NOT NULL CHECK (confidence BETWEEN 0 AND 1),
    reason                  text NOT NULL DEFAULT '',
    pinned                  boolean NOT NULL DEFAULT false,
    status                  text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'archived')),
    held_until_stage        text CHECK (held_until_stage IN ('early', 'established', 'close')),
    expires_at              timestamptz,
    created_at              timestamptz NOT NULL DEFAULT now(),
    updated_at              timestamptz NOT NULL DEFAULT now(),
    last_used_at            timestamptz,
    last_confirmed_at       timestamptz,
    use_count               integer NOT NULL DEFAULT 0 CHECK (use_count >= 0),
    index_state             text NOT NULL DEFAULT 'pending' CHECK (index_state IN ('pending', 'indexed')),
    indexed_model           text,
    index_attempts          integer NOT NULL DEFAULT 0,
    index_error             text
);

-- One row per fact: remembering it again confirms it instead of adding a duplicate.
CREATE UNIQUE INDEX memories_fact_key
    ON memories (user_id, companion_id, md5(normalized_text));
CREATE INDEX memories_scope ON memories (user_id, companion_id, status);
CREATE INDEX memories_pending ON memories (index_attempts, updated_at) WHERE index_state = 'pending';
CREATE INDEX memories_profile ON memories (user_id, companion_id, importance DESC)
    WHERE status = 'active' AND (pinned OR type IN ('ProfileFact', 'Boundary'));

CREATE TABLE relationships (
    user_id       text NOT NULL,
    companion_id  text NOT NULL,
    stage         text NOT NULL DEFAULT 'early' CHECK (stage IN ('early', 'established', 'close')),
    updated_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (user_id, companion_id)
);

-- Written in the same transaction as the delete, so a forgotten memory's vector is always
-- removed eventually, even when the index was down at the time.
CREATE TABLE vector_deletions (
    id          bigserial PRIMARY KEY,
    collection  text NOT NULL,
    point_id    uuid NOT NULL,
    queued_at   timestamptz NOT NULL DEFAULT now(),
    attempts    integer NOT NULL DEFAULT 0,
    last_error  text
);

CREATE TABLE knowledge_sources (
    id            uuid PRIMARY KEY,
    companion_id  text NOT NULL,
    source        text NOT NULL,
    title         text NOT NULL DEFAULT '',
    created_at    timestamptz NOT NULL DEFAULT now(),
    UNIQUE (companion_id, source)
);

CREATE TABLE knowledge_items (
    id             uuid PRIMARY KEY,
    source_id      uuid NOT NULL REFERENCES knowledge_sources (id) ON DELETE CASCADE,
    chunk_index    integer NOT NULL,
    text           text NOT NULL,
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now(),
    index_state    text NOT NULL DEFAULT 'pending' CHECK (index_state IN ('pending', 'indexed')),
    indexed_model  text,
    index_attempts integer NOT NULL DEFAULT 0,
    index_error    text,
    UNIQUE (source_id, chunk_index)
);
