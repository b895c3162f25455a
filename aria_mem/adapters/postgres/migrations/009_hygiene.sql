-- Memory over months: a memory can be superseded (replaced by a newer one, or merged into
-- another) and keeps its text, dates and what replaced it; what happened to each memory is
-- its history; what awaits a person's decision is the review queue.
ALTER TABLE memories DROP CONSTRAINT IF EXISTS memories_status_check;
ALTER TABLE memories ADD CONSTRAINT memories_status_check
    CHECK (status IN ('active', 'archived', 'superseded'));
-- No foreign key: an import may name a memory later in its file; forgetting the newer memory
-- clears the pointer in the same transaction.
ALTER TABLE memories ADD COLUMN superseded_by uuid;
CREATE INDEX memories_superseded_by ON memories (superseded_by) WHERE superseded_by IS NOT NULL;

-- Forget means gone: a memory's history goes with it.
CREATE TABLE memory_events (
    id         bigserial PRIMARY KEY,
    memory_id  uuid NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
    kind       text NOT NULL
        CHECK (kind IN ('merged', 'edited', 'superseded', 'replaces', 'restored', 'retired',
                       'kept')),
    at         timestamptz NOT NULL DEFAULT now(),
    other_id   uuid,
    text       text,
    detail     text NOT NULL DEFAULT ''
);
CREATE INDEX memory_events_memory ON memory_events (memory_id, at);

CREATE TABLE review_items (
    id            uuid PRIMARY KEY,
    user_id       text NOT NULL,
    companion_id  text NOT NULL,
    kind          text NOT NULL CHECK (kind IN ('merge', 'conflict', 'retire')),
    memory_id     uuid NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
    other_id      uuid REFERENCES memories (id) ON DELETE CASCADE,
    reason        text NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now()
);
-- One open item per question: proposing it again changes nothing.
CREATE UNIQUE INDEX review_items_once
    ON review_items (kind, memory_id, coalesce(other_id, '00000000-0000-0000-0000-000000000000'));
CREATE INDEX review_items_pair ON review_items (user_id, companion_id, created_at);
