-- The core the actors own: channels, conversations with their gap-free message sequence, messages,
-- and the workspace quota counters. Later migrations add the domain columns.

CREATE TABLE channels (
  id           integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  workspace_id integer NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  type         text NOT NULL CHECK (type IN ('msgapp', 'email', 'livechat', 'api')),
  name         text NOT NULL,
  status       text NOT NULL DEFAULT 'disconnected',
  settings     jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at   timestamptz NOT NULL DEFAULT now(),
  archived_at  timestamptz
);
CREATE INDEX channels_workspace_idx ON channels (workspace_id);

-- Teams (spec 1 §2): Frontline teams handle conversations, Back Office teams tickets and leads.
CREATE TABLE teams (
  id           integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  workspace_id integer NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  type         text NOT NULL CHECK (type IN ('frontline', 'backoffice')),
  name         text NOT NULL,
  description  text NOT NULL DEFAULT '',
  created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX teams_workspace_idx ON teams (workspace_id);

CREATE TABLE team_members (
  team_id integer NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
  user_id integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  PRIMARY KEY (team_id, user_id)
);
CREATE INDEX team_members_user_idx ON team_members (user_id);

CREATE TABLE conversations (
  id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  workspace_id    integer NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  channel_id      integer REFERENCES channels (id),
  status          text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'solved', 'closed')),
  team_id         integer REFERENCES teams (id),
  assignee_id     integer REFERENCES users (id),
  -- The sequence number of the newest message: incremented in the same transaction that inserts
  -- the message, so sequences are gap-free even if two nodes briefly both think they own it.
  last_seq        integer NOT NULL DEFAULT 0,
  last_message_at timestamptz,
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX conversations_workspace_recent_idx ON conversations (workspace_id, last_message_at DESC NULLS LAST, id DESC);

CREATE TABLE messages (
  id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  workspace_id    integer NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  conversation_id bigint NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
  seq             integer NOT NULL,
  direction       text NOT NULL CHECK (direction IN ('in', 'out')),
  type            text NOT NULL DEFAULT 'text',
  body            text NOT NULL DEFAULT '',
  sender          jsonb NOT NULL DEFAULT '{}'::jsonb,
  status          text NOT NULL DEFAULT 'sent',
  error           text,
  -- Idempotency key of the sender (client id, channel message id): a resend never duplicates.
  client_id       text,
  sent_at         timestamptz,
  created_at      timestamptz NOT NULL DEFAULT now(),
  UNIQUE (conversation_id, seq),
  UNIQUE (conversation_id, client_id)
);

-- Quota usage per workspace, counter and period (a local day or month of the workspace zone).
CREATE TABLE usage_counters (
  workspace_id integer NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  counter      text NOT NULL,
  period       text NOT NULL,
  used         integer NOT NULL DEFAULT 0,
  PRIMARY KEY (workspace_id, counter, period)
);
