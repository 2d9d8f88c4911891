-- +goose Up
-- The sending setup of a workspace: where its emails go out from, how much
-- capacity it needs, its domains and mailboxes. Statuses that follow from
-- time (preparing → ready, warming → warm) are not stored: they are read
-- from ready_at and warmup_started_at against the clock, so they are true
-- whenever they are read.

-- One row per workspace; also the row every change of the setup locks, so
-- concurrent calls of one workspace apply one after the other.
CREATE TABLE sending_setups (
    workspace_id     uuid PRIMARY KEY REFERENCES workspaces (id) ON DELETE CASCADE,
    source           text CHECK (source IN ('already_warmed', 'own_names', 'other')),
    source_text      text,          -- the person's own words, when they answered with them
    source_card      text,          -- the choice card that settled the source
    source_chosen_at timestamptz,
    updated_at       timestamptz NOT NULL DEFAULT now(),
    CHECK ((source IS NULL) = (source_chosen_at IS NULL)),
    CHECK ((source = 'other') = (source_text IS NOT NULL))
);

-- The confirmed sizing: one per workspace, replaced when confirmed again.
CREATE TABLE sending_sizings (
    workspace_id         uuid PRIMARY KEY REFERENCES workspaces (id) ON DELETE CASCADE,
    source               text NOT NULL CHECK (source IN ('already_warmed', 'own_names')),
    daily_volume         integer NOT NULL CHECK (daily_volume > 0),
    lead_count           integer CHECK (lead_count > 0),
    deadline             date,
    emails_per_lead      integer CHECK (emails_per_lead > 0),
    emails_per_mailbox   integer NOT NULL CHECK (emails_per_mailbox > 0),
    mailboxes_per_domain integer NOT NULL CHECK (mailboxes_per_domain > 0),
    mailboxes            integer NOT NULL CHECK (mailboxes > 0),
    domains              integer NOT NULL CHECK (domains > 0),
    currency             text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    monthly_cents        bigint NOT NULL CHECK (monthly_cents >= 0),
    yearly_cents         bigint NOT NULL CHECK (yearly_cents >= 0),
    ready_on             date NOT NULL,
    full_volume_on       date NOT NULL,
    confirmed_at         timestamptz NOT NULL,
    CHECK ((lead_count IS NULL) = (deadline IS NULL))
);

-- Domains the workspace picked (status chosen) or ordered. origin new: a
-- lookalike registered for the workspace; warmed: taken off the warmed shelf.
CREATE TABLE sending_domains (
    workspace_id        uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    domain              text NOT NULL CHECK (domain ~ '^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$'),
    origin              text NOT NULL CHECK (origin IN ('new', 'warmed')),
    status              text NOT NULL CHECK (status IN ('chosen', 'ordered')),
    currency            text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    yearly_cents        bigint NOT NULL CHECK (yearly_cents >= 0),
    mailbox_cents       bigint NOT NULL CHECK (mailbox_cents >= 0), -- per mailbox per month
    shelf_mailboxes     integer CHECK (shelf_mailboxes > 0),        -- warmed: mailboxes it comes with
    registered_on       date,                                       -- warmed: how old it is
    reputation          integer CHECK (reputation BETWEEN 0 AND 100),
    card                text NOT NULL,                              -- the choice card that picked it
    chosen_at           timestamptz NOT NULL,
    position            integer NOT NULL DEFAULT 0,                 -- the order it was picked in
    provider            text,
    ordered_at          timestamptz,
    ready_at            timestamptz,
    PRIMARY KEY (workspace_id, domain),
    CHECK ((status = 'ordered') = (ordered_at IS NOT NULL AND ready_at IS NOT NULL AND provider IS NOT NULL)),
    CHECK ((origin = 'warmed') = (shelf_mailboxes IS NOT NULL))
);
-- A domain is ordered for one workspace only: two workspaces racing for the
-- same warmed domain or the same new name cannot both get it.
CREATE UNIQUE INDEX sending_domains_ordered_idx ON sending_domains (domain) WHERE status = 'ordered';

-- The DNS records an ordered domain must publish to send well.
CREATE TABLE sending_dns_records (
    workspace_id uuid NOT NULL,
    domain       text NOT NULL,
    type         text NOT NULL CHECK (type IN ('MX', 'SPF', 'DKIM', 'DMARC')),
    host         text NOT NULL,
    value        text NOT NULL,
    PRIMARY KEY (workspace_id, domain, type),
    FOREIGN KEY (workspace_id, domain) REFERENCES sending_domains (workspace_id, domain) ON DELETE CASCADE
);

-- Sending addresses: planned (chosen with propose_email), ordered (being
-- prepared, then ready), warming (warmup started).
CREATE TABLE sending_mailboxes (
    workspace_id      uuid NOT NULL,
    address           text NOT NULL CHECK (address ~ '^[a-z0-9][a-z0-9._+-]{0,63}@([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$'),
    domain            text NOT NULL,
    sender_name       text,
    status            text NOT NULL CHECK (status IN ('planned', 'ordered', 'warming')),
    prewarmed         boolean NOT NULL,
    currency          text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    monthly_cents     bigint NOT NULL CHECK (monthly_cents >= 0),
    card              text NOT NULL,
    planned_at        timestamptz NOT NULL,
    position          integer NOT NULL DEFAULT 0, -- its place in the list the person picked
    provider          text,
    ordered_at        timestamptz,
    ready_at          timestamptz,
    warmup_started_at timestamptz,
    PRIMARY KEY (workspace_id, address),
    FOREIGN KEY (workspace_id, domain) REFERENCES sending_domains (workspace_id, domain) ON DELETE CASCADE,
    CHECK ((status = 'planned') = (ordered_at IS NULL)),
    CHECK ((status = 'warming') = (warmup_started_at IS NOT NULL)),
    CHECK (status = 'planned' OR (ready_at IS NOT NULL AND provider IS NOT NULL)),
    CHECK (NOT (prewarmed AND status = 'warming'))
);
CREATE INDEX sending_mailboxes_domain_idx ON sending_mailboxes (workspace_id, domain);

-- +goose Down
DROP TABLE sending_mailboxes;
DROP TABLE sending_dns_records;
DROP TABLE sending_domains;
DROP TABLE sending_sizings;
DROP TABLE sending_setups;
