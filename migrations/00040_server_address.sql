-- +goose Up
-- The address people reach the server at (its PUBLIC_URL), written by
-- every server at start. Other processes on the same database (a stdio
-- client, `user create`, `token create`) build their links from it, so
-- that every process hands out the same ones. One row at most.
CREATE TABLE server_address (
    only_row   boolean PRIMARY KEY DEFAULT true CHECK (only_row),
    public_url text NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now()
);

-- +goose Down
DROP TABLE server_address;
