-- +goose Up
-- An approval's impact keeps its costs as every amount is kept
-- (vibesell.Money): {"minor": 1500, "currency": "USD"}. Impacts stored
-- before, with decimals ({"amount": "15", "currency": "USD"}), would read
-- as nothing to pay; they are converted. A zero-decimal currency's amount
-- is in whole units.
UPDATE approvals SET impact = jsonb_set(impact, '{costOnce}', jsonb_build_object(
        'minor', round((impact->'costOnce'->>'amount')::numeric *
            CASE WHEN impact->'costOnce'->>'currency' IN ('BIF', 'CLP', 'DJF', 'GNF', 'JPY', 'KMF', 'KRW', 'MGA', 'PYG', 'RWF', 'UGX', 'VND', 'VUV', 'XAF', 'XOF', 'XPF') THEN 1 ELSE 100 END)::bigint,
        'currency', impact->'costOnce'->>'currency'))
    WHERE impact->'costOnce' ? 'amount';
UPDATE approvals SET impact = jsonb_set(impact, '{costMonthly}', jsonb_build_object(
        'minor', round((impact->'costMonthly'->>'amount')::numeric *
            CASE WHEN impact->'costMonthly'->>'currency' IN ('BIF', 'CLP', 'DJF', 'GNF', 'JPY', 'KMF', 'KRW', 'MGA', 'PYG', 'RWF', 'UGX', 'VND', 'VUV', 'XAF', 'XOF', 'XPF') THEN 1 ELSE 100 END)::bigint,
        'currency', impact->'costMonthly'->>'currency'))
    WHERE impact->'costMonthly' ? 'amount';

-- +goose Down
UPDATE approvals SET impact = jsonb_set(impact, '{costOnce}', jsonb_build_object(
        'amount', ((impact->'costOnce'->>'minor')::numeric /
            CASE WHEN impact->'costOnce'->>'currency' IN ('BIF', 'CLP', 'DJF', 'GNF', 'JPY', 'KMF', 'KRW', 'MGA', 'PYG', 'RWF', 'UGX', 'VND', 'VUV', 'XAF', 'XOF', 'XPF') THEN 1 ELSE 100 END)::text,
        'currency', impact->'costOnce'->>'currency'))
    WHERE impact->'costOnce' ? 'minor';
UPDATE approvals SET impact = jsonb_set(impact, '{costMonthly}', jsonb_build_object(
        'amount', ((impact->'costMonthly'->>'minor')::numeric /
            CASE WHEN impact->'costMonthly'->>'currency' IN ('BIF', 'CLP', 'DJF', 'GNF', 'JPY', 'KMF', 'KRW', 'MGA', 'PYG', 'RWF', 'UGX', 'VND', 'VUV', 'XAF', 'XOF', 'XPF') THEN 1 ELSE 100 END)::text,
        'currency', impact->'costMonthly'->>'currency'))
    WHERE impact->'costMonthly' ? 'minor';
