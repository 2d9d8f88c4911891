-- +goose Up
-- Policies per action (issue 32): who may approve, how many distinct
-- people, in stages, with reasons, an expiry, and the requester barred
-- from approving alone. The click-only rule of 00141 becomes one setting
-- of the same row: decide_where says where approving is allowed, and a
-- row written before this migration meant "clicked".
ALTER TABLE approval_policies
    ADD COLUMN decide_where      text NOT NULL DEFAULT 'clicked' CHECK (decide_where IN ('anywhere', 'clicked', 'web')),
    ADD COLUMN reason_to_reject  boolean NOT NULL DEFAULT false,
    ADD COLUMN reason_to_approve boolean NOT NULL DEFAULT false,
    ADD COLUMN ttl_minutes       integer CHECK (ttl_minutes BETWEEN 1 AND 43200),
    ADD COLUMN requester_barred  boolean NOT NULL DEFAULT false,
    -- the stages, in order: [{name, approvers, needed, above, fallback, escalateAfterMinutes}]
    ADD COLUMN stages            jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(stages) = 'array');

-- An approval keeps the stages and the requester rule it was opened
-- under: a policy changed while it waits does not move the votes already
-- counted. '[]' (every approval opened before) is one stage, one person,
-- anyone: the decision of before. votes counts the approvals recorded so
-- far, so that a vote moves the workspace's context stamp through this
-- row (00030).
ALTER TABLE approvals
    ADD COLUMN requested_by_email text,
    ADD COLUMN stages             jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(stages) = 'array'),
    ADD COLUMN requester_barred   boolean NOT NULL DEFAULT false,
    ADD COLUMN votes              integer NOT NULL DEFAULT 0;

-- One row per person and stage: the same person approving twice counts
-- once. voter is the person whose approval it is (lowercased email); by is
-- who clicked, "X for Y" when a delegate decided in Y's place.
CREATE TABLE approval_votes (
    workspace_id uuid NOT NULL,
    approval_id  text NOT NULL,
    stage        integer NOT NULL CHECK (stage >= 0),
    voter        text NOT NULL CHECK (voter = lower(voter) AND voter <> ''),
    by           text NOT NULL,
    approve      boolean NOT NULL,
    reason       text CHECK (length(reason) <= 1000),
    via          text NOT NULL CHECK (via IN ('card', 'conversation', 'web')),
    at           timestamptz NOT NULL,
    PRIMARY KEY (workspace_id, approval_id, stage, voter),
    FOREIGN KEY (workspace_id, approval_id) REFERENCES approvals (workspace_id, id) ON DELETE CASCADE
);

-- A person away names who decides in their place until a date.
CREATE TABLE approval_delegations (
    workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    person       text NOT NULL CHECK (person = lower(person)),
    delegate     text NOT NULL CHECK (delegate = lower(delegate)),
    until        timestamptz NOT NULL,
    set_at       timestamptz NOT NULL,
    PRIMARY KEY (workspace_id, person),
    CHECK (person <> delegate)
);

-- A stage nobody decided in time: first its approvers are reminded, then
-- its fallback approver is asked (and may approve it from then on). The
-- row is the claim: each step once.
CREATE TABLE approval_escalations (
    workspace_id uuid NOT NULL,
    approval_id  text NOT NULL,
    stage        integer NOT NULL CHECK (stage >= 0),
    step         text NOT NULL CHECK (step IN ('reminded', 'escalated')),
    at           timestamptz NOT NULL,
    asked        text NOT NULL,
    PRIMARY KEY (workspace_id, approval_id, stage, step),
    FOREIGN KEY (workspace_id, approval_id) REFERENCES approvals (workspace_id, id) ON DELETE CASCADE
);
-- The email to a stage's people when the stage before it is approved
-- ("stage 1", "stage 2"…), once each, like the others.
ALTER TABLE approval_reminders DROP CONSTRAINT approval_reminders_kind_check;
ALTER TABLE approval_reminders ADD CONSTRAINT approval_reminders_kind_check
    CHECK (kind IN ('opened', 'expiring') OR kind ~ '^stage [1-9][0-9]?$');

CREATE INDEX approvals_staged_pending_idx ON approvals (created_at) WHERE status = 'pending' AND stages <> '[]';

ALTER TABLE approval_events DROP CONSTRAINT approval_events_event_check;
ALTER TABLE approval_events ADD CONSTRAINT approval_events_event_check CHECK (event IN (
    'opened', 'approved', 'rejected', 'approve_refused', 'executing',
    'done', 'not_done', 'expired', 'superseded',
    'vote', 'reminded', 'escalated'));

-- +goose Down
DELETE FROM approval_events WHERE event IN ('vote', 'reminded', 'escalated');
ALTER TABLE approval_events DROP CONSTRAINT approval_events_event_check;
ALTER TABLE approval_events ADD CONSTRAINT approval_events_event_check CHECK (event IN (
    'opened', 'approved', 'rejected', 'approve_refused', 'executing',
    'done', 'not_done', 'expired', 'superseded'));
DROP INDEX approvals_staged_pending_idx;
DELETE FROM approval_reminders WHERE kind LIKE 'stage %';
ALTER TABLE approval_reminders DROP CONSTRAINT approval_reminders_kind_check;
ALTER TABLE approval_reminders ADD CONSTRAINT approval_reminders_kind_check CHECK (kind IN ('opened', 'expiring'));
DROP TABLE approval_escalations;
DROP TABLE approval_delegations;
DROP TABLE approval_votes;
ALTER TABLE approvals DROP COLUMN requested_by_email, DROP COLUMN stages, DROP COLUMN requester_barred, DROP COLUMN votes;
ALTER TABLE approval_policies DROP COLUMN decide_where, DROP COLUMN reason_to_reject, DROP COLUMN reason_to_approve,
    DROP COLUMN ttl_minutes, DROP COLUMN requester_barred, DROP COLUMN stages;
