-- Tickets (spec 2 §2, §3, §4.3): internal work raised from conversations and handled by a Back
-- Office team in its own discussion. The TicketActor is the single writer of a ticket; the
-- database guards what must hold even if two nodes briefly both own one (gap-free numbers and
-- sequences, conditional updates). Choices: docs/decisions.md, "Tickets".

-- Human numbers per workspace: the counter row is bumped in the transaction that inserts the
-- ticket, so a failed create takes no number and numbers are never reused (no sequence: a
-- sequence leaves gaps on rollback).
CREATE TABLE ticket_counters (
  workspace_id integer PRIMARY KEY REFERENCES workspaces (id) ON DELETE CASCADE,
  last_number  integer NOT NULL DEFAULT 0
);

CREATE TABLE tickets (
  id                     bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  workspace_id           integer NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  number                 integer NOT NULL,
  subject                text NOT NULL,
  description            text NOT NULL DEFAULT '',
  -- The one state table is actors/tickets/rules.ts; `active` is the group open/in_progress/waiting.
  status                 text NOT NULL DEFAULT 'open'
                         CHECK (status IN ('open', 'in_progress', 'waiting', 'resolved', 'closed')),
  priority               text NOT NULL DEFAULT 'normal' CHECK (priority IN ('low', 'normal', 'high', 'urgent')),
  due_date               date,
  team_id                integer NOT NULL REFERENCES teams (id),
  -- Who raised it: a member (`created_by`), or an API key (`creator` holds the key's name).
  created_by             integer REFERENCES users (id) ON DELETE SET NULL,
  creator                jsonb NOT NULL DEFAULT '{}'::jsonb,
  -- Where it came from; tickets stay, unlinked, when the conversation or contact is deleted.
  interaction_id         bigint REFERENCES conversations (id) ON DELETE SET NULL,
  contact_id             bigint REFERENCES contacts (id) ON DELETE SET NULL,
  custom                 jsonb NOT NULL DEFAULT '{}'::jsonb,
  -- Gap-free orders of the discussion and the change log: bumped in the statement that inserts.
  last_message_seq       integer NOT NULL DEFAULT 0,
  last_event_seq         integer NOT NULL DEFAULT 0,
  last_message_at        timestamptz,
  -- The pending update request from the conversation side (cleared by feedback, conclusion or
  -- resolution) and the last request's time (the 15-minute window, not cleared).
  update_requested_at    timestamptz,
  update_requested_by    jsonb,
  last_update_request_at timestamptz,
  resolved_at            timestamptz,
  closed_at              timestamptz,
  created_at             timestamptz NOT NULL DEFAULT now(),
  updated_at             timestamptz NOT NULL DEFAULT now(),
  UNIQUE (workspace_id, number)
);
CREATE INDEX tickets_workspace_recent_idx ON tickets (workspace_id, id DESC);
CREATE INDEX tickets_status_idx ON tickets (workspace_id, status);
CREATE INDEX tickets_team_idx ON tickets (team_id);
CREATE INDEX tickets_interaction_idx ON tickets (interaction_id) WHERE interaction_id IS NOT NULL;
CREATE INDEX tickets_contact_idx ON tickets (contact_id) WHERE contact_id IS NOT NULL;
-- `q` over subject and description (pg_trgm, migration 0012).
CREATE INDEX tickets_subject_search_idx ON tickets USING gin (subject gin_trgm_ops);
CREATE INDEX tickets_description_search_idx ON tickets USING gin (description gin_trgm_ops);

-- Participants (spec 2 §1 rule 3): assignees, the creator and people mentioned. One row per
-- person; a mentioned person who is assigned becomes an assignee.
CREATE TABLE ticket_participants (
  ticket_id bigint NOT NULL REFERENCES tickets (id) ON DELETE CASCADE,
  user_id   integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  role      text NOT NULL CHECK (role IN ('assignee', 'creator', 'mentioned')),
  added_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (ticket_id, user_id)
);
CREATE INDEX ticket_participants_user_idx ON ticket_participants (user_id);
CREATE INDEX ticket_participants_assignee_idx ON ticket_participants (ticket_id) WHERE role = 'assignee';

-- The discussion. `kind`: comment (the team's), conversation (posted from the conversation side),
-- update_request, conclusion. `feedback_*`: sent to the conversation as an internal note.
CREATE TABLE ticket_messages (
  id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  workspace_id     integer NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  ticket_id        bigint NOT NULL REFERENCES tickets (id) ON DELETE CASCADE,
  seq              integer NOT NULL,
  kind             text NOT NULL DEFAULT 'comment'
                   CHECK (kind IN ('comment', 'conversation', 'update_request', 'conclusion')),
  body             text NOT NULL DEFAULT '',
  sender           jsonb NOT NULL DEFAULT '{}'::jsonb,
  mention_ids      integer[] NOT NULL DEFAULT '{}',
  feedback_at      timestamptz,
  feedback_note_id bigint REFERENCES messages (id) ON DELETE SET NULL,
  created_at       timestamptz NOT NULL DEFAULT now(),
  UNIQUE (ticket_id, seq)
);

-- Attachments of a discussion message (at most 5), in order; bytes in the file storage.
CREATE TABLE ticket_message_files (
  message_id bigint NOT NULL REFERENCES ticket_messages (id) ON DELETE CASCADE,
  idx        smallint NOT NULL CHECK (idx >= 0 AND idx < 5),
  file_id    bigint NOT NULL REFERENCES files (id),
  PRIMARY KEY (message_id, idx)
);
CREATE INDEX ticket_message_files_file_idx ON ticket_message_files (file_id);

-- The change log (`meta.events`): who changed what, with the old and the new value.
CREATE TABLE ticket_events (
  id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  ticket_id  bigint NOT NULL REFERENCES tickets (id) ON DELETE CASCADE,
  seq        integer NOT NULL,
  kind       text NOT NULL,
  field      text,
  old_value  jsonb,
  new_value  jsonb,
  actor      jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (ticket_id, seq)
);
