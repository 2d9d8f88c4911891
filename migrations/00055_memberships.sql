-- +goose Up
-- A person has one account (email, password) and may belong to several
-- workspaces: each membership lets them sign in to that workspace, and a
-- web session has one of them open at a time.
CREATE TABLE memberships (
    user_id      uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    created_at   timestamptz NOT NULL DEFAULT now(),
    -- When the person last opened this workspace: sign-in opens the one
    -- they were last in.
    opened_at    timestamptz,
    PRIMARY KEY (user_id, workspace_id)
);
CREATE INDEX memberships_workspace_idx ON memberships (workspace_id);

-- Everyone keeps the workspace they had.
INSERT INTO memberships (user_id, workspace_id, created_at)
SELECT id, workspace_id, created_at FROM users;

DROP INDEX users_workspace_idx;
ALTER TABLE users DROP COLUMN workspace_id;

-- +goose Down
-- An account belongs to one workspace again: the one it joined first.
-- Memberships in other workspaces are lost.
ALTER TABLE users ADD COLUMN workspace_id uuid REFERENCES workspaces (id) ON DELETE CASCADE;
UPDATE users u SET workspace_id = (SELECT m.workspace_id FROM memberships m WHERE m.user_id = u.id
    ORDER BY m.created_at, m.workspace_id LIMIT 1);
DELETE FROM users WHERE workspace_id IS NULL;
ALTER TABLE users ALTER COLUMN workspace_id SET NOT NULL;
CREATE INDEX users_workspace_idx ON users (workspace_id);
DROP TABLE memberships;
