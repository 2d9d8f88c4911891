-- +goose Up
-- Every table of one workspace's rows has a primary key that starts with
-- workspace_id, so that the path beyond one database stays open: a
-- distributed PostgreSQL (Citus) places each workspace's rows together by
-- it (ARCHITECTURE.md, "Beyond one database"; TestWorkspaceTablesKeyByWorkspace).
-- These seven were keyed by their own id alone. Where a row is also found
-- by that id alone (a session's id, a grant's id in a token, a notice's
-- Message-ID in the sandbox's outbox) the id stays unique on its own; that
-- lookup is a query across workspaces, listed there as such.

ALTER TABLE billing_checkouts DROP CONSTRAINT billing_checkouts_pkey, ADD PRIMARY KEY (workspace_id, id);

ALTER TABLE mail_notices DROP CONSTRAINT mail_notices_pkey, ADD PRIMARY KEY (workspace_id, message_id),
    ADD CONSTRAINT mail_notices_message_id_key UNIQUE (message_id);

ALTER TABLE mail_reply_corrections DROP CONSTRAINT mail_reply_corrections_pkey, ADD PRIMARY KEY (workspace_id, id);

ALTER TABLE mcp_sessions DROP CONSTRAINT mcp_sessions_pkey, ADD PRIMARY KEY (workspace_id, id),
    ADD CONSTRAINT mcp_sessions_id_key UNIQUE (id);
DROP INDEX mcp_sessions_workspace_idx; -- the key leads with workspace_id now

-- Redeemed with the workspace (proof.Redeem): the hash needs no index of
-- its own.
ALTER TABLE decision_tokens DROP CONSTRAINT decision_tokens_pkey, ADD PRIMARY KEY (workspace_id, token_hash);

-- A person's workspaces are read by user (sign-in, the switcher): that
-- index stays, and is the query across workspaces.
ALTER TABLE memberships DROP CONSTRAINT memberships_pkey, ADD PRIMARY KEY (workspace_id, user_id);
DROP INDEX memberships_workspace_idx;
CREATE INDEX memberships_user_idx ON memberships (user_id);

-- The codes and refresh tokens point at a grant by its id: their foreign
-- keys move to the id's own unique constraint.
ALTER TABLE oauth_codes DROP CONSTRAINT oauth_codes_grant_id_fkey;
ALTER TABLE oauth_refresh_tokens DROP CONSTRAINT oauth_refresh_tokens_grant_id_fkey;
ALTER TABLE oauth_grants DROP CONSTRAINT oauth_grants_pkey, ADD PRIMARY KEY (workspace_id, id),
    ADD CONSTRAINT oauth_grants_id_key UNIQUE (id);
ALTER TABLE oauth_codes ADD CONSTRAINT oauth_codes_grant_id_fkey FOREIGN KEY (grant_id) REFERENCES oauth_grants (id) ON DELETE CASCADE;
ALTER TABLE oauth_refresh_tokens ADD CONSTRAINT oauth_refresh_tokens_grant_id_fkey FOREIGN KEY (grant_id) REFERENCES oauth_grants (id) ON DELETE CASCADE;

-- +goose Down
ALTER TABLE oauth_codes DROP CONSTRAINT oauth_codes_grant_id_fkey;
ALTER TABLE oauth_refresh_tokens DROP CONSTRAINT oauth_refresh_tokens_grant_id_fkey;
ALTER TABLE oauth_grants DROP CONSTRAINT oauth_grants_id_key, DROP CONSTRAINT oauth_grants_pkey, ADD PRIMARY KEY (id);
ALTER TABLE oauth_codes ADD CONSTRAINT oauth_codes_grant_id_fkey FOREIGN KEY (grant_id) REFERENCES oauth_grants (id) ON DELETE CASCADE;
ALTER TABLE oauth_refresh_tokens ADD CONSTRAINT oauth_refresh_tokens_grant_id_fkey FOREIGN KEY (grant_id) REFERENCES oauth_grants (id) ON DELETE CASCADE;

DROP INDEX memberships_user_idx;
ALTER TABLE memberships DROP CONSTRAINT memberships_pkey, ADD PRIMARY KEY (user_id, workspace_id);
CREATE INDEX memberships_workspace_idx ON memberships (workspace_id);

ALTER TABLE decision_tokens DROP CONSTRAINT decision_tokens_pkey, ADD PRIMARY KEY (token_hash);

CREATE INDEX mcp_sessions_workspace_idx ON mcp_sessions (workspace_id);
ALTER TABLE mcp_sessions DROP CONSTRAINT mcp_sessions_id_key, DROP CONSTRAINT mcp_sessions_pkey, ADD PRIMARY KEY (id);

ALTER TABLE mail_reply_corrections DROP CONSTRAINT mail_reply_corrections_pkey, ADD PRIMARY KEY (id);

ALTER TABLE mail_notices DROP CONSTRAINT mail_notices_message_id_key, DROP CONSTRAINT mail_notices_pkey, ADD PRIMARY KEY (message_id);

ALTER TABLE billing_checkouts DROP CONSTRAINT billing_checkouts_pkey, ADD PRIMARY KEY (id);
