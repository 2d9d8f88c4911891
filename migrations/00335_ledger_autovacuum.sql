-- +goose Up
-- The send ledger and the replies are the installation's busiest tables:
-- every email is an insert (the claim) and two updates (the mark, the
-- settle), and none of those updates is HOT (the status moves in and out
-- of the partial index of unsettled steps). PostgreSQL's default vacuums a
-- table once a fifth of it is dead: on a ledger of ten million rows, two
-- million dead rows, left in the indexes the claim and the due steps read.
-- Vacuumed at 1% (and at least every 2,000 dead rows), a day of a million
-- emails leaves at most some tens of thousands of dead rows between two
-- runs (see the README's figures, BenchmarkBusyDay). Inserts alone also
-- start a vacuum (the visibility map, for the index-only scans of the
-- metrics) and statistics are refreshed at 2%, so the planner sees a
-- growing campaign.
ALTER TABLE mail_sends SET (autovacuum_vacuum_scale_factor = 0.01, autovacuum_vacuum_threshold = 2000,
	autovacuum_vacuum_insert_scale_factor = 0.02, autovacuum_analyze_scale_factor = 0.02);
ALTER TABLE mail_replies SET (autovacuum_vacuum_scale_factor = 0.02, autovacuum_vacuum_threshold = 1000,
	autovacuum_vacuum_insert_scale_factor = 0.05, autovacuum_analyze_scale_factor = 0.02);

-- +goose Down
ALTER TABLE mail_replies RESET (autovacuum_vacuum_scale_factor, autovacuum_vacuum_threshold,
	autovacuum_vacuum_insert_scale_factor, autovacuum_analyze_scale_factor);
ALTER TABLE mail_sends RESET (autovacuum_vacuum_scale_factor, autovacuum_vacuum_threshold,
	autovacuum_vacuum_insert_scale_factor, autovacuum_analyze_scale_factor);
