-- What the daemon reports to `status`, re-index runs, and indexes for the expiry sweep and
-- the profile query.
CREATE TABLE daemon_state (
    id            smallint PRIMARY KEY DEFAULT 1 CHECK (id = 1),
    pid           integer,
    host          text,
    started_at    timestamptz,
    heartbeat_at  timestamptz,
    last_pass     jsonb,
    dimension     jsonb,
    last_sweep    jsonb
);

CREATE TABLE reindex_runs (
    id           bigserial PRIMARY KEY,
    model        text NOT NULL,
    total        integer NOT NULL,
    background   boolean NOT NULL DEFAULT false,
    started_at   timestamptz NOT NULL DEFAULT now(),
    finished_at  timestamptz
);

CREATE INDEX memories_expiring ON memories (expires_at)
    WHERE expires_at IS NOT NULL AND index_state = 'indexed' AND indexed_model IS NOT NULL;
CREATE INDEX memories_model ON memories (indexed_model) WHERE index_state = 'indexed';

-- The two halves of the profile query (pinned; the most important profile facts and
-- boundaries), each answered from a small index instead of a scan of the user's memories.
CREATE INDEX memories_pinned ON memories (user_id, companion_id)
    WHERE pinned AND status = 'active';
CREATE INDEX memories_profile_facts ON memories (user_id, companion_id, importance DESC)
    WHERE NOT pinned AND status = 'active' AND type IN ('ProfileFact', 'Boundary');
DROP INDEX memories_profile;
