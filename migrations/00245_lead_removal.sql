-- +goose Up
-- A lead a person removed: kept (with who removed it and when) so that
-- its story still says what happened, and left out of every campaign's
-- pending steps from that moment. The indexes read one lead's sends and
-- replies, for its story and the leads list's statuses.
ALTER TABLE leads
    ADD COLUMN removed_at timestamptz,
    ADD COLUMN removed_by text,
    ADD CONSTRAINT leads_removed_check CHECK ((removed_at IS NULL) = (removed_by IS NULL));
ALTER TABLE campaign_leads ADD COLUMN removed_at timestamptz;
CREATE INDEX leads_removed ON leads (workspace_id, id) WHERE removed_at IS NOT NULL;
CREATE INDEX mail_sends_lead_idx ON mail_sends (workspace_id, lead_id);
CREATE INDEX mail_replies_lead_idx ON mail_replies (workspace_id, lead_id) WHERE lead_id IS NOT NULL;

-- +goose Down
DROP INDEX mail_replies_lead_idx;
DROP INDEX mail_sends_lead_idx;
DROP INDEX leads_removed;
ALTER TABLE campaign_leads DROP COLUMN removed_at;
ALTER TABLE leads DROP CONSTRAINT leads_removed_check, DROP COLUMN removed_by, DROP COLUMN removed_at;
