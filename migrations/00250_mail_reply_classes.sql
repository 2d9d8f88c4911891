-- +goose Up
-- Replies are read for more than interest: a referral to someone else, an
-- objection that can be answered, the wrong person, a lead who left the
-- company, an automatic reply that is not an out-of-office.
ALTER TABLE mail_replies DROP CONSTRAINT mail_replies_classification_check;
ALTER TABLE mail_replies ADD CONSTRAINT mail_replies_classification_check
    CHECK (classification IN ('interested', 'referral', 'not_now', 'objection', 'not_interested', 'wrong_person', 'left_company',
                              'out_of_office', 'auto_reply', 'unsubscribe', 'bounce', 'complaint', 'other'));

-- +goose Down
UPDATE mail_replies SET classification = 'other' WHERE classification IN ('referral', 'objection', 'wrong_person', 'left_company', 'auto_reply');
ALTER TABLE mail_replies DROP CONSTRAINT mail_replies_classification_check;
ALTER TABLE mail_replies ADD CONSTRAINT mail_replies_classification_check
    CHECK (classification IN ('interested', 'not_now', 'not_interested', 'out_of_office', 'unsubscribe', 'bounce', 'complaint', 'other'));
