-- Notifications for one user in one workspace (spec 1 §4.1: the 20 latest and an unread count).
CREATE TABLE notifications (
  id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  workspace_id integer NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  user_id      integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  kind         text NOT NULL,
  title        text NOT NULL,
  body         text NOT NULL DEFAULT '',
  link         text,
  data         jsonb NOT NULL DEFAULT '{}'::jsonb,
  read_at      timestamptz,
  created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX notifications_user_recent_idx ON notifications (user_id, workspace_id, id DESC);
CREATE INDEX notifications_unread_idx ON notifications (user_id, workspace_id) WHERE read_at IS NULL;
