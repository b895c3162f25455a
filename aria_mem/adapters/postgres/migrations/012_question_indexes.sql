-- The questions and pass records that name a memory, found by it. Forgetting a memory deletes
-- those naming it (ON DELETE CASCADE, one look-up per deleted memory and column), and a merge,
-- supersession or forget first locks them (adapters/postgres/questions.py): without these,
-- each read the whole table, so forgetting a user with many memories read the review queue
-- and the pass records once per memory, while it held the memories table against writers.
CREATE INDEX review_items_memory ON review_items (memory_id);
CREATE INDEX review_items_other ON review_items (other_id) WHERE other_id IS NOT NULL;
CREATE INDEX consolidations_memory ON consolidations (memory_id);
CREATE INDEX consolidations_other ON consolidations (other_id) WHERE other_id IS NOT NULL;
