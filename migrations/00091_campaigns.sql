-- +goose Up
-- What to say and when: sequences (every saved edit a version of its own,
-- approved version by version) and campaigns (leads, one approved version,
-- mailboxes and a schedule), with the status the sending engine checks in
-- the transaction of every send.

CREATE TABLE sequence_versions (
    workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    sequence_id  text NOT NULL CHECK (sequence_id ~ '^sq_[0-9a-f]{16}$'),
    version      integer NOT NULL CHECK (version > 0),
    name         text NOT NULL,
    steps        jsonb NOT NULL,
    created_at   timestamptz NOT NULL,
    approved_at  timestamptz,
    approved_by  text,
    PRIMARY KEY (workspace_id, sequence_id, version),
    CHECK ((approved_at IS NULL) = (approved_by IS NULL))
);

CREATE TABLE campaigns (
    workspace_id         uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    id                   text NOT NULL CHECK (id ~ '^cp_[0-9a-f]{16}$'),
    name                 text NOT NULL,
    sequence_id          text NOT NULL,
    sequence_version     integer NOT NULL,
    mailboxes            text[] NOT NULL CHECK (cardinality(mailboxes) > 0),
    window_start         smallint NOT NULL CHECK (window_start BETWEEN 0 AND 1439), -- minutes after the lead's local midnight
    window_end           smallint NOT NULL CHECK (window_end > window_start AND window_end <= 1440),
    days                 smallint[] NOT NULL CHECK (cardinality(days) BETWEEN 1 AND 7), -- ISO weekdays, 1 Monday … 7 Sunday
    daily_cap            integer NOT NULL CHECK (daily_cap > 0),          -- per mailbox
    stop_for_company     boolean NOT NULL,
    status               text NOT NULL CHECK (status IN ('staged', 'scheduled', 'sending', 'paused', 'finished')),
    paused_reason        text,
    paused_automatically boolean NOT NULL DEFAULT false,
    created_at           timestamptz NOT NULL,
    launched_at          timestamptz,
    first_send_at        timestamptz,
    paused_at            timestamptz,
    PRIMARY KEY (workspace_id, id),
    FOREIGN KEY (workspace_id, sequence_id, sequence_version) REFERENCES sequence_versions (workspace_id, sequence_id, version),
    CHECK ((status = 'paused') = (paused_reason IS NOT NULL AND paused_at IS NOT NULL))
);
CREATE INDEX campaigns_recent ON campaigns (workspace_id, created_at DESC);

-- The people a campaign writes to, as they were when it was staged: the
-- merge fields the engine fills in and the time zone its window is read in.
CREATE TABLE campaign_leads (
    workspace_id uuid NOT NULL,
    campaign_id  text NOT NULL,
    lead_id      bigint NOT NULL,
    email        text NOT NULL,
    fields       jsonb NOT NULL,
    time_zone    text NOT NULL,
    PRIMARY KEY (workspace_id, campaign_id, lead_id),
    FOREIGN KEY (workspace_id, campaign_id) REFERENCES campaigns (workspace_id, id) ON DELETE CASCADE
);

-- +goose Down
DROP TABLE campaign_leads;
DROP TABLE campaigns;
DROP TABLE sequence_versions;
