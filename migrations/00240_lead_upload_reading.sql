-- +goose Up
-- How an uploaded file was read, detected once at upload so that its
-- preview, its check and its import read it the same way. content now
-- holds the file as UTF-8 text (an .xlsx workbook's chosen sheet as CSV);
-- the uploads kept before were UTF-8 with commas, as the defaults say.
ALTER TABLE lead_uploads
    ADD COLUMN encoding  text NOT NULL DEFAULT 'utf-8'
        CHECK (encoding IN ('utf-8', 'utf-8-bom', 'utf-16le', 'utf-16be', 'windows-1252', 'xlsx')),
    ADD COLUMN separator text NOT NULL DEFAULT ',' CHECK (separator IN (',', ';', E'\t')),
    ADD COLUMN workbook  bytea,   -- an .xlsx file as uploaded: another of its sheets can be read
    ADD COLUMN sheets    text[],  -- its sheets' names, in its order
    ADD COLUMN sheet     integer NOT NULL DEFAULT 0;  -- the sheet read, from 0

-- +goose Down
ALTER TABLE lead_uploads DROP COLUMN encoding, DROP COLUMN separator, DROP COLUMN workbook, DROP COLUMN sheets, DROP COLUMN sheet;
