-- +goose Up
-- get_workspace_context shows the target and the imports (the lead count
-- is the sum of the imports' counts), so both tables move the workspace's
-- context stamp (see 00030). The leads themselves do not: an import batch
-- writes a thousand of them and one lead_imports row, which moves the
-- stamp once.
CREATE CONSTRAINT TRIGGER touch_workspace_context AFTER INSERT OR UPDATE OR DELETE ON audience_targets
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION touch_workspace_context();
CREATE CONSTRAINT TRIGGER touch_workspace_context AFTER INSERT OR UPDATE OR DELETE ON lead_imports
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION touch_workspace_context();

-- +goose Down
DROP TRIGGER touch_workspace_context ON lead_imports;
DROP TRIGGER touch_workspace_context ON audience_targets;
