-- +goose Up
-- The leads list searches a workspace's leads by name, address and company
-- (ILIKE '%…%'): a trigram index on the three together finds the
-- candidates, and the search's own conditions check each one. pg_trgm is
-- a trusted extension of PostgreSQL's contrib, shipped with the Debian
-- and official packages; a server built without contrib still migrates,
-- and its search reads the workspace's leads as it did before the index.
-- +goose StatementBegin
DO $$
BEGIN
	IF EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'pg_trgm') THEN
		CREATE EXTENSION IF NOT EXISTS pg_trgm;
		EXECUTE 'CREATE INDEX leads_search ON leads USING gin ((email || '' '' || company || '' '' || first_name || '' '' || last_name) gin_trgm_ops)';
	END IF;
END
$$;
-- +goose StatementEnd

-- +goose Down
DROP INDEX IF EXISTS leads_search;
