-- +goose Up
-- Who to write to: the lead directory (one per installation, shared by its
-- workspaces), each workspace's target and filters, its leads, their
-- imports and its suppression list.

-- The lead directory. An email is kept normalised (trimmed, lowercase) and
-- once: loading the same address again updates its contact.
CREATE TABLE directory_contacts (
    id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    email          text NOT NULL UNIQUE CHECK (email = lower(btrim(email)) AND email LIKE '_%@_%'),
    email_domain   text NOT NULL,
    email_status   text NOT NULL DEFAULT 'unknown' CHECK (email_status IN ('valid', 'risky', 'invalid', 'unknown')),
    role_address   boolean NOT NULL DEFAULT false, -- info@, sales@…: a mailbox, not a person
    first_name     text NOT NULL DEFAULT '',
    last_name      text NOT NULL DEFAULT '',
    title          text NOT NULL DEFAULT '',
    seniority      text NOT NULL DEFAULT '',
    department     text NOT NULL DEFAULT '',
    company        text NOT NULL DEFAULT '',
    company_domain text NOT NULL DEFAULT '',
    industry       text NOT NULL DEFAULT '',
    company_size   text NOT NULL DEFAULT '', -- a band: 1-10, 11-50, …, 10001+
    country        text NOT NULL DEFAULT '', -- ISO 3166 alpha-2
    time_zone      text NOT NULL DEFAULT '',
    linkedin_url   text,
    source         text NOT NULL, -- 'sample' or the file it was loaded from
    updated_at     timestamptz NOT NULL DEFAULT now()
);

-- The segment filters answered from the index alone: a count with
-- industry, seniority and country filters (and the subtractions, which need
-- the address and its domain) is an index-only scan, not a table scan.
CREATE INDEX directory_contacts_segment ON directory_contacts (industry, seniority, country, company_size, department)
    INCLUDE (email, email_domain, email_status, role_address);

-- Every load of the directory, sample or file: the directory is the sample
-- as long as no file was ever loaded.
CREATE TABLE directory_loads (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    source       text NOT NULL CHECK (source IN ('sample', 'file')),
    name         text NOT NULL,
    rows_read    bigint NOT NULL,
    added        bigint NOT NULL,
    updated      bigint NOT NULL,
    duplicates   bigint NOT NULL,
    rejected     bigint NOT NULL,
    finished_at  timestamptz NOT NULL
);

-- A workspace's target: the ideal customer in the person's words, the
-- same as filters the directory can answer, and which version of the
-- filters the person confirmed. Pool, preview and import use the filters
-- only while confirmed_version = filters_version.
CREATE TABLE audience_targets (
    workspace_id      uuid PRIMARY KEY REFERENCES workspaces (id) ON DELETE CASCADE,
    who               text,
    problem           text,
    exclusions        text,
    described_at      timestamptz,
    filters           jsonb,
    filters_version   integer NOT NULL DEFAULT 0,
    filters_saved_at  timestamptz,
    confirmed_version integer,
    confirmed_at      timestamptz,
    CHECK ((confirmed_version IS NULL) = (confirmed_at IS NULL))
);

-- One import per approval of import_leads. after_contact_id is where the
-- next batch starts: each batch commits its leads and moves it in one
-- transaction, so a resumed import carries on without duplicates.
CREATE TABLE lead_imports (
    workspace_id     uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    approval_id      text NOT NULL,
    requested        integer NOT NULL CHECK (requested > 0),
    imported         integer NOT NULL DEFAULT 0,
    skipped_existing integer NOT NULL DEFAULT 0,
    skipped_suppressed integer NOT NULL DEFAULT 0,
    skipped_invalid  integer NOT NULL DEFAULT 0,
    after_contact_id bigint NOT NULL DEFAULT 0,
    sample           boolean NOT NULL,
    started_at       timestamptz NOT NULL,
    finished_at      timestamptz,
    PRIMARY KEY (workspace_id, approval_id)
);

-- A workspace's leads: a copy of each contact at import, kept even when the
-- directory changes. One lead per normalised address per workspace.
CREATE TABLE leads (
    workspace_id      uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    id                bigint GENERATED ALWAYS AS IDENTITY,
    email             text NOT NULL,
    contact_id        bigint,
    first_name        text NOT NULL,
    last_name         text NOT NULL,
    title             text NOT NULL,
    company           text NOT NULL,
    company_domain    text NOT NULL,
    country           text NOT NULL,
    time_zone         text NOT NULL,
    approval_id       text NOT NULL,
    last_contacted_at timestamptz,
    created_at        timestamptz NOT NULL,
    PRIMARY KEY (workspace_id, id),
    UNIQUE (workspace_id, email)
);
CREATE INDEX leads_contacted ON leads (workspace_id, last_contacted_at) WHERE last_contacted_at IS NOT NULL;
CREATE INDEX leads_created ON leads (workspace_id, created_at);

-- Addresses and whole domains a workspace never writes to again:
-- unsubscribes, hard bounces, complaints and manual blocks.
CREATE TABLE suppressions (
    workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    kind         text NOT NULL CHECK (kind IN ('address', 'domain')),
    value        text NOT NULL CHECK (value = lower(btrim(value)) AND value <> ''),
    reason       text NOT NULL CHECK (reason IN ('unsubscribe', 'hard_bounce', 'complaint', 'manual')),
    created_at   timestamptz NOT NULL,
    PRIMARY KEY (workspace_id, kind, value)
);

-- +goose Down
DROP TABLE suppressions;
DROP TABLE leads;
DROP TABLE lead_imports;
DROP TABLE audience_targets;
DROP TABLE directory_loads;
DROP TABLE directory_contacts;
