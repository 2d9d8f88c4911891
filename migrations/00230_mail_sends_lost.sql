-- +goose Up
-- A step left marked sending by a worker that stopped (killed, its tick
-- timed out) may or may not have left: once its lease is over, the sweep
-- settles it as lost, "not sent (unknown)": never sent again, and never
-- counted as sent or delivered. The partial index serves the sweeps of
-- unsettled steps.
ALTER TABLE mail_sends
    DROP CONSTRAINT mail_sends_status_check,
    ADD CONSTRAINT mail_sends_status_check CHECK (status IN ('claimed', 'sending', 'sent', 'failed', 'unknown', 'lost'));
CREATE INDEX mail_sends_unsettled_idx ON mail_sends (claimed_at) WHERE status IN ('claimed', 'sending');

-- +goose Down
DROP INDEX mail_sends_unsettled_idx;
UPDATE mail_sends SET status = 'sending', settled_at = NULL, error = NULL WHERE status = 'lost';
ALTER TABLE mail_sends
    DROP CONSTRAINT mail_sends_status_check,
    ADD CONSTRAINT mail_sends_status_check CHECK (status IN ('claimed', 'sending', 'sent', 'failed', 'unknown'));
