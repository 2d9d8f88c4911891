-- +goose Up
-- Browsers that signed in to an account before. Behind a proxy that hides
-- the clients' addresses, the per-address limit on failed sign-ins counts
-- everyone as one address; a browser known for the email is then counted
-- on its own, so that someone else's failures do not lock its person out.
-- Only a SHA-256 of the token the browser keeps is stored.
CREATE TABLE sign_in_devices (
    token_hash bytea PRIMARY KEY,
    email      text NOT NULL,
    created_at timestamptz NOT NULL
);
CREATE INDEX sign_in_devices_created_idx ON sign_in_devices (created_at);

-- +goose Down
DROP TABLE sign_in_devices;
