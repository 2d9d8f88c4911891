-- +goose Up
-- An import that stopped because the plan's monthly lead limit was
-- reached while it ran (another import took the room first): it says so
-- instead of "no longer available".
ALTER TABLE lead_imports ADD COLUMN stopped_at_limit boolean NOT NULL DEFAULT false;

-- +goose Down
ALTER TABLE lead_imports DROP COLUMN stopped_at_limit;
