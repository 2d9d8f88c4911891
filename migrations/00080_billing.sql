-- +goose Up
-- Plans and money. A workspace without a billing_accounts row is on the free
-- plan: nothing has to be written when a workspace is created. The row is
-- also the lock every billing change and every entitlement check of the
-- workspace takes, so that they apply one after the other.
CREATE TABLE billing_accounts (
    workspace_id         uuid PRIMARY KEY REFERENCES workspaces (id) ON DELETE CASCADE,
    stripe_customer      text UNIQUE,
    plan                 text NOT NULL DEFAULT 'free',
    -- Stripe's subscription status; 'active' for the free plan.
    status               text NOT NULL DEFAULT 'active'
        CHECK (status IN ('active', 'trialing', 'past_due', 'canceled', 'unpaid', 'incomplete', 'incomplete_expired', 'paused')),
    subscription_id      text UNIQUE,
    subscription_item    text,
    subscription_price   text,
    cancel_at_period_end boolean NOT NULL DEFAULT false,
    period_end           timestamptz,
    -- A change to a lower plan that takes effect at period_end.
    pending_plan         text,
    -- The last invoice payment that failed and has not been paid since.
    payment_failed_at    timestamptz,
    updated_at           timestamptz NOT NULL DEFAULT now(),
    CHECK ((subscription_id IS NULL) = (subscription_item IS NULL))
);

-- Checkout Sessions handed out. At most one open per workspace and plan: a
-- double click, concurrent calls or two replicas reuse it.
CREATE TABLE billing_checkouts (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    plan         text NOT NULL,
    session_id   text NOT NULL UNIQUE,
    url          text NOT NULL,
    status       text NOT NULL CHECK (status IN ('open', 'complete', 'expired')),
    expires_at   timestamptz NOT NULL,
    created_at   timestamptz NOT NULL
);
CREATE UNIQUE INDEX billing_checkouts_open_idx ON billing_checkouts (workspace_id, plan) WHERE status = 'open';

-- Each Stripe event applied, recorded in the transaction of its effect:
-- a redelivered event inserts nothing and changes nothing.
CREATE TABLE stripe_events (
    id           text PRIMARY KEY,
    type         text NOT NULL,
    workspace_id uuid,
    created_at   timestamptz NOT NULL,
    received_at  timestamptz NOT NULL
);

-- Usage counted by billing itself for limits per calendar month (UTC): leads
-- imported, emails sent. Limits on what exists (mailboxes, active
-- campaigns) are counted from the features' own tables instead.
CREATE TABLE billing_usage (
    workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    metric       text NOT NULL,
    period       date NOT NULL,
    used         bigint NOT NULL CHECK (used >= 0),
    PRIMARY KEY (workspace_id, metric, period)
);

-- The plan and a failed payment show in get_workspace_context.
CREATE CONSTRAINT TRIGGER touch_workspace_context AFTER INSERT OR UPDATE OR DELETE ON billing_accounts
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION touch_workspace_context();

-- +goose Down
DROP TABLE billing_usage;
DROP TABLE stripe_events;
DROP TABLE billing_checkouts;
DROP TABLE billing_accounts;
