-- The audit log (spec 1 §2, §4.2): one entry per administration change, newest first.
-- `category` and `icon` follow from `action` (store/audit.ts); the label is localized on read.
CREATE TABLE audit_logs (
  id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  workspace_id integer NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  -- Null for changes the system made (a plan lapsing, a payment confirmed by the provider).
  user_id      integer REFERENCES users (id) ON DELETE SET NULL,
  action       text NOT NULL,
  category     text NOT NULL,
  icon         text NOT NULL,
  target       text NOT NULL DEFAULT '',
  details      text NOT NULL DEFAULT '',
  ip           text NOT NULL DEFAULT '',
  data         jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX audit_logs_recent_idx ON audit_logs (workspace_id, created_at DESC, id DESC);
CREATE INDEX audit_logs_category_idx ON audit_logs (workspace_id, category, created_at DESC, id DESC);
CREATE INDEX audit_logs_user_idx ON audit_logs (workspace_id, user_id, created_at DESC, id DESC);
