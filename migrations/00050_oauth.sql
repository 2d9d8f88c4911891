-- +goose Up
-- OAuth 2.1 for /mcp: the Claude app and other remote clients connect
-- through an authorization code grant that a signed-in person consents to.

-- Keys that sign access tokens. Every replica reads them from here, so a
-- token signed by one is verified by all. The newest key not retired signs;
-- retired keys stay published until the tokens they signed have expired.
CREATE TABLE oauth_signing_keys (
    kid         text PRIMARY KEY,
    -- PKCS #8 DER of an ECDSA P-256 private key.
    private_key bytea NOT NULL,
    created_at  timestamptz NOT NULL,
    retired_at  timestamptz
);

-- Clients: registered dynamically (RFC 7591, id generated here) or known
-- by a client ID metadata document (id is the document's https URL, the
-- row a cache of the document).
CREATE TABLE oauth_clients (
    id            text PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 2048),
    kind          text NOT NULL CHECK (kind IN ('dcr', 'cimd')),
    name          text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
    client_uri    text,
    redirect_uris text[] NOT NULL CHECK (cardinality(redirect_uris) BETWEEN 1 AND 20),
    created_at    timestamptz NOT NULL,
    fetched_at    timestamptz,
    last_used_at  timestamptz
);
CREATE INDEX oauth_clients_unused_idx ON oauth_clients (created_at) WHERE kind = 'dcr';

-- An authorization request waiting for the person's consent.
CREATE TABLE oauth_requests (
    id             bytea PRIMARY KEY,
    client_id      text NOT NULL REFERENCES oauth_clients (id) ON DELETE CASCADE,
    redirect_uri   text NOT NULL,
    state          text NOT NULL,
    code_challenge text NOT NULL,
    scope          text NOT NULL,
    resource       text NOT NULL,
    created_at     timestamptz NOT NULL,
    expires_at     timestamptz NOT NULL
);
CREATE INDEX oauth_requests_expiry_idx ON oauth_requests (expires_at);

-- A grant: one person of one workspace let one client act for them. Every
-- token carries its grant, and a token works only while its grant is not
-- revoked, so a disconnect takes effect on every replica at once.
CREATE TABLE oauth_grants (
    id           uuid PRIMARY KEY,
    workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    user_id      uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    client_id    text NOT NULL REFERENCES oauth_clients (id) ON DELETE CASCADE,
    scope        text NOT NULL,
    resource     text NOT NULL,
    created_at   timestamptz NOT NULL,
    last_used_at timestamptz,
    revoked_at   timestamptz,
    revoked_why  text
);
CREATE INDEX oauth_grants_workspace_idx ON oauth_grants (workspace_id, created_at);
CREATE INDEX oauth_grants_client_idx ON oauth_grants (client_id);

-- Authorization codes and refresh tokens, each used once. Only a SHA-256
-- of each is kept. A second use of either revokes the grant (RFC 9700).
CREATE TABLE oauth_codes (
    code_hash      bytea PRIMARY KEY,
    grant_id       uuid NOT NULL REFERENCES oauth_grants (id) ON DELETE CASCADE,
    redirect_uri   text NOT NULL,
    code_challenge text NOT NULL,
    expires_at     timestamptz NOT NULL,
    used_at        timestamptz
);

CREATE TABLE oauth_refresh_tokens (
    token_hash bytea PRIMARY KEY,
    grant_id   uuid NOT NULL REFERENCES oauth_grants (id) ON DELETE CASCADE,
    expires_at timestamptz NOT NULL,
    used_at    timestamptz
);
CREATE INDEX oauth_refresh_tokens_grant_idx ON oauth_refresh_tokens (grant_id);

-- +goose Down
DROP TABLE oauth_refresh_tokens;
DROP TABLE oauth_codes;
DROP TABLE oauth_grants;
DROP TABLE oauth_requests;
DROP TABLE oauth_clients;
DROP TABLE oauth_signing_keys;
