-- Knowledge passages waiting for the index, found without a scan.
CREATE INDEX knowledge_pending ON knowledge_items (index_attempts, updated_at)
    WHERE index_state = 'pending';
