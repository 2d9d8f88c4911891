-- +goose Up
-- People who sign in to the web app. An account belongs to one workspace;
-- an email address is one account across the installation.
CREATE TABLE users (
    id            uuid PRIMARY KEY,
    workspace_id  uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    email         text NOT NULL CHECK (email = lower(email) AND email ~ '^[^@\s]+@[^@\s]+$' AND length(email) <= 254),
    name          text CHECK (length(name) BETWEEN 1 AND 200),
    -- argon2id, in the PHC string format (argon2id, v=19, m, t, p, salt, hash).
    password_hash text NOT NULL CHECK (starts_with(password_hash, chr(36) || 'argon2id' || chr(36))),
    time_zone     text NOT NULL DEFAULT 'UTC',
    created_at    timestamptz NOT NULL DEFAULT now(),
    disabled_at   timestamptz
);
CREATE UNIQUE INDEX users_email_idx ON users (email);
CREATE INDEX users_workspace_idx ON users (workspace_id);

-- Web app sessions. Only a SHA-256 of the cookie's secret is kept, so a
-- leaked table does not sign anyone in.
CREATE TABLE web_sessions (
    token_hash   bytea PRIMARY KEY,
    user_id      uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    created_at   timestamptz NOT NULL,
    last_seen_at timestamptz NOT NULL,
    expires_at   timestamptz NOT NULL
);
CREATE INDEX web_sessions_user_idx ON web_sessions (user_id);
CREATE INDEX web_sessions_expiry_idx ON web_sessions (expires_at);

-- Sign-in attempts not (yet) followed by a success, counted per email and
-- address in PostgreSQL so that the limit holds across replicas.
CREATE TABLE sign_in_attempts (
    id    bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    email text NOT NULL,
    ip    text NOT NULL,
    at    timestamptz NOT NULL
);
CREATE INDEX sign_in_attempts_email_ip_idx ON sign_in_attempts (email, ip, at);
CREATE INDEX sign_in_attempts_ip_idx ON sign_in_attempts (ip, at);

-- +goose Down
DROP TABLE sign_in_attempts;
DROP TABLE web_sessions;
DROP TABLE users;
