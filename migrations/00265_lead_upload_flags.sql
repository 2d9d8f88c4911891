-- +goose Up
-- The list check's flag of an uploaded row (audience.Flag*): a row that can
-- be imported but that the person may choose to skip. NULL: not flagged.
ALTER TABLE lead_upload_rows ADD COLUMN flag text
    CHECK (flag IN ('no_mail_server', 'disposable', 'role'));

-- +goose Down
ALTER TABLE lead_upload_rows DROP COLUMN flag;
