-- `conversation.updated` compared every thread of every subscribed channel with what it last
-- announced, on every tick of every node: 223 ms of PostgreSQL per tick with 100,000 threads.
-- Now a conversation's change of status, assignee or team counts up `change_seq` of its thread in
-- the same transaction, and a tick reads only threads counted past what it last looked at
-- (`notified_seq`), through a partial index that holds just those (docs/decisions.md, "API
-- channel"). A count, not a time: whatever commits later is a higher count, however long its
-- transaction took. Every existing thread, and every new one, starts counted once, so the first
-- tick compares it as before (a conversation assigned before its thread row existed is told).
-- Both tables at once, in the order a conversation's change takes them with the trigger
-- (conversations, then its thread), so a node still writing while another upgrades waits rather
-- than deadlocks (as in migration 0101).
LOCK TABLE conversations, channel_api_threads IN ACCESS EXCLUSIVE MODE;

ALTER TABLE channel_api_threads
  ADD COLUMN change_seq bigint NOT NULL DEFAULT 1,
  ADD COLUMN notified_seq bigint NOT NULL DEFAULT 0;

CREATE INDEX channel_api_threads_changed_idx ON channel_api_threads (channel_id)
  WHERE change_seq > notified_seq;

CREATE FUNCTION channel_api_thread_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE channel_api_threads SET change_seq = change_seq + 1 WHERE conversation_id = NEW.id;
  RETURN NULL;
END $$;

-- Only when one of the three announced columns is set and differs: the message write sets
-- `status` on every append (mostly to what it was), which costs the comparison alone.
CREATE TRIGGER conversations_thread_changed AFTER UPDATE OF status, assignee_id, team_id ON conversations
  FOR EACH ROW
  WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.assignee_id IS DISTINCT FROM NEW.assignee_id
        OR OLD.team_id IS DISTINCT FROM NEW.team_id)
  EXECUTE FUNCTION channel_api_thread_changed();
