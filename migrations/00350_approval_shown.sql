-- +goose Up
-- What each approval showed the person deciding it: every version of its
-- shown document (the action, summary, impact, amounts and recipients as
-- the card and the web page render them), keyed by its SHA-256. An
-- approval opens with one version; each change of what it would do
-- (a campaign staged again while its launch waits…) adds another. A
-- decision names the version its decider saw, so one made on an older
-- version is refused, and the changes between the two are listed from
-- here.
CREATE TABLE approval_shown (
    workspace_id uuid NOT NULL,
    approval_id  text NOT NULL,
    hash         text NOT NULL CHECK (hash ~ '^[0-9a-f]{64}$'),
    document     jsonb NOT NULL,
    at           timestamptz NOT NULL,
    PRIMARY KEY (workspace_id, approval_id, hash),
    FOREIGN KEY (workspace_id, approval_id) REFERENCES approvals (workspace_id, id) ON DELETE CASCADE
);

-- The version each decision (and each refused attempt) was made on; null
-- for events no person decided, and for decisions from before this.
ALTER TABLE approval_events ADD COLUMN shown text CHECK (shown ~ '^[0-9a-f]{64}$');

-- +goose Down
ALTER TABLE approval_events DROP COLUMN shown;
DROP TABLE approval_shown;
