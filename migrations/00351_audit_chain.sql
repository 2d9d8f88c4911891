-- +goose Up
-- The workspace's audit chain: every approval event (each row of
-- approval_events as it is written, each repeat counted on one, and each
-- version of what an approval shows, approval_shown) appended as one
-- record whose hash covers the record before it. Changing, removing or
-- reordering a record breaks the chain from there on, which
-- `server audit verify` names.
--
-- hash = SHA-256 of six netstrings, "<byte length>:<bytes>,", of
-- prev_hash (hex), seq (decimal), at (UTC, 2006-01-02T15:04:05.000000Z),
-- kind, subject and body's jsonb text: package audit computes the same
-- (audit.Hash), and verifies with it. The first record's prev_hash is 64
-- zeros.
CREATE TABLE audit_heads (
    workspace_id uuid PRIMARY KEY REFERENCES workspaces (id) ON DELETE CASCADE,
    seq          bigint NOT NULL,
    hash         text NOT NULL
);

CREATE TABLE audit_events (
    workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    seq          bigint NOT NULL CHECK (seq >= 1),
    at           timestamptz NOT NULL,
    kind         text NOT NULL,
    subject      text NOT NULL,
    body         jsonb NOT NULL,
    prev_hash    text NOT NULL,
    hash         text NOT NULL,
    PRIMARY KEY (workspace_id, seq)
);
CREATE INDEX audit_events_at_idx ON audit_events (workspace_id, at);

-- audit_append appends one record to the workspace's chain. The head's
-- row lock serializes appends per workspace until the transaction ends,
-- so seq has no gaps and no two records share a predecessor.
-- +goose StatementBegin
CREATE FUNCTION audit_append(ws uuid, at_ timestamptz, kind_ text, subject_ text, body_ jsonb) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    head_seq  bigint;
    head_hash text;
    at_text   text := to_char(at_ AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"');
    msg       text;
BEGIN
    INSERT INTO audit_heads (workspace_id, seq, hash) VALUES (ws, 0, repeat('0', 64)) ON CONFLICT DO NOTHING;
    SELECT seq, hash INTO head_seq, head_hash FROM audit_heads WHERE workspace_id = ws FOR UPDATE;
    head_seq := head_seq + 1;
    msg := octet_length(head_hash) || ':' || head_hash || ','
        || octet_length(head_seq::text) || ':' || head_seq::text || ','
        || octet_length(at_text) || ':' || at_text || ','
        || octet_length(kind_) || ':' || kind_ || ','
        || octet_length(subject_) || ':' || subject_ || ','
        || octet_length(body_::text) || ':' || body_::text || ',';
    INSERT INTO audit_events (workspace_id, seq, at, kind, subject, body, prev_hash, hash)
        VALUES (ws, head_seq, date_trunc('microseconds', at_), kind_, subject_, body_, head_hash,
            encode(sha256(convert_to(msg, 'UTF8')), 'hex'));
    UPDATE audit_heads SET seq = head_seq, hash = encode(sha256(convert_to(msg, 'UTF8')), 'hex') WHERE workspace_id = ws;
END $$;
-- +goose StatementEnd

-- An approval event is chained at commit (a deferred trigger), so the
-- head is locked last in the transaction that wrote the event: after the
-- approval's own row, as every approvals transaction takes its locks,
-- and for as short a time as possible. Its body is the whole row but the
-- columns the record carries itself, so a column added to
-- approval_events is chained without changing this.
-- +goose StatementBegin
CREATE FUNCTION audit_approval_event() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM audit_append(NEW.workspace_id,
        CASE WHEN TG_OP = 'UPDATE' THEN coalesce(NEW.last_at, NEW.at) ELSE NEW.at END,
        NEW.event, NEW.approval_id,
        to_jsonb(NEW) - 'workspace_id' - 'approval_id' - 'seq' - 'at' - 'event');
    RETURN NULL;
END $$;
-- +goose StatementEnd

CREATE CONSTRAINT TRIGGER approval_events_audit AFTER INSERT ON approval_events
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION audit_approval_event();
-- A refused attempt counted on an earlier row is a record of its own.
CREATE CONSTRAINT TRIGGER approval_events_repeat_audit AFTER UPDATE ON approval_events
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
    WHEN (NEW.repeats IS DISTINCT FROM OLD.repeats) EXECUTE FUNCTION audit_approval_event();

-- +goose StatementBegin
CREATE FUNCTION audit_approval_shown() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM audit_append(NEW.workspace_id, NEW.at, 'shown', NEW.approval_id,
        jsonb_build_object('hash', NEW.hash, 'document', NEW.document));
    RETURN NULL;
END $$;
-- +goose StatementEnd

CREATE CONSTRAINT TRIGGER approval_shown_audit AFTER INSERT ON approval_shown
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION audit_approval_shown();

-- Nothing changes a record once written, and nothing removes one while
-- its workspace exists: a change made anyway (by someone who turns the
-- triggers off) is what `server audit verify` finds.
-- +goose StatementBegin
CREATE FUNCTION audit_events_frozen() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' AND NOT EXISTS (SELECT 1 FROM workspaces WHERE id = OLD.workspace_id) THEN
        RETURN OLD;
    END IF;
    RAISE EXCEPTION 'audit records are never changed or removed';
END $$;
-- +goose StatementEnd

CREATE TRIGGER audit_events_frozen BEFORE UPDATE OR DELETE ON audit_events
    FOR EACH ROW EXECUTE FUNCTION audit_events_frozen();

-- Approval events written before the chain existed are chained now, in
-- their order, so a workspace's chain starts with its first approval.
-- +goose StatementBegin
DO $$
DECLARE
    e approval_events;
BEGIN
    FOR e IN SELECT * FROM approval_events ORDER BY workspace_id, seq LOOP
        PERFORM audit_append(e.workspace_id, e.at, e.event, e.approval_id,
            to_jsonb(e) - 'workspace_id' - 'approval_id' - 'seq' - 'at' - 'event');
    END LOOP;
END $$;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER approval_shown_audit ON approval_shown;
DROP TRIGGER approval_events_repeat_audit ON approval_events;
DROP TRIGGER approval_events_audit ON approval_events;
DROP FUNCTION audit_approval_shown();
DROP FUNCTION audit_approval_event();
DROP TABLE audit_events;
DROP FUNCTION audit_events_frozen();
DROP FUNCTION audit_append(uuid, timestamptz, text, text, jsonb);
DROP TABLE audit_heads;
