-- +goose Up
-- A feedback-loop report (ARF, RFC 5965) is kept as a reply classified
-- complaint: the recipient marked the email as spam.
ALTER TABLE mail_replies DROP CONSTRAINT mail_replies_classification_check;
ALTER TABLE mail_replies ADD CONSTRAINT mail_replies_classification_check
    CHECK (classification IN ('interested', 'not_now', 'not_interested', 'out_of_office', 'unsubscribe', 'bounce', 'complaint', 'other'));

-- +goose Down
DELETE FROM mail_replies WHERE classification = 'complaint';
ALTER TABLE mail_replies DROP CONSTRAINT mail_replies_classification_check;
ALTER TABLE mail_replies ADD CONSTRAINT mail_replies_classification_check
    CHECK (classification IN ('interested', 'not_now', 'not_interested', 'out_of_office', 'unsubscribe', 'bounce', 'other'));
