-- The social reporting service (spec 3). Everything lives in the schema `social`, apart from the
-- messaging service's tables; names are schema-qualified so the file runs under any search_path.

CREATE TABLE social.workspaces (
  id          integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  name        text NOT NULL,
  plan        text NOT NULL DEFAULT 'free' CHECK (plan IN ('free', 'pro')),
  -- Last day (Asia/Jakarta) of a Pro plan; NULL = no end.
  pro_until   date,
  created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE social.api_keys (
  id            integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  workspace_id  integer NOT NULL REFERENCES social.workspaces (id) ON DELETE CASCADE,
  name          text NOT NULL,
  -- The first characters of the key, so an operator can tell keys apart; the key itself is gone.
  prefix        text NOT NULL,
  secret_hash   bytea NOT NULL UNIQUE,
  last_used_at  timestamptz,
  revoked_at    timestamptz,
  created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX api_keys_workspace ON social.api_keys (workspace_id);

-- An account on the platform ("channel" in the API). `external_id` is the platform's id of the
-- account: webhook notifications name it, and it maps the notification to its workspace.
CREATE TABLE social.channels (
  id            integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  workspace_id  integer NOT NULL REFERENCES social.workspaces (id) ON DELETE CASCADE,
  platform      text NOT NULL DEFAULT 'instagram',
  external_id   text NOT NULL,
  username      text NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  UNIQUE (platform, external_id)
);
CREATE INDEX channels_workspace ON social.channels (workspace_id);

CREATE TABLE social.conversations (
  id                 bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  workspace_id       integer NOT NULL REFERENCES social.workspaces (id) ON DELETE CASCADE,
  channel_id         integer NOT NULL REFERENCES social.channels (id) ON DELETE CASCADE,
  -- The source's id (import) or `ig:…` (webhook): the idempotency key.
  external_id        text NOT NULL,
  type               text NOT NULL CHECK (type IN ('reply', 'mention')),
  contact_username   text NOT NULL,
  category           text,
  labels             text[] NOT NULL DEFAULT '{}',
  tags               text[] NOT NULL DEFAULT '{}',
  assignee           text,
  context_text       text,
  context_username   text,
  context_permalink  text,
  created_at         timestamptz NOT NULL,
  -- Derived from messages and status changes by social/state.ts; never written otherwise.
  status             text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'replied', 'solved', 'closed')),
  first_response_at  timestamptz,
  last_message_at    timestamptz NOT NULL,
  solved_at          timestamptz,
  closed_at          timestamptz,
  reopened_count     integer NOT NULL DEFAULT 0,
  UNIQUE (workspace_id, external_id)
);
CREATE INDEX conversations_newest ON social.conversations (workspace_id, created_at DESC, id DESC);
CREATE INDEX conversations_channel ON social.conversations (channel_id, created_at DESC);

CREATE TABLE social.messages (
  id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  workspace_id     integer NOT NULL REFERENCES social.workspaces (id) ON DELETE CASCADE,
  conversation_id  bigint NOT NULL REFERENCES social.conversations (id) ON DELETE CASCADE,
  external_id      text NOT NULL,
  direction        text NOT NULL CHECK (direction IN ('in', 'out')),
  author           text NOT NULL,
  text             text NOT NULL DEFAULT '',
  media_type       text NOT NULL DEFAULT 'text',
  attachments      jsonb NOT NULL DEFAULT '[]',
  status           text NOT NULL CHECK (status IN ('received', 'hidden', 'published', 'pending', 'failed')),
  permalink        text,
  posted_at        timestamptz NOT NULL,
  UNIQUE (workspace_id, external_id)
);
CREATE INDEX messages_conversation ON social.messages (conversation_id, posted_at, id);
CREATE INDEX messages_posted ON social.messages (workspace_id, posted_at);

-- Explicit status changes (an agent solving, closing or reopening). Automatic changes follow
-- from messages and are not stored.
CREATE TABLE social.status_changes (
  id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  workspace_id     integer NOT NULL REFERENCES social.workspaces (id) ON DELETE CASCADE,
  conversation_id  bigint NOT NULL REFERENCES social.conversations (id) ON DELETE CASCADE,
  external_id      text NOT NULL,
  status           text NOT NULL CHECK (status IN ('open', 'replied', 'solved', 'closed')),
  author           text,
  changed_at       timestamptz NOT NULL,
  UNIQUE (workspace_id, external_id)
);
CREATE INDEX status_changes_conversation ON social.status_changes (conversation_id, changed_at);

CREATE TABLE social.tickets (
  id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  workspace_id     integer NOT NULL REFERENCES social.workspaces (id) ON DELETE CASCADE,
  number           integer NOT NULL CHECK (number > 0),
  external_id      text NOT NULL,
  conversation_id  bigint NOT NULL REFERENCES social.conversations (id) ON DELETE CASCADE,
  subject          text NOT NULL,
  description      text NOT NULL DEFAULT '',
  status           text NOT NULL CHECK (status IN ('open', 'in_progress', 'waiting', 'resolved', 'closed')),
  priority         text NOT NULL CHECK (priority IN ('low', 'normal', 'high', 'urgent')),
  assignees        text[] NOT NULL DEFAULT '{}',
  due_at           timestamptz,
  created_at       timestamptz NOT NULL,
  resolved_at      timestamptz,
  closed_at        timestamptz,
  UNIQUE (workspace_id, number),
  UNIQUE (workspace_id, external_id)
);
CREATE INDEX tickets_conversation ON social.tickets (conversation_id);
CREATE INDEX tickets_created ON social.tickets (workspace_id, created_at);

-- A ticket's discussion.
CREATE TABLE social.ticket_comments (
  id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  workspace_id  integer NOT NULL REFERENCES social.workspaces (id) ON DELETE CASCADE,
  ticket_id     bigint NOT NULL REFERENCES social.tickets (id) ON DELETE CASCADE,
  external_id   text NOT NULL,
  author        text NOT NULL,
  body          text NOT NULL,
  created_at    timestamptz NOT NULL,
  UNIQUE (workspace_id, external_id)
);
CREATE INDEX ticket_comments_ticket ON social.ticket_comments (ticket_id, created_at);

-- Internal notes on a conversation, optionally about one of its tickets.
CREATE TABLE social.notes (
  id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  workspace_id     integer NOT NULL REFERENCES social.workspaces (id) ON DELETE CASCADE,
  conversation_id  bigint NOT NULL REFERENCES social.conversations (id) ON DELETE CASCADE,
  external_id      text NOT NULL,
  body             text NOT NULL,
  author           text NOT NULL,
  source           text NOT NULL DEFAULT 'manual',
  ticket_id        bigint REFERENCES social.tickets (id) ON DELETE SET NULL,
  created_at       timestamptz NOT NULL,
  UNIQUE (workspace_id, external_id)
);
CREATE INDEX notes_conversation ON social.notes (conversation_id, created_at);
