-- +goose Up
-- An offer's price is kept as every amount is (vibesell.Money): whole
-- minor units of its currency, cents for USD, yen for JPY. Prices stored
-- as decimals are converted; a zero-decimal currency's amount is rounded
-- to whole units. The context stamp's trigger fires at once, not at the
-- commit: the table cannot be altered while its events are pending.
SET CONSTRAINTS ALL IMMEDIATE;
ALTER TABLE offers ADD COLUMN price_minor bigint;
UPDATE offers SET price_minor = CASE
        WHEN price_currency IN ('BIF', 'CLP', 'DJF', 'GNF', 'JPY', 'KMF', 'KRW', 'MGA',
                                'PYG', 'RWF', 'UGX', 'VND', 'VUV', 'XAF', 'XOF', 'XPF') THEN round(price_amount)
        ELSE round(price_amount * 100)
    END::bigint
    WHERE price_amount IS NOT NULL;
ALTER TABLE offers DROP COLUMN price_amount;
ALTER TABLE offers ADD CONSTRAINT offers_price_check CHECK ((price_minor IS NULL) = (price_currency IS NULL) AND price_minor >= 0);

-- +goose Down
SET CONSTRAINTS ALL IMMEDIATE;
ALTER TABLE offers DROP CONSTRAINT offers_price_check;
ALTER TABLE offers ADD COLUMN price_amount numeric(14, 2);
UPDATE offers SET price_amount = CASE
        WHEN price_currency IN ('BIF', 'CLP', 'DJF', 'GNF', 'JPY', 'KMF', 'KRW', 'MGA',
                                'PYG', 'RWF', 'UGX', 'VND', 'VUV', 'XAF', 'XOF', 'XPF') THEN price_minor
        ELSE price_minor / 100.0
    END
    WHERE price_minor IS NOT NULL;
ALTER TABLE offers DROP COLUMN price_minor;
ALTER TABLE offers ADD CHECK ((price_amount IS NULL) = (price_currency IS NULL));
