-- +goose Up
-- A person corrects what the rules read in a reply. The reply keeps the
-- class it now has in classification (every reader, the engine's stop,
-- the campaign's counts, the lead's story and the lists read that one),
-- and the rules' own verdict in classified_as once someone corrected it;
-- each correction is kept with who made it, from where, and when.
-- A reply gets an id of its own, for pages and tools to name it.
ALTER TABLE mail_replies
    ADD COLUMN id uuid NOT NULL DEFAULT gen_random_uuid(),
    ADD COLUMN classified_as text,
    ADD COLUMN corrected_by text,
    ADD COLUMN corrected_at timestamptz,
    ADD CONSTRAINT mail_replies_id_key UNIQUE (id),
    ADD CONSTRAINT mail_replies_corrected_check
        CHECK ((corrected_at IS NULL) = (corrected_by IS NULL) AND (corrected_at IS NULL) = (classified_as IS NULL));

CREATE TABLE mail_reply_corrections (
    id                bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    workspace_id      uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    reply_id          uuid NOT NULL REFERENCES mail_replies (id) ON DELETE CASCADE,
    from_class        text NOT NULL,
    to_class          text NOT NULL,
    corrected_by      text NOT NULL,
    corrected_by_user uuid,
    via               text NOT NULL CHECK (via IN ('web', 'assistant')),
    corrected_at      timestamptz NOT NULL,
    CHECK (from_class <> to_class)
);
CREATE INDEX mail_reply_corrections_reply_idx ON mail_reply_corrections (workspace_id, reply_id, corrected_at);

-- +goose Down
DROP TABLE mail_reply_corrections;
UPDATE mail_replies SET classification = classified_as WHERE classified_as IS NOT NULL AND classified_as <> 'bounce';
ALTER TABLE mail_replies
    DROP CONSTRAINT mail_replies_corrected_check,
    DROP CONSTRAINT mail_replies_id_key,
    DROP COLUMN corrected_at,
    DROP COLUMN corrected_by,
    DROP COLUMN classified_as,
    DROP COLUMN id;
