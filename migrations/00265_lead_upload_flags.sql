-- +goose Up
-- The list check's flag of an uploaded row (audience.Flag*): a row that can
-- be imported but that the person may choose to skip. NULL: not flagged.
ALTER TABLE lead_upload_rows ADD COLUMN flag text
    CHECK (flag IN ('no_mail_server', 'disposable', 'role'));
-- How many of an upload's domains the DNS did not answer for in time at its
-- check: their rows are not flagged for their mail servers.
ALTER TABLE lead_uploads ADD COLUMN unanswered_domains int;

-- +goose Down
ALTER TABLE lead_upload_rows DROP COLUMN flag;
ALTER TABLE lead_uploads DROP COLUMN unanswered_domains;
