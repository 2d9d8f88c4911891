-- +goose Up
-- The leads list searches a workspace's leads by name, address and company
-- (ILIKE '%…%'): a trigram index on the three together finds the
-- candidates, and the search's own conditions check each one. pg_trgm is
-- a trusted extension of PostgreSQL's contrib, shipped with the
-- PostgreSQL packages and the embedded server's binaries.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE INDEX leads_search ON leads USING gin ((email || ' ' || company || ' ' || first_name || ' ' || last_name) gin_trgm_ops);

-- +goose Down
DROP INDEX leads_search;
