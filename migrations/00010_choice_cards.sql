-- +goose Up
-- Choice cards: questions a tool put to the person, and their answers. An
-- answer binds to one exact card: same workspace, same tool, same canonical
-- arguments and the same question (question_hash covers the question, the
-- choice ids and labels, and whether free text is allowed). Binding is one
-- UPDATE guarded by all of these, so concurrent answers and several replicas
-- agree on exactly one.
CREATE TABLE choice_cards (
    workspace_id     uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    id               text NOT NULL CHECK (id ~ '^[0-9a-f]{16}$'),
    tool             text NOT NULL CHECK (tool ~ '^[a-z][a-z0-9_]{0,63}$'),
    -- The tool's arguments without answers, as canonical JSON (sorted keys,
    -- normalised numbers), and the SHA-256 of that text, hex.
    arguments        jsonb NOT NULL,
    arguments_hash   text NOT NULL CHECK (arguments_hash ~ '^[0-9a-f]{64}$'),
    -- Which question of the tool's flow this is (one flow may ask several).
    topic            text NOT NULL CHECK (length(topic) BETWEEN 1 AND 100),
    question_hash    text NOT NULL CHECK (question_hash ~ '^[0-9a-f]{64}$'),
    question         text NOT NULL,
    reason           text NOT NULL,
    choices          jsonb NOT NULL CHECK (jsonb_typeof(choices) = 'array'),
    allow_free_text  boolean NOT NULL,
    status           text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'answered', 'superseded')),
    answer           text,
    answer_is_choice boolean,
    answered_at      timestamptz,
    superseded_at    timestamptz,
    created_at       timestamptz NOT NULL,
    PRIMARY KEY (workspace_id, id),
    CHECK ((status = 'answered') = (answer IS NOT NULL AND answered_at IS NOT NULL AND answer_is_choice IS NOT NULL)),
    CHECK ((status = 'superseded') = (superseded_at IS NOT NULL)),
    -- An answer that is not a choice id stands only where free text is allowed.
    CHECK (answer_is_choice OR allow_free_text OR answer IS NULL)
);

-- At most one open card per question of a call: concurrent calls with the
-- same arguments get the same card, not one each.
CREATE UNIQUE INDEX choice_cards_open_idx
    ON choice_cards (workspace_id, tool, arguments_hash, topic) WHERE status = 'open';

-- +goose Down
DROP TABLE choice_cards;
