-- Consolidation in the background (docs/hygiene.md). A memory written after this release is
-- "to consolidate" until a pass has judged it against its nearest memories: the column's
-- default marks every new row, so every write path (remember, MCP, the API, import, chat
-- extraction) sets the mark in the very transaction that stores the memory, and a killed
-- process loses nothing. The mark is cleared only in the transaction that records the pass's
-- outcome. Memories written before this release are not marked (false, then the default).
ALTER TABLE memories ADD COLUMN to_consolidate boolean NOT NULL DEFAULT false;
ALTER TABLE memories ALTER COLUMN to_consolidate SET DEFAULT true;
CREATE INDEX memories_to_consolidate ON memories (created_at) WHERE to_consolidate;

-- What each pass did and why, for the review page and `aria-mem tidy`; an action can be
-- undone once. It goes with the memories it names (forget means gone).
CREATE TABLE consolidations (
    id            uuid PRIMARY KEY,
    user_id       text NOT NULL,
    companion_id  text NOT NULL,
    memory_id     uuid NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
    other_id      uuid REFERENCES memories (id) ON DELETE CASCADE,
    outcome       text NOT NULL CHECK (outcome IN ('merged', 'superseded', 'review')),
    reason        text NOT NULL,
    at            timestamptz NOT NULL DEFAULT now(),
    undone_at     timestamptz
);
CREATE INDEX consolidations_pair ON consolidations (user_id, companion_id, at);

-- Forget means gone: a forgotten memory's id (and any text of it an event carried) leaves
-- the other memories' histories in the transaction that deletes it, whatever deletes it.
CREATE FUNCTION memory_events_forget() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM memory_events WHERE other_id = OLD.id;
    RETURN OLD;
END
$$;
CREATE TRIGGER memory_events_forget AFTER DELETE ON memories
    FOR EACH ROW EXECUTE FUNCTION memory_events_forget();
CREATE INDEX memory_events_other ON memory_events (other_id) WHERE other_id IS NOT NULL;
