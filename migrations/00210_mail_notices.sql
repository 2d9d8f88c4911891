-- +goose Up
-- VibeSell's own emails to a workspace's people (an approval waiting for
-- them), by Message-ID: in the sandbox the outbox keeps a message under
-- the workspace whose message it is, and these are no campaign's sends.
CREATE TABLE mail_notices (
    message_id   text PRIMARY KEY,
    workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    sent_at      timestamptz NOT NULL
);
CREATE INDEX mail_notices_workspace_idx ON mail_notices (workspace_id, sent_at);

-- +goose Down
DROP TABLE mail_notices;
