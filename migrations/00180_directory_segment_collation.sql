-- +goose Up
-- The directory's segment columns compare byte by byte (collation "C"),
-- whatever the database's locale: a directory load sends its rows already
-- in the segment index's order, which the index is then built from
-- without sorting them again, and sorts that are left compare faster.
-- Every value is compared for equality only (filters), which no collation
-- changes.
ALTER TABLE directory_contacts
    ALTER COLUMN industry TYPE text COLLATE "C",
    ALTER COLUMN seniority TYPE text COLLATE "C",
    ALTER COLUMN country TYPE text COLLATE "C",
    ALTER COLUMN company_size TYPE text COLLATE "C",
    ALTER COLUMN department TYPE text COLLATE "C";

-- +goose Down
ALTER TABLE directory_contacts
    ALTER COLUMN industry TYPE text COLLATE "default",
    ALTER COLUMN seniority TYPE text COLLATE "default",
    ALTER COLUMN country TYPE text COLLATE "default",
    ALTER COLUMN company_size TYPE text COLLATE "default",
    ALTER COLUMN department TYPE text COLLATE "default";
