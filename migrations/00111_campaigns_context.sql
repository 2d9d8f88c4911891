-- +goose Up
-- get_workspace_context says when a campaign paused itself (bounces, the
-- plan's emails), why, and what to do: campaigns move the workspace's
-- context stamp (see 00030). Their leads do not: the context reads none.
CREATE CONSTRAINT TRIGGER touch_workspace_context AFTER INSERT OR UPDATE OR DELETE ON campaigns
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION touch_workspace_context();

-- +goose Down
DROP TRIGGER touch_workspace_context ON campaigns;
