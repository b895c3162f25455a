-- Conversation turns, so a chat can be resumed and the query can use the previous user
-- message across restarts.
CREATE TABLE conversations (
    id            uuid PRIMARY KEY,
    user_id       text NOT NULL,
    companion_id  text NOT NULL,
    started_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX conversations_recent ON conversations (user_id, companion_id, updated_at DESC);

CREATE TABLE turns (
    id               bigserial PRIMARY KEY,
    conversation_id  uuid NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    role             text NOT NULL CHECK (role IN ('user', 'assistant')),
    content          text NOT NULL,
    created_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX turns_by_conversation ON turns (conversation_id, id);
