-- The inbox's tab counts, kept as conversations change instead of counted per request (a count
-- scanned 100,000 conversations: ~60 ms of PostgreSQL, again after every change of the inbox).
-- Conversations are grouped by what the counts' filters and visibility rule read (workspace,
-- channel, kind, team, assignee, category) and by tab (status, reply state).
--
-- No hot row: a change appends to `conversation_count_deltas` (a row trigger, only when a grouped
-- column changed); a fold (store/conversationCounts.ts, a background job) moves the deltas into
-- `conversation_counts` now and then; a read sums both. No foreign keys: a workspace's deletion
-- cascades to its conversations, whose deltas must still be writable, and they fold to zero.
CREATE TABLE conversation_counts (
  workspace_id integer NOT NULL,
  channel_id integer,
  kind text NOT NULL,
  team_id integer,
  assignee_id integer,
  category_id integer,
  status text NOT NULL,
  reply_state text NOT NULL,
  n bigint NOT NULL,
  UNIQUE NULLS NOT DISTINCT (workspace_id, channel_id, kind, team_id, assignee_id, category_id, status, reply_state)
);

-- The same columns, `n` being +1 or -1 here; no unique constraint (LIKE copies none).
CREATE TABLE conversation_count_deltas (LIKE conversation_counts);
CREATE INDEX conversation_count_deltas_workspace_idx ON conversation_count_deltas (workspace_id);

CREATE FUNCTION conversation_counts_track() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    INSERT INTO conversation_count_deltas VALUES (OLD.workspace_id, OLD.channel_id, OLD.kind, OLD.team_id,
      OLD.assignee_id, OLD.category_id, OLD.status, OLD.reply_state, -1);
  END IF;
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO conversation_count_deltas VALUES (NEW.workspace_id, NEW.channel_id, NEW.kind, NEW.team_id,
      NEW.assignee_id, NEW.category_id, NEW.status, NEW.reply_state, 1);
  END IF;
  RETURN NULL;
END $$;

-- Written before the counts are taken: the trigger's lock on conversations holds writers back
-- until this migration commits, so no change falls between the two.
CREATE TRIGGER conversation_counts_insert AFTER INSERT ON conversations
  FOR EACH ROW EXECUTE FUNCTION conversation_counts_track();
CREATE TRIGGER conversation_counts_delete AFTER DELETE ON conversations
  FOR EACH ROW EXECUTE FUNCTION conversation_counts_track();
-- Most updates (a message's preview and times) change no grouped column: the WHEN test, made
-- without calling the function, keeps them free of it.
CREATE TRIGGER conversation_counts_update AFTER UPDATE ON conversations
  FOR EACH ROW WHEN (
    OLD.workspace_id IS DISTINCT FROM NEW.workspace_id OR OLD.channel_id IS DISTINCT FROM NEW.channel_id
    OR OLD.kind IS DISTINCT FROM NEW.kind OR OLD.team_id IS DISTINCT FROM NEW.team_id
    OR OLD.assignee_id IS DISTINCT FROM NEW.assignee_id OR OLD.category_id IS DISTINCT FROM NEW.category_id
    OR OLD.status IS DISTINCT FROM NEW.status OR OLD.reply_state IS DISTINCT FROM NEW.reply_state)
  EXECUTE FUNCTION conversation_counts_track();

INSERT INTO conversation_counts
  SELECT workspace_id, channel_id, kind, team_id, assignee_id, category_id, status, reply_state, count(*)
  FROM conversations
  GROUP BY workspace_id, channel_id, kind, team_id, assignee_id, category_id, status, reply_state;
