-- +goose Up
-- Each replica keeps in memory, per OAuth grant, who its access tokens act
-- for (auth/oauth: the workspace and its slug, the person and their email,
-- the app's name), and checks a token against it without a read. These
-- triggers tell every replica when any of that changes, as migration
-- 00047's do for workspace tokens: the grant's id when one grant is
-- revoked or moved, "*" when any grant's answer may have changed (a grant,
-- membership or app deleted, a person disabled or renamed, a workspace
-- renamed or deleted).

-- +goose StatementBegin
CREATE FUNCTION notify_grant_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('vibesell_grants', NEW.id::text);
    RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER notify_grant_revoked AFTER UPDATE ON oauth_grants
    FOR EACH ROW WHEN (OLD.revoked_at IS DISTINCT FROM NEW.revoked_at OR OLD.id <> NEW.id
                       OR OLD.workspace_id <> NEW.workspace_id OR OLD.user_id <> NEW.user_id OR OLD.client_id <> NEW.client_id)
    EXECUTE FUNCTION notify_grant_change();

-- Per statement: a delete of many rows (a workspace's, a person's) is one
-- notification.
-- +goose StatementBegin
CREATE FUNCTION notify_grants_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('vibesell_grants', '*');
    RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER notify_grants_deleted AFTER DELETE ON oauth_grants
    FOR EACH STATEMENT EXECUTE FUNCTION notify_grants_change();
CREATE TRIGGER notify_grants_membership_ended AFTER DELETE OR UPDATE OF user_id, workspace_id ON memberships
    FOR EACH STATEMENT EXECUTE FUNCTION notify_grants_change();
CREATE TRIGGER notify_grants_user_changed AFTER DELETE OR UPDATE OF email, disabled_at ON users
    FOR EACH STATEMENT EXECUTE FUNCTION notify_grants_change();
CREATE TRIGGER notify_grants_client_changed AFTER DELETE OR UPDATE OF id, name ON oauth_clients
    FOR EACH STATEMENT EXECUTE FUNCTION notify_grants_change();
CREATE TRIGGER notify_grants_workspace_changed AFTER DELETE OR UPDATE OF id, slug ON workspaces
    FOR EACH STATEMENT EXECUTE FUNCTION notify_grants_change();

-- +goose Down
DROP TRIGGER notify_grants_workspace_changed ON workspaces;
DROP TRIGGER notify_grants_client_changed ON oauth_clients;
DROP TRIGGER notify_grants_user_changed ON users;
DROP TRIGGER notify_grants_membership_ended ON memberships;
DROP TRIGGER notify_grants_deleted ON oauth_grants;
DROP FUNCTION notify_grants_change();
DROP TRIGGER notify_grant_revoked ON oauth_grants;
DROP FUNCTION notify_grant_change();
