-- +goose Up
-- A workspace's webhook endpoints: where its events are POSTed, signed
-- with the endpoint's secret (sealed with the server's credentials key;
-- shown once, when the endpoint is added).
CREATE TABLE webhook_endpoints (
    workspace_id    uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    id              text NOT NULL,
    url             text NOT NULL,
    secret_sealed   bytea NOT NULL,
    created_at      timestamptz NOT NULL,
    -- Set when a person disables it, or after a day of failures.
    disabled_at     timestamptz,
    disabled_reason text,
    PRIMARY KEY (workspace_id, id)
);

-- The outbox of events: each written in the transaction that made its fact
-- true, so that no event is lost and none is invented.
CREATE TABLE webhook_events (
    workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    id           text NOT NULL,
    type         text NOT NULL,
    body         jsonb NOT NULL,
    created_at   timestamptz NOT NULL,
    PRIMARY KEY (workspace_id, id)
);

-- One delivery per endpoint and event: what the log shows.
CREATE TABLE webhook_deliveries (
    workspace_id    uuid NOT NULL,
    endpoint_id     text NOT NULL,
    event_id        text NOT NULL,
    status          text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failing', 'failed')),
    attempts        int NOT NULL DEFAULT 0,
    -- Moves with each "send again", so the send's job is a new one.
    sends           int NOT NULL DEFAULT 1,
    first_failed_at timestamptz,
    last_attempt_at timestamptz,
    last_error      text,
    delivered_at    timestamptz,
    PRIMARY KEY (workspace_id, endpoint_id, event_id),
    FOREIGN KEY (workspace_id, endpoint_id) REFERENCES webhook_endpoints ON DELETE CASCADE,
    FOREIGN KEY (workspace_id, event_id) REFERENCES webhook_events ON DELETE CASCADE
);
CREATE INDEX webhook_deliveries_log ON webhook_deliveries (workspace_id, endpoint_id, event_id DESC);
-- The hourly prune of events past their keeping.
CREATE INDEX webhook_events_created ON webhook_events (created_at);

-- +goose Down
DROP TABLE webhook_deliveries;
DROP TABLE webhook_events;
DROP TABLE webhook_endpoints;
