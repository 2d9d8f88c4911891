-- +goose Up
CREATE TABLE workspaces (
    id         uuid PRIMARY KEY,
    slug       text NOT NULL UNIQUE CHECK (slug ~ '^[a-z0-9][a-z0-9-]{0,62}$'),
    name       text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
    created_at timestamptz NOT NULL DEFAULT now()
);

-- Bearer tokens for MCP clients. Only a SHA-256 of the token is kept: a
-- leaked table does not leak working tokens.
CREATE TABLE api_tokens (
    workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    id           uuid NOT NULL,
    token_hash   bytea NOT NULL UNIQUE,
    created_at   timestamptz NOT NULL DEFAULT now(),
    revoked_at   timestamptz,
    PRIMARY KEY (workspace_id, id)
);

-- One row once the first start has created the first workspace, so that
-- replicas starting together greet the operator once.
CREATE TABLE installation (
    singleton    boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    workspace_id uuid NOT NULL REFERENCES workspaces (id),
    created_at   timestamptz NOT NULL DEFAULT now()
);

-- +goose Down
DROP TABLE installation;
DROP TABLE api_tokens;
DROP TABLE workspaces;
