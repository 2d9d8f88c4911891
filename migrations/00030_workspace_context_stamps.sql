-- +goose Up
-- A workspace's context stamp: a number that moves in the same transaction
-- as any change to what get_workspace_context shows. A server keeps what it
-- last read of a workspace's context together with the stamp it read
-- first, and serves it again only while the stamp has not moved: one index
-- lookup instead of every read, and still what the database holds, on
-- every replica.
--
-- Every table that get_workspace_context reads carries the trigger
-- (workspace.TestEveryContextTableMovesTheStamp checks the list). A later
-- table that feeds the context attaches it in its own migration:
--
--   CREATE CONSTRAINT TRIGGER touch_workspace_context AFTER INSERT OR UPDATE OR DELETE
--       ON my_table DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION touch_workspace_context();
--
-- No foreign key: a workspace being deleted still fires the triggers of
-- its rows, and an orphan stamp costs nothing.
CREATE TABLE workspace_context_stamps (
    workspace_id uuid PRIMARY KEY,
    stamp        bigint NOT NULL
);

-- A transaction that writes many rows moves a stamp once: the workspaces
-- it has moved are listed in a setting local to the transaction, which
-- ends with it (a transaction id kept in the row would not do: after a
-- dump is restored into another cluster, ids are given out again).
-- +goose StatementBegin
CREATE FUNCTION touch_workspace_context() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    ws    uuid;
    moved text := coalesce(current_setting('vibesell.context_stamps_moved', true), '');
BEGIN
    IF TG_TABLE_NAME = 'workspaces' THEN
        ws := CASE WHEN TG_OP = 'DELETE' THEN OLD.id ELSE NEW.id END;
    ELSE
        ws := CASE WHEN TG_OP = 'DELETE' THEN OLD.workspace_id ELSE NEW.workspace_id END;
    END IF;
    IF strpos(moved, ws::text) > 0 THEN
        RETURN NULL;
    END IF;
    INSERT INTO workspace_context_stamps AS s (workspace_id, stamp) VALUES (ws, 1)
    ON CONFLICT (workspace_id) DO UPDATE SET stamp = s.stamp + 1;
    PERFORM set_config('vibesell.context_stamps_moved', moved || ws::text || ' ', true);
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- Deferred to the commit: a writing transaction takes the stamp's row lock
-- last and holds it only while it commits, so writers of one workspace
-- wait on each other no longer than that.
-- +goose StatementBegin
DO $$
DECLARE
    t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['workspaces', 'offers', 'playbooks', 'memories', 'support_tickets',
                             'sending_setups', 'sending_sizings', 'sending_domains', 'sending_dns_records', 'sending_mailboxes'] LOOP
        EXECUTE format('CREATE CONSTRAINT TRIGGER touch_workspace_context AFTER INSERT OR UPDATE OR DELETE ON %I '
                       'DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION touch_workspace_context()', t);
    END LOOP;
END
$$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
DO $$
DECLARE
    t text;
BEGIN
    FOR t IN SELECT c.relname FROM pg_trigger g JOIN pg_class c ON c.oid = g.tgrelid WHERE g.tgname = 'touch_workspace_context' LOOP
        EXECUTE format('DROP TRIGGER touch_workspace_context ON %I', t);
    END LOOP;
END
$$;
-- +goose StatementEnd
DROP FUNCTION touch_workspace_context();
DROP TABLE workspace_context_stamps;
