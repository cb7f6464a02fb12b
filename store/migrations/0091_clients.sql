-- Lead imports (spec 2 §4.7, issue 24): the identity of an imported row, so importing the same
-- file again finds the leads it made instead of making them twice. The key is a digest of the
-- row's workflow, title, contact phone and e-mail, and client (docs/decisions.md, "Clients,
-- dashboard, imports, exports, bulk actions").
ALTER TABLE leads ADD COLUMN import_key text;
CREATE UNIQUE INDEX leads_import_key ON leads (workspace_id, import_key) WHERE import_key IS NOT NULL;
