-- `conversation.updated` compared every thread of every subscribed channel with what it last
-- announced, on every tick of every node: 223 ms of PostgreSQL per tick with 100,000 threads.
-- Now a conversation's change of status, assignee or team counts up `change_seq` of its thread in
-- the same transaction, and a tick reads only threads counted past what it last looked at
-- (`notified_seq`), through a partial index that holds just those (docs/decisions.md, "API
-- channel"). A count, not a time: whatever commits later is a higher count, however long its
-- transaction took.

-- The thread table first, then conversations' (only what CREATE TRIGGER needs, which lets reads
-- through): a node still running the old code takes them in that order when it creates a thread
-- or compares them, so it waits for the upgrade rather than deadlocking with it. When 0101 runs in
-- the same upgrade (all pending migrations run in one transaction), it holds conversations
-- already, and the order is 0101's. (A conversation's deletion takes them the other way;
-- PostgreSQL then aborts one of the two, and a node whose migration was aborted fails to start
-- and migrates when started again.)
LOCK TABLE channel_api_threads IN ACCESS EXCLUSIVE MODE;
LOCK TABLE conversations IN SHARE ROW EXCLUSIVE MODE;

-- A new thread is not counted: it is made with its conversation, in one transaction, in the state
-- `notified` starts with (open, nobody, no team); any change after is an UPDATE the trigger sees.
ALTER TABLE channel_api_threads
  ADD COLUMN change_seq bigint NOT NULL DEFAULT 0,
  ADD COLUMN notified_seq bigint NOT NULL DEFAULT 0;

-- What the comparison would have found now: counted once, so the first tick tells it.
UPDATE channel_api_threads t SET change_seq = 1
FROM conversations cv
WHERE cv.id = t.conversation_id
  AND t.notified IS DISTINCT FROM
      jsonb_build_object('status', cv.status, 'assignee_id', cv.assignee_id, 'team_id', cv.team_id);

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
