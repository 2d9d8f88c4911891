-- +goose Up
-- Who made each token (the server's command line, its first start) and
-- who revoked it from the web app, for the connected apps page. Tokens
-- made before this say nothing.
ALTER TABLE api_tokens ADD COLUMN created_by text NOT NULL DEFAULT '';
ALTER TABLE api_tokens ADD COLUMN revoked_by text;

-- +goose Down
ALTER TABLE api_tokens DROP COLUMN revoked_by;
ALTER TABLE api_tokens DROP COLUMN created_by;
