-- The shared inbox (spec 2 §2, §4.1, §4.2): private files, a minimal contact record with labels,
-- messaging-app groups, conversation categories, the conversation and message columns the inbox
-- needs, reply templates and messaging-app label rules. Index choices: docs/decisions-inbox.md.

-- Private files (message media, e-mail attachments, template attachments, avatars). The bytes
-- live behind the file storage port (engine/storage); this row is what the API knows of them.
CREATE TABLE files (
  id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  workspace_id integer NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  storage_key  text NOT NULL UNIQUE,
  name         text NOT NULL,
  mime         text NOT NULL,
  size         bigint NOT NULL CHECK (size >= 0),
  created_by   integer REFERENCES users (id) ON DELETE SET NULL,
  created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX files_workspace_idx ON files (workspace_id);

-- The minimal contact record conversations point at; the contacts issue adds the rest.
CREATE TABLE contacts (
  id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  workspace_id   integer NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  name           text NOT NULL DEFAULT '',
  phone          text,
  email          text,
  avatar_file_id bigint REFERENCES files (id) ON DELETE SET NULL,
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX contacts_workspace_phone_idx ON contacts (workspace_id, phone) WHERE phone IS NOT NULL;
CREATE INDEX contacts_workspace_email_idx ON contacts (workspace_id, lower(email)) WHERE email IS NOT NULL;

-- Contact labels (the `label_id` conversation filter and the `contact_label` label-rule action).
CREATE TABLE labels (
  id           integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  workspace_id integer NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  name         text NOT NULL,
  color        text NOT NULL DEFAULT '',
  position     integer NOT NULL DEFAULT 0,
  created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX labels_name_key ON labels (workspace_id, lower(name));

CREATE TABLE contact_labels (
  contact_id bigint NOT NULL REFERENCES contacts (id) ON DELETE CASCADE,
  label_id   integer NOT NULL REFERENCES labels (id) ON DELETE CASCADE,
  PRIMARY KEY (contact_id, label_id)
);
CREATE INDEX contact_labels_label_idx ON contact_labels (label_id, contact_id);

-- Messaging-app groups (conversations of kind `group`).
CREATE TABLE groups (
  id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  workspace_id   integer NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  channel_id     integer REFERENCES channels (id) ON DELETE SET NULL,
  name           text NOT NULL DEFAULT '',
  external_id    text,
  members        jsonb NOT NULL DEFAULT '[]'::jsonb,
  avatar_file_id bigint REFERENCES files (id) ON DELETE SET NULL,
  created_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX groups_workspace_idx ON groups (workspace_id);

-- Conversation categories: a tree of at most 3 levels and 200 nodes per workspace; names unique
-- within one parent (top level = parent 0 in the key).
CREATE TABLE conversation_categories (
  id           integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  workspace_id integer NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  parent_id    integer REFERENCES conversation_categories (id),
  name         text NOT NULL,
  color        text NOT NULL DEFAULT '',
  position     integer NOT NULL DEFAULT 0,
  created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX conversation_categories_name_key
  ON conversation_categories (workspace_id, COALESCE(parent_id, 0), lower(name));
CREATE INDEX conversation_categories_parent_idx ON conversation_categories (parent_id);

ALTER TABLE conversations
  ADD COLUMN kind              text NOT NULL DEFAULT 'chat' CHECK (kind IN ('chat', 'group')),
  ADD COLUMN contact_id        bigint REFERENCES contacts (id) ON DELETE SET NULL,
  ADD COLUMN group_id          bigint REFERENCES groups (id) ON DELETE SET NULL,
  -- E-mail conversations carry the subject of their thread; chats have none.
  ADD COLUMN subject           text,
  ADD COLUMN category_id       integer REFERENCES conversation_categories (id) ON DELETE SET NULL,
  ADD COLUMN custom            jsonb NOT NULL DEFAULT '{}'::jsonb,
  -- `new` = never replied, `waiting` = the customer wrote after our last reply, `replied`.
  -- Kept with every message (in the sequence's transaction) so the tabs are indexable.
  ADD COLUMN reply_state       text NOT NULL DEFAULT 'new' CHECK (reply_state IN ('new', 'waiting', 'replied')),
  ADD COLUMN waiting_since     timestamptz,
  ADD COLUMN first_in_at       timestamptz,
  ADD COLUMN first_response_at timestamptz,
  ADD COLUMN last_in_at        timestamptz,
  ADD COLUMN last_out_at       timestamptz,
  ADD COLUMN unread_count      integer NOT NULL DEFAULT 0,
  ADD COLUMN notes_count       integer NOT NULL DEFAULT 0,
  ADD COLUMN preview           text NOT NULL DEFAULT '',
  ADD COLUMN picked_up_at      timestamptz,
  ADD COLUMN feedback_seen_at  timestamptz,
  ADD COLUMN ai_summary        text;

-- The list: every tab of one workspace in activity order (and its per-tab counts) from one index.
CREATE INDEX conversations_tab_idx
  ON conversations (workspace_id, status, reply_state, last_message_at DESC NULLS LAST, id DESC);
-- `assignee=me/<id>` and the person rule of visibility.
CREATE INDEX conversations_assignee_idx
  ON conversations (assignee_id, last_message_at DESC NULLS LAST, id DESC) WHERE assignee_id IS NOT NULL;
-- `team=<id>/mine` and the team rule of visibility.
CREATE INDEX conversations_team_idx
  ON conversations (team_id, last_message_at DESC NULLS LAST, id DESC) WHERE team_id IS NOT NULL;
-- `channel_ids` and channel access.
CREATE INDEX conversations_channel_idx ON conversations (channel_id, last_message_at DESC NULLS LAST, id DESC);
-- `contact_id`, `label_id` (through contact_labels) and reusing an open chat with a contact.
CREATE INDEX conversations_contact_idx ON conversations (contact_id, channel_id) WHERE contact_id IS NOT NULL;
-- `category=<id>` (with subcategories) and moving conversations when a category is deleted.
CREATE INDEX conversations_category_idx ON conversations (category_id) WHERE category_id IS NOT NULL;
-- `created_from` / `created_to`.
CREATE INDEX conversations_created_idx ON conversations (workspace_id, created_at);

ALTER TABLE messages
  ADD COLUMN file_id     bigint REFERENCES files (id) ON DELETE SET NULL,
  ADD COLUMN reply_to_id bigint REFERENCES messages (id) ON DELETE SET NULL,
  -- Type-specific content: location, shared contact, e-mail fields, template, agent initial, note source.
  ADD COLUMN payload     jsonb NOT NULL DEFAULT '{}'::jsonb,
  ADD COLUMN reactions   jsonb NOT NULL DEFAULT '[]'::jsonb,
  -- The channel's own id of the message (delivery receipts, edits, unsends, quotes).
  ADD COLUMN external_id text,
  ADD COLUMN edited_at   timestamptz,
  ADD COLUMN deleted_at  timestamptz;
-- Notes, newest first, without walking the conversation's other messages.
CREATE INDEX messages_notes_idx ON messages (conversation_id, id DESC) WHERE type = 'note';

-- Reply templates with an optional attachment; shortcuts unique per workspace when set.
CREATE TABLE templates (
  id           integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  workspace_id integer NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  name         text NOT NULL,
  shortcut     text NOT NULL DEFAULT '',
  category     text NOT NULL DEFAULT '',
  body         text NOT NULL,
  file_id      bigint REFERENCES files (id) ON DELETE SET NULL,
  created_by   integer REFERENCES users (id) ON DELETE SET NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX templates_workspace_idx ON templates (workspace_id, lower(name));
CREATE UNIQUE INDEX templates_shortcut_key ON templates (workspace_id, lower(shortcut)) WHERE shortcut <> '';

-- Messaging-app label rules (Pro): a business label applied on the phone triggers an action.
CREATE TABLE label_rules (
  id           integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  workspace_id integer NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  channel_id   integer NOT NULL REFERENCES channels (id) ON DELETE CASCADE,
  label_name   text NOT NULL,
  action       text NOT NULL CHECK (action IN ('contact_label', 'assign_team', 'solve')),
  value        integer,
  active       boolean NOT NULL DEFAULT true,
  created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX label_rules_workspace_idx ON label_rules (workspace_id);
CREATE UNIQUE INDEX label_rules_key ON label_rules (channel_id, lower(label_name), action);
