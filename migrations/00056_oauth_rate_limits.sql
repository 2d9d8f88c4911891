-- +goose Up
-- Requests to the OAuth registration and token endpoints per client
-- address, counted per minute in PostgreSQL so that the limit holds across
-- replicas. Windows past are pruned with the unused clients.
CREATE TABLE oauth_rate_limits (
    endpoint     text NOT NULL,
    client_ip    text NOT NULL,
    window_start timestamptz NOT NULL,
    hits         integer NOT NULL,
    PRIMARY KEY (endpoint, client_ip, window_start)
);
CREATE INDEX oauth_rate_limits_window_idx ON oauth_rate_limits (window_start);

-- +goose Down
DROP TABLE oauth_rate_limits;
