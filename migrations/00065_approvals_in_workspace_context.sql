-- +goose Up
-- The workspace context names the approvals waiting for a person's
-- decision (approvals.ContextPart), so a change to an approval moves the
-- workspace's context stamp like any other table the context reads.
CREATE CONSTRAINT TRIGGER touch_workspace_context AFTER INSERT OR UPDATE OR DELETE ON approvals
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION touch_workspace_context();

-- +goose Down
DROP TRIGGER touch_workspace_context ON approvals;
