-- +goose Up
-- The sending engine (package mail): the DKIM keys it signs with, the send
-- ledger that makes each step go out once, and the replies it reads back.

-- One DKIM key pair per sending domain of a workspace. The private key is
-- sealed with AES-256-GCM under a key derived from MAIL_SECRET_KEY (never
-- stored here); public_key is the p= value of the published record.
CREATE TABLE mail_dkim_keys (
    workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    domain       text NOT NULL,
    selector     text NOT NULL CHECK (selector ~ '^[a-z0-9-]+$'),
    private_key  bytea NOT NULL,
    public_key   text NOT NULL,
    created_at   timestamptz NOT NULL,
    PRIMARY KEY (workspace_id, domain)
);

-- The send ledger: one row per (campaign, lead, step), claimed before SMTP
-- DATA and settled after it. status sending: claimed, the outcome is not
-- written yet (a crash there leaves it so, and it is never sent again
-- automatically); sent: the server accepted it; failed: refused before the
-- message was handed over, so a retry may claim it again; unknown: the
-- connection broke while the server was accepting it, never retried.
CREATE TABLE mail_sends (
    workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    campaign_id  uuid NOT NULL,
    lead_id      uuid NOT NULL,
    step         integer NOT NULL CHECK (step >= 1),
    message_id   text NOT NULL UNIQUE,
    mailbox      text NOT NULL,
    recipient    text NOT NULL,
    status       text NOT NULL CHECK (status IN ('sending', 'sent', 'failed', 'unknown')),
    attempts     integer NOT NULL DEFAULT 1 CHECK (attempts >= 1),
    error        text,
    claimed_at   timestamptz NOT NULL,
    settled_at   timestamptz,
    PRIMARY KEY (workspace_id, campaign_id, lead_id, step),
    CHECK ((status = 'sending') = (settled_at IS NULL))
);
CREATE INDEX mail_sends_recipient_idx ON mail_sends (workspace_id, lower(recipient));
CREATE INDEX mail_sends_domain_idx ON mail_sends (workspace_id, lower(split_part(recipient, '@', 2)));

-- Messages read from a mailbox's inbox, each matched to the send it answers
-- (when one is found) and classified with the rule that decided.
CREATE TABLE mail_replies (
    workspace_id   uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    mailbox        text NOT NULL,
    message_id     text NOT NULL,
    from_address   text NOT NULL,
    subject        text NOT NULL,
    received_at    timestamptz NOT NULL,
    campaign_id    uuid,
    lead_id        uuid,
    step           integer,
    matched_by     text NOT NULL CHECK (matched_by IN ('thread', 'address', 'domain', 'none')),
    classification text NOT NULL CHECK (classification IN ('interested', 'not_now', 'not_interested', 'out_of_office', 'unsubscribe', 'bounce', 'other')),
    rule           text NOT NULL,
    returns_on     date,
    bounce         text CHECK (bounce IN ('hard', 'soft')),
    excerpt        text NOT NULL,
    PRIMARY KEY (workspace_id, mailbox, message_id),
    CHECK ((matched_by = 'none') = (campaign_id IS NULL)),
    CHECK ((classification = 'bounce') = (bounce IS NOT NULL))
);
CREATE INDEX mail_replies_newest_idx ON mail_replies (workspace_id, received_at DESC);

-- Where the poller stopped in each mailbox's inbox.
CREATE TABLE mail_poll_marks (
    workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    mailbox      text NOT NULL,
    uid_validity bigint NOT NULL,
    last_uid     bigint NOT NULL,
    PRIMARY KEY (workspace_id, mailbox)
);

-- +goose Down
DROP TABLE mail_poll_marks;
DROP TABLE mail_replies;
DROP TABLE mail_sends;
DROP TABLE mail_dkim_keys;
