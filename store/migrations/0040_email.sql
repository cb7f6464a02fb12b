-- E-mail channels (spec 1 §4.4 `/channels/email`): the mailbox's servers and sealed credentials
-- (engine/secrets), the session's sync state, the read position per folder and the Message-IDs
-- that thread mail into conversations.

CREATE TABLE channel_email (
  channel_id         integer PRIMARY KEY REFERENCES channels (id) ON DELETE CASCADE,
  address            text NOT NULL,
  username           text NOT NULL,
  -- AES-256-GCM under SECRETS_KEY (engine/secrets.ts); never returned by the API.
  password_sealed    text NOT NULL,
  imap_host          text NOT NULL,
  imap_port          integer NOT NULL,
  imap_security      text NOT NULL CHECK (imap_security IN ('ssl', 'starttls')),
  smtp_host          text NOT NULL,
  smtp_port          integer NOT NULL,
  smtp_security      text NOT NULL CHECK (smtp_security IN ('ssl', 'starttls')),
  smtp_username      text,
  smtp_password_sealed text,
  folders            text[] NOT NULL DEFAULT '{}',
  sent_folder        text,
  read_sent          boolean NOT NULL DEFAULT false,
  save_sent          boolean NOT NULL DEFAULT true,
  history_days       integer NOT NULL DEFAULT 7 CHECK (history_days IN (0, 3, 7, 30)),
  sender_name        text NOT NULL DEFAULT '',
  sender_with_agent  boolean NOT NULL DEFAULT false,
  signature_html     text NOT NULL DEFAULT '',
  ignore             text[] NOT NULL DEFAULT '{}',
  -- Bumped by every settings change: a running session with an older version restarts.
  version            integer NOT NULL DEFAULT 1,
  failures           integer NOT NULL DEFAULT 0,
  paused_until       timestamptz,
  last_error         text,
  last_sync_at       timestamptz,
  sync_requested_at  timestamptz,
  created_at         timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX channel_email_address_idx ON channel_email (lower(address));

-- Where reading stopped in each folder: a restart resumes after `last_uid` unless the folder's
-- UIDVALIDITY changed (then the folder is read again from the history window).
CREATE TABLE email_folder_state (
  channel_id   integer NOT NULL REFERENCES channels (id) ON DELETE CASCADE,
  folder       text NOT NULL,
  uidvalidity  bigint NOT NULL,
  last_uid     bigint NOT NULL,
  PRIMARY KEY (channel_id, folder)
);

-- Message-ID → the conversation (and message) it belongs to, for threading and de-duplication.
CREATE TABLE email_message_ids (
  channel_id      integer NOT NULL REFERENCES channels (id) ON DELETE CASCADE,
  message_id      text NOT NULL,
  conversation_id bigint NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
  message_row_id  bigint REFERENCES messages (id) ON DELETE SET NULL,
  created_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (channel_id, message_id)
);
CREATE INDEX email_message_ids_conversation_idx ON email_message_ids (conversation_id, created_at DESC);
