-- A report fact's workspace is always that of a row the same statement reads or writes (the
-- conversation, the ticket), so its foreign key only checked that again for every fact: about
-- 5.5 µs of PostgreSQL per inbound message (pgbench, ten facts per statement: 0.255 against
-- 0.199 ms), some 7 % of a storm message's PostgreSQL time. Deleting a workspace still deletes
-- its facts, by a trigger instead of the key's cascade (docs/decisions.md, "The write path").
ALTER TABLE report_facts DROP CONSTRAINT report_facts_workspace_id_fkey;

CREATE FUNCTION report_facts_of_deleted_workspace() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM report_facts WHERE workspace_id = OLD.id;
  RETURN OLD;
END $$;

CREATE TRIGGER workspaces_report_facts AFTER DELETE ON workspaces
  FOR EACH ROW EXECUTE FUNCTION report_facts_of_deleted_workspace();
