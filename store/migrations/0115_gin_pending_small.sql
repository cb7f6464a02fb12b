-- The two GIN indexes on the message write path keep a small pending list (64 kB, the least
-- PostgreSQL allows, against 4 MB by default). GIN's fast update queues new entries in that list,
-- and the backend whose insert finds it full moves all of it into the index, inside its own
-- statement: that backend is the node's one group writer (store/appendWriter), so every
-- conversation's appends waited. A 4 MB list took about 175 ms to move in the storm benchmark
-- (every 100,000 or so messages), which was its slowest second; 64 kB moves in a few
-- milliseconds, for the same CPU per message (docs/decisions.md, "The write path").
-- `conversations_subject_search_idx` is there too: a conversation with a subject (e-mail) gets a
-- new index entry at every message, since its row update is never HOT.
ALTER INDEX messages_words_idx SET (gin_pending_list_limit = 64);
ALTER INDEX conversations_subject_search_idx SET (gin_pending_list_limit = 64);
