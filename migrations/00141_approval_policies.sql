-- +goose Up
-- A workspace's rule for an action: approvals of it must be approved by a
-- click in the card or in the web app, never relayed by the assistant. A
-- row means the rule is on.
CREATE TABLE approval_policies (
    workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    action       text NOT NULL CHECK (action ~ '^[a-z][a-z0-9_]{0,63}$'),
    set_by       text NOT NULL,
    set_at       timestamptz NOT NULL,
    PRIMARY KEY (workspace_id, action)
);

-- Emails about an approval only a signed-in person may approve: one when
-- it opens, one before it expires. The row is the claim: never two.
CREATE TABLE approval_reminders (
    workspace_id uuid NOT NULL,
    approval_id  text NOT NULL,
    kind         text NOT NULL CHECK (kind IN ('opened', 'expiring')),
    sent_at      timestamptz NOT NULL,
    recipients   integer NOT NULL,
    PRIMARY KEY (workspace_id, approval_id, kind),
    FOREIGN KEY (workspace_id, approval_id) REFERENCES approvals (workspace_id, id) ON DELETE CASCADE
);

-- +goose Down
DROP TABLE approval_reminders;
DROP TABLE approval_policies;
