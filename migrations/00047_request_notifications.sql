-- +goose Up
-- Each replica keeps in memory what a request needs: a token's workspace,
-- an MCP session's workspace and state, a workspace's context stamp
-- (store.Notifications). These triggers tell every replica when one of
-- them changes; pg_notify delivers at commit, and not at all on rollback.

-- When a token was last used, written at most every few minutes.
ALTER TABLE api_tokens ADD COLUMN last_used_at timestamptz;

-- +goose StatementBegin
CREATE FUNCTION notify_token_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('vibesell_tokens', encode(OLD.token_hash, 'hex'));
    RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER notify_token_change AFTER DELETE ON api_tokens
    FOR EACH ROW EXECUTE FUNCTION notify_token_change();
CREATE TRIGGER notify_token_revoked AFTER UPDATE ON api_tokens
    FOR EACH ROW WHEN (OLD.revoked_at IS DISTINCT FROM NEW.revoked_at OR OLD.token_hash <> NEW.token_hash
                       OR OLD.workspace_id <> NEW.workspace_id)
    EXECUTE FUNCTION notify_token_change();

-- A token answers with its workspace's slug: a new slug (or a deleted
-- workspace) may change any token's answer.
-- +goose StatementBegin
CREATE FUNCTION notify_workspace_identity_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('vibesell_tokens', '*');
    RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER notify_workspace_deleted AFTER DELETE ON workspaces
    FOR EACH STATEMENT EXECUTE FUNCTION notify_workspace_identity_change();
CREATE TRIGGER notify_workspace_renamed AFTER UPDATE OF slug ON workspaces
    FOR EACH STATEMENT EXECUTE FUNCTION notify_workspace_identity_change();

-- +goose StatementBegin
CREATE FUNCTION notify_session_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('vibesell_sessions', OLD.id);
    RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER notify_session_deleted AFTER DELETE ON mcp_sessions
    FOR EACH ROW EXECUTE FUNCTION notify_session_change();
CREATE TRIGGER notify_session_ended AFTER UPDATE ON mcp_sessions
    FOR EACH ROW WHEN (OLD.terminated_at IS DISTINCT FROM NEW.terminated_at OR OLD.workspace_id <> NEW.workspace_id)
    EXECUTE FUNCTION notify_session_change();

-- The context stamp moves once per writing transaction (migration 00030).
-- +goose StatementBegin
CREATE FUNCTION notify_context_stamp() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('vibesell_context', NEW.workspace_id::text);
    RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER notify_context_stamp AFTER INSERT OR UPDATE ON workspace_context_stamps
    FOR EACH ROW EXECUTE FUNCTION notify_context_stamp();

-- +goose Down
DROP TRIGGER notify_context_stamp ON workspace_context_stamps;
DROP FUNCTION notify_context_stamp();
DROP TRIGGER notify_session_ended ON mcp_sessions;
DROP TRIGGER notify_session_deleted ON mcp_sessions;
DROP FUNCTION notify_session_change();
DROP TRIGGER notify_workspace_renamed ON workspaces;
DROP TRIGGER notify_workspace_deleted ON workspaces;
DROP FUNCTION notify_workspace_identity_change();
DROP TRIGGER notify_token_revoked ON api_tokens;
DROP TRIGGER notify_token_change ON api_tokens;
DROP FUNCTION notify_token_change();
ALTER TABLE api_tokens DROP COLUMN last_used_at;
