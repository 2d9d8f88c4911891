-- +goose Up
-- MCP sessions live here, not in a process's memory, so that any replica
-- can serve the next request of a session.
CREATE TABLE mcp_sessions (
    id               text PRIMARY KEY,
    workspace_id     uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    protocol_version text NOT NULL DEFAULT '',
    client_name      text NOT NULL DEFAULT '',
    client_version   text NOT NULL DEFAULT '',
    capabilities     jsonb NOT NULL DEFAULT '{}',
    created_at       timestamptz NOT NULL DEFAULT now(),
    last_seen_at     timestamptz NOT NULL DEFAULT now(),
    terminated_at    timestamptz
);
CREATE INDEX mcp_sessions_workspace_idx ON mcp_sessions (workspace_id);
CREATE INDEX mcp_sessions_last_seen_idx ON mcp_sessions (last_seen_at) WHERE terminated_at IS NULL;

-- +goose Down
DROP TABLE mcp_sessions;
