-- +goose Up
-- A person answers a reply from the conversation: the answer is proposed
-- (its text, from the mailbox the reply came to, to who wrote it, in its
-- thread), approved, and sent through the send ledger exactly once, like
-- every email. Its ledger row is the lead's in the reply's campaign, with
-- step -id: a negative step is an answer, never a step of the sequence,
-- so the schedule and the campaign's metrics read steps from 1 only.
ALTER TABLE mail_sends
    DROP CONSTRAINT mail_sends_step_check,
    ADD CONSTRAINT mail_sends_step_check CHECK (step <> 0);

-- One row per approval asked for: what exactly it sends. The reply it
-- answers stays in mail_replies; received_at is copied so that an answer
-- to a later reply of the same lead counts as answering the earlier ones.
CREATE TABLE mail_answers (
    workspace_id      uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    id                integer GENERATED ALWAYS AS IDENTITY,
    approval_id       text NOT NULL,
    reply_mailbox     text NOT NULL,
    reply_message_id  text NOT NULL,
    reply_received_at timestamptz NOT NULL,
    campaign_id       text NOT NULL,
    lead_id           bigint NOT NULL,
    mailbox           text NOT NULL,
    recipient         text NOT NULL,
    subject           text NOT NULL,
    body              text NOT NULL,
    in_reply_to       text NOT NULL,
    "references"      text[] NOT NULL,
    created_at        timestamptz NOT NULL,
    PRIMARY KEY (workspace_id, id),
    UNIQUE (workspace_id, approval_id),
    FOREIGN KEY (workspace_id, reply_mailbox, reply_message_id) REFERENCES mail_replies (workspace_id, mailbox, message_id) ON DELETE CASCADE
);
CREATE INDEX mail_answers_lead_idx ON mail_answers (workspace_id, campaign_id, lead_id, reply_received_at);

-- get_workspace_context counts the replies waiting for an answer: a new
-- reply and a new answer move the workspace's context stamp (see 00030);
-- the approvals that decide an answer move it already.
CREATE CONSTRAINT TRIGGER touch_workspace_context AFTER INSERT OR UPDATE OR DELETE ON mail_replies
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION touch_workspace_context();
CREATE CONSTRAINT TRIGGER touch_workspace_context AFTER INSERT OR UPDATE OR DELETE ON mail_answers
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION touch_workspace_context();

-- +goose Down
DROP TRIGGER touch_workspace_context ON mail_answers;
DROP TRIGGER touch_workspace_context ON mail_replies;
DROP TABLE mail_answers;
DELETE FROM mail_sends WHERE step < 0;
ALTER TABLE mail_sends
    DROP CONSTRAINT mail_sends_step_check,
    ADD CONSTRAINT mail_sends_step_check CHECK (step >= 1);
