-- Reports and KPIs (spec 2 §4.6). The definitions of every metric are in
-- actors/reports/metrics.ts and docs/decisions.md (Reports); how it stays fast is there too.
--
-- Facts: one append-only row per thing that happened (a customer message, an agent's reply, a
-- conversation solved, a conversation given to a team or person, a ticket created or resolved),
-- written in the same statement as the change itself, with the channel, team and person of that
-- moment. A fact's business minutes and whether it met its target are filled once, by the roll-up
-- (actors/reports/rollup.ts), which then adds the fact to the roll-ups and marks it `rolled`.
CREATE TABLE report_facts (
  id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  workspace_id    integer NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  at              timestamptz NOT NULL,
  kind            text NOT NULL
    CHECK (kind IN ('in', 'out', 'resolved', 'assigned', 'ticket_created', 'ticket_first_response',
                    'ticket_resolved')),
  -- No foreign keys: figures of a deleted conversation or ticket stay in the reports.
  conversation_id bigint,
  ticket_id       bigint,
  channel_id      integer,
  channel_type    text,
  team_id         integer,
  -- out: who replied; resolved: the assignee; assigned: the new assignee (null = given to the
  -- team); in: nobody; tickets: who did it.
  user_id         integer,
  -- in: the conversation's first customer message (an incoming conversation).
  opened          boolean NOT NULL DEFAULT false,
  -- out: the first reply of the episode (a first response).
  first           boolean NOT NULL DEFAULT false,
  -- out: when the wait it answered began; resolved: when the episode began; tickets: when the
  -- ticket was created.
  since           timestamptz,
  -- Filled by the roll-up: business minutes from `since` to `at`, and within the target then.
  minutes         integer,
  met             boolean,
  rolled          boolean NOT NULL DEFAULT false
);
-- What the roll-up has still to do, oldest first; small, since rolled facts leave it.
CREATE INDEX report_facts_pending_idx ON report_facts (workspace_id, id) WHERE NOT rolled;
-- The median first response and the KPI raw rows read facts by time.
CREATE INDEX report_facts_first_idx ON report_facts (workspace_id, at) INCLUDE (minutes, channel_id, team_id, user_id)
  WHERE kind = 'out' AND first AND rolled;
CREATE INDEX report_facts_time_idx ON report_facts (workspace_id, at);

-- Roll-ups: sums of the facts. `report_hours` per UTC hour (any caller's zone, the hour-of-day
-- chart) by channel and team; `report_days` per day of the workspace zone by channel, team and
-- person (0 = none), the fast path of every report read in the workspace zone and of KPIs.
CREATE TABLE report_hours (
  workspace_id       integer NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  hour               timestamptz NOT NULL,
  channel_id         integer NOT NULL DEFAULT 0,
  team_id            integer NOT NULL DEFAULT 0,
  conversations          integer NOT NULL DEFAULT 0,
  assigned               integer NOT NULL DEFAULT 0,
  taken                  integer NOT NULL DEFAULT 0,
  messages_in            integer NOT NULL DEFAULT 0,
  messages_out           integer NOT NULL DEFAULT 0,
  replies                integer NOT NULL DEFAULT 0,
  reply_minutes          bigint NOT NULL DEFAULT 0,
  replies_met            integer NOT NULL DEFAULT 0,
  first_responses        integer NOT NULL DEFAULT 0,
  first_minutes          bigint NOT NULL DEFAULT 0,
  first_met              integer NOT NULL DEFAULT 0,
  resolutions            integer NOT NULL DEFAULT 0,
  resolution_minutes     bigint NOT NULL DEFAULT 0,
  resolutions_met        integer NOT NULL DEFAULT 0,
  tickets_created        integer NOT NULL DEFAULT 0,
  ticket_first_responses integer NOT NULL DEFAULT 0,
  ticket_first_minutes   bigint NOT NULL DEFAULT 0,
  ticket_first_met       integer NOT NULL DEFAULT 0,
  tickets_resolved       integer NOT NULL DEFAULT 0,
  ticket_minutes         bigint NOT NULL DEFAULT 0,
  tickets_met            integer NOT NULL DEFAULT 0,
  PRIMARY KEY (workspace_id, hour, channel_id, team_id)
);

CREATE TABLE report_days (
  workspace_id       integer NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  day                date NOT NULL,
  channel_id         integer NOT NULL DEFAULT 0,
  team_id            integer NOT NULL DEFAULT 0,
  user_id            integer NOT NULL DEFAULT 0,
  conversations          integer NOT NULL DEFAULT 0,
  assigned               integer NOT NULL DEFAULT 0,
  taken                  integer NOT NULL DEFAULT 0,
  messages_in            integer NOT NULL DEFAULT 0,
  messages_out           integer NOT NULL DEFAULT 0,
  replies                integer NOT NULL DEFAULT 0,
  reply_minutes          bigint NOT NULL DEFAULT 0,
  replies_met            integer NOT NULL DEFAULT 0,
  first_responses        integer NOT NULL DEFAULT 0,
  first_minutes          bigint NOT NULL DEFAULT 0,
  first_met              integer NOT NULL DEFAULT 0,
  resolutions            integer NOT NULL DEFAULT 0,
  resolution_minutes     bigint NOT NULL DEFAULT 0,
  resolutions_met        integer NOT NULL DEFAULT 0,
  tickets_created        integer NOT NULL DEFAULT 0,
  ticket_first_responses integer NOT NULL DEFAULT 0,
  ticket_first_minutes   bigint NOT NULL DEFAULT 0,
  ticket_first_met       integer NOT NULL DEFAULT 0,
  tickets_resolved       integer NOT NULL DEFAULT 0,
  ticket_minutes         bigint NOT NULL DEFAULT 0,
  tickets_met            integer NOT NULL DEFAULT 0,
  PRIMARY KEY (workspace_id, day, channel_id, team_id, user_id)
);

-- The zone `report_days` is kept in: a change of the workspace zone rebuilds the days.
ALTER TABLE workspaces ADD COLUMN report_zone text;

-- The current episode of a conversation (docs/decisions.md, Reports): when its first customer
-- message came (a reopening starts a new one) and when it was first replied to.
ALTER TABLE conversations
  ADD COLUMN episode_at          timestamptz,
  ADD COLUMN episode_replied_at  timestamptz;

-- The category breakdown counts conversations by their first customer message.
CREATE INDEX conversations_first_in_idx ON conversations (workspace_id, first_in_at)
  INCLUDE (category_id, channel_id, team_id, contact_id) WHERE first_in_at IS NOT NULL;

-- KPI targets (spec 2 §4.6 `/kpi/config`): the workspace's per metric, and overrides per team or
-- person. A value is in the metric's unit (minutes or hours, actors/reports/metrics.ts).
CREATE TABLE kpi_targets (
  workspace_id integer NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  scope        text NOT NULL CHECK (scope IN ('workspace', 'team', 'user')),
  scope_id     integer NOT NULL DEFAULT 0,
  metric       text NOT NULL,
  value        integer NOT NULL CHECK (value > 0),
  PRIMARY KEY (workspace_id, scope, scope_id, metric)
);
