-- The inbox's `q` finds conversations by the words of their messages (issue 47): a GIN index on
-- the messages' words, with the knowledge base's `kb_text` configuration (migration 0075: no
-- stemmer, so Indonesian and English alike, accents folded) and prefix matching in the query
-- (store/textSearch.ts). The expression must stay exactly as store/conversations.ts writes it,
-- or the planner cannot use the index. GIN's pending list (fastupdate, the default) keeps the
-- write path's inserts cheap; VACUUM and autovacuum fold it in.
CREATE INDEX messages_words_idx ON messages USING gin (to_tsvector('kb_text', body));
