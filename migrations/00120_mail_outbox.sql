-- +goose Up
-- The sandbox mail server's outbox: every message it accepted, as sent,
-- kept for the workspace whose send it was (found through the send
-- ledger's Message-ID), so the web app shows it after a restart too. Only
-- the sandbox writes here; it never relays a message anywhere.
CREATE TABLE mail_outbox (
    workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    id           bigint GENERATED ALWAYS AS IDENTITY,
    mailbox      text NOT NULL,        -- the envelope sender: the sending address
    recipients   text[] NOT NULL,
    message_id   text NOT NULL,
    raw          bytea NOT NULL,       -- the message exactly as received
    accepted_at  timestamptz NOT NULL,
    PRIMARY KEY (workspace_id, id)
);
CREATE INDEX mail_outbox_newest_idx ON mail_outbox (workspace_id, accepted_at DESC, id DESC);

-- +goose Down
DROP TABLE mail_outbox;
