-- +goose Up
-- The replies that stop a lead for good (an unsubscribe, a complaint, a
-- hard bounce): list_replies and the workspace context ask, for each
-- interested reply, whether its lead has one. They are a few in a hundred
-- replies; without an index of their own PostgreSQL reads every workspace's
-- replies to find them (a sequential scan, hashed), which on a million
-- replies is the whole table on every page (TestHotQueriesKeepIndexPlans
-- in replies/).
CREATE INDEX mail_replies_stops_idx ON mail_replies (workspace_id, lead_id)
    WHERE classification IN ('unsubscribe', 'complaint') OR bounce = 'hard';

-- +goose Down
DROP INDEX mail_replies_stops_idx;
