-- Segments and broadcasts (spec 2 §2, §3, §4.8): saved contact segments (rules compiled to SQL by
-- store/segments.ts), broadcasts with their audience, message variants and pacing settings, and
-- one row per recipient holding its durable progress. Choices: docs/decisions.md, "Broadcasts".

CREATE TABLE segments (
  id              integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  workspace_id    integer NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  name            text NOT NULL,
  description     text NOT NULL DEFAULT '',
  match           text NOT NULL DEFAULT 'all' CHECK (match IN ('all', 'any')),
  rules           jsonb NOT NULL DEFAULT '[]'::jsonb,
  last_count      integer,
  last_counted_at timestamptz,
  created_by      integer REFERENCES users (id) ON DELETE SET NULL,
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX segments_name_key ON segments (workspace_id, lower(name));

CREATE TABLE broadcasts (
  id            integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  workspace_id  integer NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  name          text NOT NULL,
  channel_id    integer REFERENCES channels (id) ON DELETE SET NULL,
  status        text NOT NULL DEFAULT 'draft'
                CHECK (status IN ('draft', 'scheduled', 'running', 'paused', 'completed', 'cancelled')),
  -- {segment_ids, label_ids, contact_ids}: the union of them is the audience.
  audience      jsonb NOT NULL DEFAULT '{}'::jsonb,
  -- [{text, footer}]: the variants, given to recipients in turn.
  messages      jsonb NOT NULL DEFAULT '[]'::jsonb,
  settings      jsonb NOT NULL DEFAULT '{}'::jsonb,
  file_id       bigint REFERENCES files (id) ON DELETE SET NULL,
  -- Why a paused broadcast stopped (`manual`, `number_restricted`, `number_unavailable`).
  pause_reason  text,
  -- What the sender waits for now: {reason, until}; null while it sends or does not run.
  wait          jsonb,
  risk          jsonb,
  risk_ack_at   timestamptz,
  risk_ack_by   integer REFERENCES users (id) ON DELETE SET NULL,
  -- Set when the recipient list was locked (schedule), cleared by unschedule.
  locked_at     timestamptz,
  send_at       timestamptz,
  started_at    timestamptz,
  completed_at  timestamptz,
  cancelled_at  timestamptz,
  created_by    integer REFERENCES users (id) ON DELETE SET NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX broadcasts_list_idx ON broadcasts (workspace_id, id DESC);
-- The sender supervisor's look: what should run now, on every node.
CREATE INDEX broadcasts_due_idx ON broadcasts (status, send_at) WHERE status IN ('scheduled', 'running');

-- One row per contact of the locked audience. `state` is the sender's durable progress:
-- queued → sending (claimed; `handed_at` once given to the number) → sent | failed; skipped rows
-- carry their reason. Delivered, read and replied are read from the message and the conversation.
CREATE TABLE broadcast_recipients (
  id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  broadcast_id    integer NOT NULL REFERENCES broadcasts (id) ON DELETE CASCADE,
  position        integer NOT NULL,
  contact_id      bigint REFERENCES contacts (id) ON DELETE SET NULL,
  name            text NOT NULL DEFAULT '',
  phone           text,
  variant         integer NOT NULL DEFAULT 0,
  -- Bumped by each retry: the message of a retry is a new one (its client id names the attempt).
  attempt         integer NOT NULL DEFAULT 0,
  state           text NOT NULL CHECK (state IN ('queued', 'sending', 'sent', 'failed', 'skipped')),
  reason          text,
  body            text,
  conversation_id bigint,
  message_id      bigint,
  external_id     text,
  handed_at       timestamptz,
  sent_at         timestamptz,
  failed_at       timestamptz,
  UNIQUE (broadcast_id, position)
);
CREATE INDEX broadcast_recipients_next_idx ON broadcast_recipients (broadcast_id, state, position);
CREATE INDEX broadcast_recipients_message_idx ON broadcast_recipients (message_id) WHERE message_id IS NOT NULL;
CREATE INDEX broadcast_recipients_contact_idx ON broadcast_recipients (contact_id) WHERE contact_id IS NOT NULL;

-- Test sends, for their hourly cap per workspace.
CREATE TABLE broadcast_test_sends (
  id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  workspace_id integer NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  broadcast_id integer REFERENCES broadcasts (id) ON DELETE SET NULL,
  phone        text NOT NULL,
  at           timestamptz NOT NULL
);
CREATE INDEX broadcast_test_sends_idx ON broadcast_test_sends (workspace_id, at DESC);
