-- +goose Up
-- get_workspace_context says where each waiting approval is decided, and a
-- workspace's click-only rule (00141) changes that: the rule moves the
-- workspace's context stamp (see 00030) like the approvals themselves.
CREATE CONSTRAINT TRIGGER touch_workspace_context AFTER INSERT OR UPDATE OR DELETE ON approval_policies
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION touch_workspace_context();

-- +goose Down
DROP TRIGGER touch_workspace_context ON approval_policies;
