-- +goose Up
-- Approval cards: an action with consequences waits here for a person's
-- decision, then for its execution. The status moves only forward:
--
--   pending ─┬─ approve ─▶ approved ─▶ executing ─┬─▶ done
--            │                 │                   └─▶ not_done
--            │                 └──────────────────────▶ not_done (expired, preconditions gone)
--            ├─ reject ──▶ rejected
--            └─ expiry ──▶ not_done
CREATE TABLE approvals (
    workspace_id    uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    id              text NOT NULL CHECK (id ~ '^ap_[0-9a-f]{16}$'),
    action          text NOT NULL CHECK (action ~ '^[a-z][a-z0-9_]{0,63}$'),
    -- The action's arguments in canonical JSON, and their SHA-256: the same
    -- action with the same arguments is one approval while it is pending.
    arguments       jsonb NOT NULL,
    arguments_hash  bytea NOT NULL,
    -- What the action needs to carry out exactly what was approved (the
    -- plan shown), not part of its identity: when it changes, the pending
    -- approval is superseded.
    details         jsonb NOT NULL DEFAULT 'null',
    summary         text NOT NULL CHECK (length(summary) BETWEEN 1 AND 2000),
    impact          jsonb NOT NULL,
    irreversible    boolean NOT NULL,
    decide_here     boolean NOT NULL,
    status          text NOT NULL DEFAULT 'pending'
                    CHECK (status IN ('pending', 'approved', 'executing', 'done', 'not_done', 'rejected')),
    created_at      timestamptz NOT NULL,
    expires_at      timestamptz NOT NULL,
    decided_at      timestamptz,
    decided_by      text,
    decided_by_user uuid,
    decided_via     text CHECK (decided_via IN ('card', 'conversation', 'web')),
    reason          text CHECK (length(reason) <= 1000),
    started_at      timestamptz,
    finished_at     timestamptz,
    outcome         text,
    PRIMARY KEY (workspace_id, id),
    CHECK (expires_at > created_at),
    -- Only a signed-in person may approve what cannot be undone.
    CHECK (NOT (irreversible AND decide_here)),
    CHECK ((decided_at IS NULL) = (decided_by IS NULL) AND (decided_at IS NULL) = (decided_via IS NULL)),
    CHECK (status <> 'pending' OR (decided_at IS NULL AND finished_at IS NULL)),
    CHECK (status NOT IN ('approved', 'executing', 'rejected') OR decided_at IS NOT NULL),
    CHECK (status <> 'executing' OR started_at IS NOT NULL),
    CHECK ((status IN ('done', 'not_done', 'rejected')) = (finished_at IS NOT NULL)),
    CHECK ((status IN ('done', 'not_done', 'rejected')) = (outcome IS NOT NULL))
);
-- At most one pending approval per action and arguments: calling the action
-- tool again returns it instead of opening a second one.
CREATE UNIQUE INDEX approvals_one_pending_idx ON approvals (workspace_id, action, arguments_hash)
    WHERE status = 'pending';
CREATE INDEX approvals_recent_idx ON approvals (workspace_id, created_at DESC, id DESC);
CREATE INDEX approvals_expiry_idx ON approvals (expires_at) WHERE status = 'pending';

-- The audit trail: one row per transition (and per refused attempt to
-- approve), written in the transaction that makes it.
CREATE TABLE approval_events (
    workspace_id uuid NOT NULL,
    approval_id  text NOT NULL,
    seq          bigint GENERATED ALWAYS AS IDENTITY,
    at           timestamptz NOT NULL,
    event        text NOT NULL CHECK (event IN (
                     'opened', 'approved', 'rejected', 'approve_refused', 'executing',
                     'done', 'not_done', 'expired', 'superseded')),
    from_status  text,
    to_status    text NOT NULL,
    actor        text NOT NULL,
    actor_user   uuid,
    via          text NOT NULL CHECK (via IN ('card', 'conversation', 'web', 'system')),
    reason       text,
    PRIMARY KEY (workspace_id, approval_id, seq),
    FOREIGN KEY (workspace_id, approval_id) REFERENCES approvals (workspace_id, id) ON DELETE CASCADE
);

-- +goose Down
DROP TABLE approval_events;
DROP TABLE approvals;
