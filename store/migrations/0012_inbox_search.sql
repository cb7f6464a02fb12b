-- Inbox search (`q`): substring matches on contact name, phone and e-mail and on the subject, served
-- by trigram indexes instead of a scan of every conversation (see store/conversations.ts).
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE INDEX contacts_search_idx ON contacts USING gin (name gin_trgm_ops, phone gin_trgm_ops, email gin_trgm_ops);
CREATE INDEX conversations_subject_search_idx ON conversations USING gin (subject gin_trgm_ops) WHERE subject IS NOT NULL;
