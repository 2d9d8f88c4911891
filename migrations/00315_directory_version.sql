-- +goose Up
-- Each replica keeps in memory an index of the lead directory for the pool
-- count (audience/pool_index.go), and must see a load made by another
-- process (`server directory import`, another replica): every statement
-- that writes the directory's contacts moves this version, in its own
-- transaction, so a count that reads the version reads the contacts it
-- stands for. The directory is shared by the workspaces and written by
-- loads only: one row, moved a few times a load.
CREATE TABLE directory_version (
    one     boolean PRIMARY KEY DEFAULT true CHECK (one),
    version bigint NOT NULL
);
INSERT INTO directory_version VALUES (true, 1);

-- +goose StatementBegin
CREATE FUNCTION directory_contacts_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE directory_version SET version = version + 1;
    RETURN NULL;
END
$$;
-- +goose StatementEnd
-- Per statement: a load's COPY or merge is one move, whatever its rows.
CREATE TRIGGER directory_contacts_changed AFTER INSERT OR UPDATE OR DELETE ON directory_contacts
    FOR EACH STATEMENT EXECUTE FUNCTION directory_contacts_changed();
CREATE TRIGGER directory_contacts_truncated AFTER TRUNCATE ON directory_contacts
    FOR EACH STATEMENT EXECUTE FUNCTION directory_contacts_changed();

-- +goose Down
DROP TRIGGER directory_contacts_truncated ON directory_contacts;
DROP TRIGGER directory_contacts_changed ON directory_contacts;
DROP FUNCTION directory_contacts_changed();
DROP TABLE directory_version;
