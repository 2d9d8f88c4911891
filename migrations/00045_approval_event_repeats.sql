-- +goose Up
-- Refused attempts to approve from the wrong place are kept in the trail,
-- but a client that retries a thousand times must not make a thousand
-- rows (and a page a thousand lines long): past the first few, a refused
-- attempt is counted on the last one instead. repeats counts the attempts
-- a row stands for, last_at the time of the latest.
ALTER TABLE approval_events
    ADD COLUMN repeats integer NOT NULL DEFAULT 1 CHECK (repeats >= 1),
    ADD COLUMN last_at timestamptz;

-- +goose Down
ALTER TABLE approval_events DROP COLUMN repeats, DROP COLUMN last_at;
