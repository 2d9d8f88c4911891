-- +goose Up
-- Who a workspace's emails come from: the postal address every cold email
-- must carry (CAN-SPAM), the sender name used when a mailbox has none, and
-- the time zone its dates are shown in and its leads fall back to. One row
-- per workspace, written when the person first gives any of them.
CREATE TABLE workspace_senders (
    workspace_id   uuid PRIMARY KEY REFERENCES workspaces (id) ON DELETE CASCADE,
    postal_address text CHECK (length(postal_address) BETWEEN 10 AND 500),
    sender_name    text CHECK (length(sender_name) BETWEEN 1 AND 100),
    time_zone      text NOT NULL DEFAULT 'UTC',
    updated_at     timestamptz NOT NULL
);

-- +goose Down
DROP TABLE workspace_senders;
