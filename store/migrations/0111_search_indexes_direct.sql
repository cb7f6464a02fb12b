-- Contacts' trigram indexes take each insert straight into the index (issue 47). With GIN's pending
-- list (fastupdate, the default) a bulk of new contacts (an import, a seeded benchmark) sat in an
-- unsorted list that every search read through until autovacuum folded it in: the planner then
-- scanned all 100,000 contacts for `q` (80–100 ms) instead of probing the index (0.2–3 ms).
-- Contacts are written far less often than they are searched. Messages keep the pending list: the
-- write path inserts thousands a second.
ALTER INDEX contacts_search_idx SET (fastupdate = off);
ALTER INDEX contacts_company_search_idx SET (fastupdate = off);
