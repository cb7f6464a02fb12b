-- Messaging-app numbers (spec 1 §4.4, Baileys): the number's link state, its sealed auth state
-- (engine/secrets), requests the session supervisor carries out on the node that runs the number,
-- business labels read from the phone, the channel message ids of stored messages, and the
-- per-number send log behind warm-up limits.

CREATE TABLE msgapp_numbers (
  channel_id           integer PRIMARY KEY REFERENCES channels (id) ON DELETE CASCADE,
  phone                text,
  linked_at            timestamptz,
  -- The latest QR code and when it stops being valid; shown to admins while linking.
  qr                   text,
  qr_expires_at        timestamptz,
  -- Bumped by reconnect and logout: a running session with an older version stops.
  version              integer NOT NULL DEFAULT 1,
  logout_requested_at  timestamptz,
  pair_phone           text,
  pair_requested_at    timestamptz,
  pair_code            text,
  pair_code_at         timestamptz,
  history_days         integer CHECK (history_days IN (7, 30, 90)),
  history_requested_at timestamptz,
  history_progress     integer NOT NULL DEFAULT 0,
  history_imported     integer NOT NULL DEFAULT 0,
  last_close_code      integer,
  last_connected_at    timestamptz,
  updated_at           timestamptz NOT NULL DEFAULT now()
);

-- Baileys' AuthenticationState: creds and signal keys, each AES-256-GCM sealed JSON (BufferJSON).
CREATE TABLE msgapp_auth (
  channel_id integer NOT NULL REFERENCES channels (id) ON DELETE CASCADE,
  kind       text NOT NULL,
  key_id     text NOT NULL,
  sealed     text NOT NULL,
  PRIMARY KEY (channel_id, kind, key_id)
);

CREATE TABLE msgapp_labels (
  channel_id integer NOT NULL REFERENCES channels (id) ON DELETE CASCADE,
  label_id   text NOT NULL,
  name       text NOT NULL,
  color      integer NOT NULL DEFAULT 0,
  deleted    boolean NOT NULL DEFAULT false,
  PRIMARY KEY (channel_id, label_id)
);

-- The channel's message id → our message: receipts, edits, revokes, reactions and quotes find it.
CREATE TABLE msgapp_messages (
  channel_id      integer NOT NULL REFERENCES channels (id) ON DELETE CASCADE,
  wa_id           text NOT NULL,
  conversation_id bigint NOT NULL,
  message_id      bigint NOT NULL,
  jid             text NOT NULL DEFAULT '',
  from_me         boolean NOT NULL DEFAULT false,
  at              timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (channel_id, wa_id)
);

-- Number health: every outbound attempt, for warm-up limits and diagnosis.
CREATE TABLE msgapp_send_log (
  id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  channel_id integer NOT NULL REFERENCES channels (id) ON DELETE CASCADE,
  message_id bigint,
  jid        text NOT NULL,
  ok         boolean NOT NULL,
  error      text,
  at         timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX msgapp_send_log_idx ON msgapp_send_log (channel_id, at DESC);

-- One group record per group of a number.
CREATE UNIQUE INDEX groups_msgapp_key ON groups (channel_id, external_id) WHERE external_id IS NOT NULL;
