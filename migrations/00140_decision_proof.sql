-- +goose Up
-- Decisions a person provably made. Every result that shows an approval or
-- a choice card to the person carries a one-time token (in the result's
-- _meta, which hosts give to the card and never to the model); the card's
-- app-only tool decides or answers only with it. A token is bound to one
-- approval or card of one workspace (not to an MCP session: a host may
-- send the card's calls over another session than the model's), lasts
-- minutes, is used once and is stored as its SHA-256 only.
CREATE TABLE decision_tokens (
    token_hash   bytea PRIMARY KEY CHECK (length(token_hash) = 32),
    workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    -- The approval id (ap_…) or the choice card id it decides.
    subject      text NOT NULL CHECK (subject ~ '^(ap_)?[0-9a-f]{16}$'),
    created_at   timestamptz NOT NULL,
    expires_at   timestamptz NOT NULL,
    used_at      timestamptz,
    CHECK (expires_at > created_at)
);
CREATE INDEX decision_tokens_expiry_idx ON decision_tokens (workspace_id, expires_at);

-- Whether the host declared the MCP Apps extension (io.modelcontextprotocol/ui)
-- at initialize: hosts that did can show the card, and give it the token.
ALTER TABLE mcp_sessions ADD COLUMN apps_declared boolean NOT NULL DEFAULT false;

-- Where each decision came from: decided_via card now means clicked in the
-- card with a valid token; conversation, relayed by the assistant; web, a
-- signed-in person. host_apps is whether the session it came through
-- declared the MCP Apps extension (null: not known, or the web app).
ALTER TABLE approvals ADD COLUMN decided_host_apps boolean;
ALTER TABLE approval_events ADD COLUMN host_apps boolean;

-- Choice answers the same way: a click in the card (with a token) records
-- the answer clicked; the tool's own call then binds it, as clicked when
-- it is that answer, as relayed otherwise.
ALTER TABLE choice_cards
    ADD COLUMN clicked_answer text,
    ADD COLUMN clicked_at timestamptz,
    ADD COLUMN answered_via text CHECK (answered_via IN ('card', 'conversation')),
    ADD COLUMN answered_host_apps boolean,
    ADD CHECK ((clicked_answer IS NULL) = (clicked_at IS NULL));

-- +goose Down
ALTER TABLE choice_cards DROP COLUMN clicked_answer, DROP COLUMN clicked_at, DROP COLUMN answered_via, DROP COLUMN answered_host_apps;
ALTER TABLE approval_events DROP COLUMN host_apps;
ALTER TABLE approvals DROP COLUMN decided_host_apps;
ALTER TABLE mcp_sessions DROP COLUMN apps_declared;
DROP TABLE decision_tokens;
