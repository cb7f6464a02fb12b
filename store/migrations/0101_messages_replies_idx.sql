-- Agent replies, for the API channels' webhook worker (store/channelApi `pendingReplies`,
-- `advanceCursors`), which every node runs every second: without it both read every message of
-- a channel above its cursor, and an inbound-only stretch keeps the cursor still, so a channel
-- with a webhook and a long inbound history cost PostgreSQL most of a second per run (634 and
-- 326 ms over 800,000 messages; 0.2 ms each with this index). Partial: inbound messages and
-- notes, most of the table, are not in it.
-- The tables this and the next two migrations change (0102, 0103 drop foreign keys), locked at once
-- in the order the message write takes them (the conversation, its messages, their facts, the
-- facts' key check on the workspace), so that a node still appending during an upgrade waits for
-- the migration instead of deadlocking with it. (Another transaction may still meet it in another
-- order; PostgreSQL then aborts one of the two, and a node whose migration was aborted fails to
-- start and migrates when started again.)
LOCK TABLE conversations, messages, report_facts, workspaces IN ACCESS EXCLUSIVE MODE;

CREATE INDEX messages_replies_idx ON messages (id) WHERE direction = 'out' AND type <> 'note';
