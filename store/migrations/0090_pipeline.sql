-- The sales pipeline (spec 2 §2, §3, §4.7): workflows and their stages, the workspace's pipeline
-- settings, clients (their endpoints come with the next issue; leads find or create them by
-- name), leads numbered per workspace without gaps, and each lead's timeline, files, checklist,
-- calendar events with reminders and expenses. Choices: docs/decisions.md, "Pipeline".

-- Lost reasons and expense categories of the workspace; no row = the defaults.
CREATE TABLE pipeline_settings (
  workspace_id       integer PRIMARY KEY REFERENCES workspaces (id) ON DELETE CASCADE,
  lost_reasons       jsonb NOT NULL,
  expense_categories jsonb NOT NULL,
  updated_at         timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE pipelines (
  id           integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  workspace_id integer NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  name         text NOT NULL,
  description  text,
  position     integer NOT NULL DEFAULT 0,
  archived_at  timestamptz,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX pipelines_workspace_idx ON pipelines (workspace_id, position, id);

-- The Back Office teams a workflow belongs to (none: every team's).
CREATE TABLE pipeline_teams (
  pipeline_id integer NOT NULL REFERENCES pipelines (id) ON DELETE CASCADE,
  team_id     integer NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
  PRIMARY KEY (pipeline_id, team_id)
);
CREATE INDEX pipeline_teams_team_idx ON pipeline_teams (team_id);

CREATE TABLE pipeline_stages (
  id           integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  workspace_id integer NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  pipeline_id  integer NOT NULL REFERENCES pipelines (id) ON DELETE CASCADE,
  kind         text NOT NULL CHECK (kind IN ('new', 'progress', 'won', 'lost')),
  label        text NOT NULL,
  color        text NOT NULL,
  probability  smallint NOT NULL CHECK (probability BETWEEN 0 AND 100),
  position     integer NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX pipeline_stages_pipeline_idx ON pipeline_stages (pipeline_id, position);

-- Clients (companies behind contacts). Names are unique per workspace regardless of case.
CREATE TABLE clients (
  id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  workspace_id integer NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  name         text NOT NULL,
  industry     text,
  phone        text,
  email        text,
  website      text,
  address      text,
  city         text,
  notes        text,
  custom       jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_by   integer REFERENCES users (id) ON DELETE SET NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX clients_name_key ON clients (workspace_id, lower(name));
CREATE INDEX clients_industry_idx ON clients (workspace_id, lower(industry)) WHERE industry IS NOT NULL;

-- A contact's client (linked by `POST /clients/{id}/contacts`, next issue).
ALTER TABLE contacts ADD COLUMN client_id bigint REFERENCES clients (id) ON DELETE SET NULL;
CREATE INDEX contacts_client_idx ON contacts (client_id) WHERE client_id IS NOT NULL;

-- The last `LEAD-<n>` number of each workspace, bumped in the transaction that inserts the lead,
-- so numbers are gap-free (a rolled-back insert rolls the number back too).
CREATE TABLE lead_counters (
  workspace_id integer PRIMARY KEY REFERENCES workspaces (id) ON DELETE CASCADE,
  last_number  bigint NOT NULL
);

CREATE TABLE leads (
  id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  workspace_id    integer NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  number          bigint NOT NULL,
  title           text NOT NULL,
  pipeline_id     integer NOT NULL REFERENCES pipelines (id),
  stage_id        integer NOT NULL REFERENCES pipeline_stages (id),
  -- Follows the stage's kind: `open` (New, In progress), `won`, `lost`.
  status          text NOT NULL CHECK (status IN ('open', 'won', 'lost')),
  team_id         integer REFERENCES teams (id) ON DELETE SET NULL,
  assignee_id     integer REFERENCES users (id) ON DELETE SET NULL,
  contact_id      bigint REFERENCES contacts (id) ON DELETE SET NULL,
  client_id       bigint REFERENCES clients (id) ON DELETE SET NULL,
  interaction_id  bigint REFERENCES conversations (id) ON DELETE SET NULL,
  value_estimate  numeric(18, 2),
  value_won       numeric(18, 2),
  budget          numeric(18, 2),
  expected_close  date,
  followup_at     timestamptz,
  followup_note   text,
  lost_reason     text,
  lost_note       text,
  note            text,
  custom          jsonb NOT NULL DEFAULT '{}'::jsonb,
  source          text NOT NULL CHECK (source IN ('app', 'api', 'import')),
  created_by      integer REFERENCES users (id) ON DELETE SET NULL,
  closed_at       timestamptz,
  stage_changed_at timestamptz NOT NULL DEFAULT now(),
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now(),
  UNIQUE (workspace_id, number)
);
CREATE INDEX leads_stage_idx ON leads (pipeline_id, stage_id, updated_at DESC);
CREATE INDEX leads_created_idx ON leads (workspace_id, created_at DESC, id DESC);
CREATE INDEX leads_status_idx ON leads (workspace_id, status, closed_at);
CREATE INDEX leads_assignee_idx ON leads (assignee_id) WHERE assignee_id IS NOT NULL;
CREATE INDEX leads_team_idx ON leads (team_id) WHERE team_id IS NOT NULL;
CREATE INDEX leads_contact_idx ON leads (contact_id) WHERE contact_id IS NOT NULL;
CREATE INDEX leads_client_idx ON leads (client_id) WHERE client_id IS NOT NULL;
CREATE INDEX leads_interaction_idx ON leads (interaction_id) WHERE interaction_id IS NOT NULL;
CREATE INDEX leads_followup_idx ON leads (workspace_id, followup_at) WHERE followup_at IS NOT NULL;
CREATE INDEX leads_title_search_idx ON leads USING gin (title gin_trgm_ops);

-- The timeline: activities people log (kinds of spec 2 §2) and the change log the service writes
-- (kind `change`: created, moved, won, lost, reopened, updated fields…; never edited).
CREATE TABLE lead_activities (
  id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  workspace_id     integer NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  lead_id          bigint NOT NULL REFERENCES leads (id) ON DELETE CASCADE,
  kind             text NOT NULL
                   CHECK (kind IN ('call', 'chat', 'email', 'meeting', 'visit', 'note', 'other', 'change')),
  body             text NOT NULL DEFAULT '',
  happened_at      timestamptz NOT NULL,
  duration_minutes integer,
  data             jsonb NOT NULL DEFAULT '{}'::jsonb,
  author_id        integer REFERENCES users (id) ON DELETE SET NULL,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX lead_activities_lead_idx ON lead_activities (lead_id, id DESC);

CREATE TABLE lead_files (
  id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  workspace_id integer NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  lead_id      bigint NOT NULL REFERENCES leads (id) ON DELETE CASCADE,
  file_id      bigint NOT NULL REFERENCES files (id),
  uploaded_by  integer REFERENCES users (id) ON DELETE SET NULL,
  created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX lead_files_lead_idx ON lead_files (lead_id, id);

CREATE TABLE lead_checklist (
  id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  workspace_id integer NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  lead_id      bigint NOT NULL REFERENCES leads (id) ON DELETE CASCADE,
  text         text NOT NULL,
  done         boolean NOT NULL DEFAULT false,
  done_at      timestamptz,
  done_by      integer REFERENCES users (id) ON DELETE SET NULL,
  position     integer NOT NULL,
  created_by   integer REFERENCES users (id) ON DELETE SET NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX lead_checklist_lead_idx ON lead_checklist (lead_id, position);

-- Calendar events of a lead. `remind_at` = starts_at - remind_minutes; `reminded_at` is set in the
-- transaction that stores the reminder's notifications, so each reminder fires once on whatever
-- node claims it first; changing the start clears it.
CREATE TABLE lead_events (
  id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  workspace_id   integer NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  lead_id        bigint NOT NULL REFERENCES leads (id) ON DELETE CASCADE,
  kind           text NOT NULL,
  title          text NOT NULL,
  starts_at      timestamptz NOT NULL,
  ends_at        timestamptz,
  location       text,
  notes          text,
  remind_minutes integer,
  remind_at      timestamptz,
  reminded_at    timestamptz,
  created_by     integer REFERENCES users (id) ON DELETE SET NULL,
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX lead_events_lead_idx ON lead_events (lead_id, starts_at);
CREATE INDEX lead_events_due_idx ON lead_events (remind_at) WHERE remind_at IS NOT NULL AND reminded_at IS NULL;

CREATE TABLE lead_expenses (
  id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  workspace_id    integer NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  lead_id         bigint NOT NULL REFERENCES leads (id) ON DELETE CASCADE,
  spent_on        date NOT NULL,
  category        text NOT NULL,
  amount          numeric(18, 2) NOT NULL CHECK (amount >= 0),
  note            text,
  spent_by        integer REFERENCES users (id) ON DELETE SET NULL,
  recorded_by     integer REFERENCES users (id) ON DELETE SET NULL,
  receipt_file_id bigint REFERENCES files (id),
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX lead_expenses_lead_idx ON lead_expenses (lead_id, spent_on DESC, id DESC);
CREATE INDEX lead_expenses_workspace_idx ON lead_expenses (workspace_id, spent_on);
