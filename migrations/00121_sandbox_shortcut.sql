-- +goose Up
-- The sandbox shortcut (`server sandbox ready`, the sending page's button):
-- in the sandbox only, ordered domains and mailboxes made ready and warm at
-- once instead of waiting out preparation and warmup. The moment is kept so
-- every view of the setup says it was a shortcut, not a real warmup.
ALTER TABLE sending_domains ADD COLUMN sandbox_ready_at timestamptz;
ALTER TABLE sending_mailboxes ADD COLUMN sandbox_ready_at timestamptz;

-- +goose Down
ALTER TABLE sending_mailboxes DROP COLUMN sandbox_ready_at;
ALTER TABLE sending_domains DROP COLUMN sandbox_ready_at;
