-- API channels (spec 1 §4.4, §4.7): the channel key (stored as its SHA-256), the webhook settings
-- and secret, the conversations the customer's system opened, and the durable webhook outbox.

CREATE TABLE channel_api (
  channel_id       integer PRIMARY KEY REFERENCES channels (id) ON DELETE CASCADE,
  key_digest       bytea NOT NULL UNIQUE,
  key_prefix       text NOT NULL,
  key_last_used_at timestamptz,
  -- Shown again on request (GET /channels/{id}/api/secret), so kept as is.
  webhook_secret   text NOT NULL,
  webhook_url      text,
  events           text[] NOT NULL DEFAULT '{message.created}',
  retries          integer NOT NULL DEFAULT 3 CHECK (retries BETWEEN 0 AND 5),
  -- The newest agent reply (messages.id) already queued as a webhook delivery.
  out_cursor       bigint NOT NULL DEFAULT 0
);

-- The customer's conversation id → ours, with the minimal contact the customer's system sent.
CREATE TABLE channel_api_threads (
  channel_id      integer NOT NULL REFERENCES channels (id) ON DELETE CASCADE,
  external_id     text NOT NULL,
  conversation_id bigint NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
  contact         jsonb NOT NULL DEFAULT '{}'::jsonb,
  -- The conversation state last announced by `conversation.updated` (status, assignee, team).
  notified        jsonb NOT NULL DEFAULT '{"status": "open", "assignee_id": null, "team_id": null}'::jsonb,
  created_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (channel_id, external_id)
);
CREATE INDEX channel_api_threads_conversation_idx ON channel_api_threads (conversation_id);

-- Webhook outbox: every delivery is stored before it is sent, so it survives a restart; `uid` is
-- the delivery id the receiver sees, the same on every attempt.
CREATE TABLE webhook_deliveries (
  id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  uid             text NOT NULL UNIQUE,
  channel_id      integer NOT NULL REFERENCES channels (id) ON DELETE CASCADE,
  event           text NOT NULL,
  -- What the delivery is about (`message.created:<id>`): queued at most once per channel.
  subject         text,
  body            text NOT NULL,
  status          text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts        integer NOT NULL DEFAULT 0,
  max_attempts    integer NOT NULL,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  http_status     integer,
  duration_ms     integer,
  error           text,
  log             jsonb NOT NULL DEFAULT '[]'::jsonb,
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now(),
  UNIQUE (channel_id, subject)
);
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_channel_idx ON webhook_deliveries (channel_id, id DESC);
