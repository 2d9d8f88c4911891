-- +goose Up
-- A CSV of leads a person uploads in the web app: the file as uploaded,
-- how its columns map to a lead's fields, and (once checked with that
-- mapping) its valid rows, ready for import_leads to import through an
-- approval. Not shown by get_workspace_context.
CREATE TABLE lead_uploads (
    workspace_id  uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    id            text NOT NULL CHECK (id ~ '^up_[0-9a-f]{16}$'),
    file_name     text NOT NULL,
    content       bytea NOT NULL,
    header        text[] NOT NULL,
    mapping       text[],  -- per column of the header: the lead field it fills, or '' to skip; null until checked
    rows_read     integer,
    valid_rows    integer,
    duplicate_rows integer,
    invalid_rows  integer,
    invalid_lines jsonb,   -- the first invalid rows: [{"line": 7, "why": "…"}]
    uploaded_at   timestamptz NOT NULL,
    checked_at    timestamptz,
    PRIMARY KEY (workspace_id, id)
);

CREATE TABLE lead_upload_rows (
    workspace_id   uuid NOT NULL,
    upload_id      text NOT NULL,
    line           integer NOT NULL,
    email          text NOT NULL,
    email_domain   text NOT NULL,
    role_address   boolean NOT NULL,
    first_name     text NOT NULL,
    last_name      text NOT NULL,
    title          text NOT NULL,
    company        text NOT NULL,
    company_domain text NOT NULL,
    country        text NOT NULL,
    time_zone      text NOT NULL,
    PRIMARY KEY (workspace_id, upload_id, line),
    FOREIGN KEY (workspace_id, upload_id) REFERENCES lead_uploads (workspace_id, id) ON DELETE CASCADE
);

ALTER TABLE lead_imports ADD COLUMN upload_id text;

-- +goose Down
ALTER TABLE lead_imports DROP COLUMN upload_id;
DROP TABLE lead_upload_rows;
DROP TABLE lead_uploads;
