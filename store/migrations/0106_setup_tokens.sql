-- The first run's one-time setup link (docs/decisions.md, "First run in the browser"): a node that
-- starts on a database with no workspace and no user stores a new token's digest here and logs the
-- link once. One row at most (`id` is always 1), so a later start replaces it and the older link stops
-- working; claiming the install deletes it in the transaction that creates the first workspace.
CREATE TABLE setup_tokens (
  id         smallint PRIMARY KEY DEFAULT 1 CHECK (id = 1),
  token_hash bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
