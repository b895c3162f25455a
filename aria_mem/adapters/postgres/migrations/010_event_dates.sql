-- The date or period a memory's text names ("on 31 Dec 2023", "last summer"), read from the
-- text when it is written (domain/when.py) so a retrieval reads no text for it. NULL: the
-- text names none, or the memory was written before this release (it counts by its own date
-- until its text is written again).
ALTER TABLE memories ADD COLUMN event_from date;
ALTER TABLE memories ADD COLUMN event_until date;
