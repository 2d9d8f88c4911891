-- +goose Up
-- Existing mailboxes a person connected in the web app, with the servers
-- they send (SMTP submission) and read (IMAP) through. The passwords are
-- sealed with AES-256-GCM under a key derived from MAIL_SECRET_KEY (never
-- stored here), bound to the workspace and the address; a connection is
-- saved only after signing in to both servers worked.
CREATE TABLE mail_connected_mailboxes (
    workspace_id  uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    address       text NOT NULL CHECK (address = lower(address) AND address LIKE '%_@_%'),
    sender_name   text NOT NULL,
    smtp_host     text NOT NULL,
    smtp_port     integer NOT NULL CHECK (smtp_port BETWEEN 1 AND 65535),
    smtp_security text NOT NULL CHECK (smtp_security IN ('starttls', 'tls')),
    smtp_username text NOT NULL,
    imap_host     text NOT NULL,
    imap_port     integer NOT NULL CHECK (imap_port BETWEEN 1 AND 65535),
    imap_security text NOT NULL CHECK (imap_security IN ('starttls', 'tls')),
    imap_username text NOT NULL,
    passwords     bytea NOT NULL, -- sealed: the SMTP and IMAP passwords
    checked_at    timestamptz NOT NULL,
    connected_at  timestamptz NOT NULL,
    PRIMARY KEY (workspace_id, address)
);

-- +goose Down
DROP TABLE mail_connected_mailboxes;
