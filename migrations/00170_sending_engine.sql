-- +goose Up
-- The sending engine's schedule: the ledger and the replies keyed by the
-- campaigns' own ids (cp_… and the lead's number), a failed send's next
-- try, and each mailbox's pace and health.

-- No server wrote these tables before this migration (the send primitive
-- had no caller yet); a row there would make the casts below fail rather
-- than be changed silently.
ALTER TABLE mail_sends
    ALTER COLUMN campaign_id TYPE text USING campaign_id::text,
    ALTER COLUMN lead_id TYPE bigint USING lead_id::text::bigint,
    ADD COLUMN retry_at timestamptz;
-- A batch's steps are claimed together (status claimed), and each is
-- marked sending, alone, just before its message is handed over: a
-- claimed row never went out, so one a stopped worker left is released
-- and tried again; a sending row may have, and never goes again.
ALTER TABLE mail_sends
    DROP CONSTRAINT mail_sends_status_check,
    DROP CONSTRAINT mail_sends_check,
    ADD CONSTRAINT mail_sends_status_check CHECK (status IN ('claimed', 'sending', 'sent', 'failed', 'unknown')),
    ADD CONSTRAINT mail_sends_check CHECK ((status IN ('claimed', 'sending')) = (settled_at IS NULL));
ALTER TABLE mail_replies
    ALTER COLUMN campaign_id TYPE text USING campaign_id::text,
    ALTER COLUMN lead_id TYPE bigint USING lead_id::text::bigint;
CREATE INDEX mail_sends_mailbox_idx ON mail_sends (workspace_id, mailbox, claimed_at DESC);
CREATE INDEX mail_sends_campaign_idx ON mail_sends (workspace_id, campaign_id, claimed_at DESC);
CREATE INDEX mail_replies_campaign_idx ON mail_replies (workspace_id, campaign_id, lead_id);

-- Each sending mailbox's pace (the earliest its next email may leave, a
-- random gap after the last) and its health: paused when its bounce rate
-- passed the limit, until a person resumes a campaign that sends from it;
-- its bounce rate is then counted again from window_from.
CREATE TABLE mail_mailboxes (
    workspace_id  uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    mailbox       text NOT NULL,
    next_at       timestamptz NOT NULL,
    paused_reason text,
    paused_at     timestamptz,
    window_from   timestamptz,
    PRIMARY KEY (workspace_id, mailbox),
    CHECK ((paused_reason IS NULL) = (paused_at IS NULL))
);

-- Where a campaign's bounce rate is counted from: the moment the engine
-- last paused it for bouncing (a person resuming it starts afresh).
CREATE TABLE mail_campaign_health (
    workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    campaign_id  text NOT NULL,
    window_from  timestamptz NOT NULL,
    PRIMARY KEY (workspace_id, campaign_id)
);

-- A domain's DKIM key is RSA-2048 or Ed25519 (RFC 8463), chosen when it
-- is made; the keys made before are RSA.
ALTER TABLE mail_dkim_keys ADD COLUMN algorithm text NOT NULL DEFAULT 'rsa' CHECK (algorithm IN ('rsa', 'ed25519'));

-- +goose Down
ALTER TABLE mail_dkim_keys DROP COLUMN algorithm;
DROP TABLE mail_campaign_health;
DROP TABLE mail_mailboxes;
DROP INDEX mail_replies_campaign_idx;
DROP INDEX mail_sends_campaign_idx;
DROP INDEX mail_sends_mailbox_idx;
DELETE FROM mail_sends WHERE status = 'claimed';
ALTER TABLE mail_sends
    DROP CONSTRAINT mail_sends_status_check,
    DROP CONSTRAINT mail_sends_check,
    ADD CONSTRAINT mail_sends_status_check CHECK (status IN ('sending', 'sent', 'failed', 'unknown')),
    ADD CONSTRAINT mail_sends_check CHECK ((status = 'sending') = (settled_at IS NULL)),
    DROP COLUMN retry_at;
