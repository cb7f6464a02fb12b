-- Contacts, labels and custom fields (spec 2 §2, §4.4): the full contact record on the minimal one
-- of 0010_inbox.sql, notes, a timeline of changes, messaging-app labels seen on a contact's chats,
-- and custom field definitions for the five entities. Choices: docs/decisions.md, "Contacts".

ALTER TABLE contacts
  ADD COLUMN company           text,
  ADD COLUMN job_title         text,
  ADD COLUMN address           text,
  ADD COLUMN city              text,
  ADD COLUMN language          text,
  ADD COLUMN owner_id          integer REFERENCES users (id) ON DELETE SET NULL,
  ADD COLUMN custom            jsonb NOT NULL DEFAULT '{}'::jsonb,
  ADD COLUMN broadcast_opt_out boolean NOT NULL DEFAULT false,
  -- Set while a merge or a delete moves the contact's conversations through their actors: the
  -- contact is no longer matched by channels nor listed (merge: the target takes its place).
  ADD COLUMN merged_into       bigint,
  ADD COLUMN deleting_at       timestamptz;

-- List orders (`sort=created`, `sort=name`) and the `owner` filter.
CREATE INDEX contacts_created_idx ON contacts (workspace_id, created_at DESC, id DESC);
CREATE INDEX contacts_name_idx ON contacts (workspace_id, lower(name), id);
CREATE INDEX contacts_owner_idx ON contacts (owner_id) WHERE owner_id IS NOT NULL;
-- `q` also over the company (name, phone and e-mail are in contacts_search_idx).
CREATE INDEX contacts_company_search_idx ON contacts USING gin (company gin_trgm_ops) WHERE company IS NOT NULL;

-- Messaging-app business labels the phone put on a contact's chat (`msgapp_label_id` filter).
CREATE TABLE contact_msgapp_labels (
  contact_id bigint NOT NULL REFERENCES contacts (id) ON DELETE CASCADE,
  channel_id integer NOT NULL REFERENCES channels (id) ON DELETE CASCADE,
  label_id   text NOT NULL,
  PRIMARY KEY (contact_id, channel_id, label_id)
);
CREATE INDEX contact_msgapp_labels_label_idx ON contact_msgapp_labels (channel_id, label_id);

-- Custom field definitions; values live in the entity's `custom` jsonb under `key`.
CREATE TABLE custom_fields (
  id           integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  workspace_id integer NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  entity       text NOT NULL CHECK (entity IN ('contact', 'interaction', 'ticket', 'lead', 'client')),
  key          text NOT NULL,
  label        text NOT NULL,
  type         text NOT NULL,
  options      jsonb NOT NULL DEFAULT '[]'::jsonb,
  position     integer NOT NULL DEFAULT 0,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX custom_fields_key ON custom_fields (workspace_id, entity, key);

CREATE TABLE contact_notes (
  id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  workspace_id integer NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  contact_id   bigint NOT NULL REFERENCES contacts (id) ON DELETE CASCADE,
  author_id    integer REFERENCES users (id) ON DELETE SET NULL,
  body         text NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX contact_notes_contact_idx ON contact_notes (contact_id, id DESC);

-- The contact's changes for its timeline (created, updated, labels, merged, imported, opt-out).
CREATE TABLE contact_events (
  id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  workspace_id integer NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  contact_id   bigint NOT NULL REFERENCES contacts (id) ON DELETE CASCADE,
  kind         text NOT NULL,
  data         jsonb NOT NULL DEFAULT '{}'::jsonb,
  user_id      integer REFERENCES users (id) ON DELETE SET NULL,
  created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX contact_events_contact_idx ON contact_events (contact_id, created_at DESC, id DESC);
