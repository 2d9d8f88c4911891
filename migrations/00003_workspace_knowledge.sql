-- +goose Up
-- What the person told us to keep in mind about them or their company.
CREATE TABLE memories (
    workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    id           uuid NOT NULL,
    about        text NOT NULL CHECK (about IN ('person', 'company', 'preference')),
    fact         text NOT NULL CHECK (length(fact) BETWEEN 1 AND 1000),
    created_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (workspace_id, id)
);
CREATE INDEX memories_recent_idx ON memories (workspace_id, created_at DESC, id);

-- What the workspace sells and to whom: one current offer per workspace.
CREATE TABLE offers (
    workspace_id   uuid PRIMARY KEY REFERENCES workspaces (id) ON DELETE CASCADE,
    company_name   text NOT NULL,
    company_domain text,
    product        text NOT NULL,
    audience       text NOT NULL,
    value          text NOT NULL,
    proof_points   text[] NOT NULL DEFAULT '{}',
    call_to_action text NOT NULL,
    price_amount   numeric(14, 2),
    price_currency text,
    price_period   text,
    updated_at     timestamptz NOT NULL DEFAULT now(),
    CHECK ((price_amount IS NULL) = (price_currency IS NULL))
);

-- How the workspace wants to sound: one playbook per workspace.
CREATE TABLE playbooks (
    workspace_id uuid PRIMARY KEY REFERENCES workspaces (id) ON DELETE CASCADE,
    tone         text NOT NULL,
    angles       text[] NOT NULL DEFAULT '{}',
    objections   jsonb NOT NULL DEFAULT '[]',
    dos          text[] NOT NULL DEFAULT '{}',
    donts        text[] NOT NULL DEFAULT '{}',
    updated_at   timestamptz NOT NULL DEFAULT now()
);

-- Support tickets, numbered for people to quote.
CREATE SEQUENCE support_ticket_number START 1001;
CREATE TABLE support_tickets (
    workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    id           uuid NOT NULL,
    number       bigint NOT NULL UNIQUE DEFAULT nextval('support_ticket_number'),
    topic        text NOT NULL,
    message      text NOT NULL CHECK (length(message) BETWEEN 1 AND 5000),
    reply_to     text,
    status       text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'answered', 'closed')),
    created_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (workspace_id, id)
);

-- +goose Down
DROP TABLE support_tickets;
DROP SEQUENCE support_ticket_number;
DROP TABLE playbooks;
DROP TABLE offers;
DROP TABLE memories;
