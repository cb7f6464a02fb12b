-- Every insert or update of a conversation takes a new number from one sequence, so "has anything in
-- this workspace's inbox changed since?" is one index probe (max(version)) instead of a scan. The
-- list's per-tab counts are memoized against it (store/conversations.ts). A sequence, not a counter
-- row: no hot row for concurrent writers to queue on.
CREATE SEQUENCE conversations_version_seq;
ALTER TABLE conversations ADD COLUMN version bigint NOT NULL DEFAULT nextval('conversations_version_seq');
CREATE INDEX conversations_version_idx ON conversations (workspace_id, version DESC);

CREATE FUNCTION conversations_bump_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.version := nextval('conversations_version_seq');
  RETURN NEW;
END $$;
CREATE TRIGGER conversations_version BEFORE UPDATE ON conversations
  FOR EACH ROW EXECUTE FUNCTION conversations_bump_version();
