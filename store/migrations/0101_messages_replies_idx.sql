-- Agent replies, for the API channels' webhook worker (store/channelApi `pendingReplies`,
-- `advanceCursors`), which every node runs every second: without it both read every message of
-- a channel above its cursor, and an inbound-only stretch keeps the cursor still, so a channel
-- with a webhook and a long inbound history cost PostgreSQL most of a second per run (634 and
-- 326 ms over 800,000 messages; 0.2 ms each with this index). Partial: inbound messages and
-- notes, most of the table, are not in it.
CREATE INDEX messages_replies_idx ON messages (id) WHERE direction = 'out' AND type <> 'note';
