-- +goose Up
-- The workspace's time zone (workspace_senders) is read with its context:
-- every text for the assistant writes moments in it, and each replica
-- keeps it while the stamp stands (workspace.Service.Zone).
CREATE CONSTRAINT TRIGGER touch_workspace_context AFTER INSERT OR UPDATE OR DELETE ON workspace_senders
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION touch_workspace_context();

-- +goose Down
DROP TRIGGER touch_workspace_context ON workspace_senders;
