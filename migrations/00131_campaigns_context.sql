-- +goose Up
-- get_workspace_context shows the campaigns (each with its status, and why
-- it is paused) and, for the next step, the newest sequence's latest
-- version, so both tables move the workspace's context stamp (see 00030).
-- campaign_leads does not: it is written only when a campaign is staged,
-- in the transaction that writes the campaign's row.
CREATE CONSTRAINT TRIGGER touch_workspace_context AFTER INSERT OR UPDATE OR DELETE ON campaigns
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION touch_workspace_context();
CREATE CONSTRAINT TRIGGER touch_workspace_context AFTER INSERT OR UPDATE OR DELETE ON sequence_versions
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION touch_workspace_context();

-- +goose Down
DROP TRIGGER touch_workspace_context ON sequence_versions;
DROP TRIGGER touch_workspace_context ON campaigns;
