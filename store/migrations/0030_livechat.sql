-- Live chat (spec 1 §4.4 `/channels/livechat`, §4.6): the widget's public key and look, its
-- visitors (each with a hashed bearer token and the session id of `visitor:{session}`), the
-- form tokens already used (single use), and channel icons (any type; the live chat logo).

CREATE TABLE livechat_channels (
  channel_id integer PRIMARY KEY REFERENCES channels (id) ON DELETE CASCADE,
  -- The public key of the embed code; replacing it makes the old embed stop at once.
  public_key text NOT NULL UNIQUE,
  widget     jsonb NOT NULL DEFAULT '{}'::jsonb
);

CREATE TABLE livechat_visitors (
  id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  channel_id      integer NOT NULL REFERENCES channels (id) ON DELETE CASCADE,
  workspace_id    integer NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  -- Public id of the visitor's real-time channel `visitor:{session}`.
  session         text NOT NULL UNIQUE,
  token_digest    bytea NOT NULL UNIQUE,
  contact_id      bigint REFERENCES contacts (id) ON DELETE SET NULL,
  conversation_id bigint NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
  name            text NOT NULL,
  email           text NOT NULL,
  phone           text NOT NULL,
  page_url        text,
  locale          text NOT NULL DEFAULT 'en',
  ip              text,
  -- The widget was last open (heartbeat `seen`), and `visitor.online` was last announced.
  seen_at         timestamptz,
  online_at       timestamptz,
  seen_message_id bigint NOT NULL DEFAULT 0,
  created_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX livechat_visitors_conversation_idx ON livechat_visitors (conversation_id);

-- Form tokens already spent; rows older than a token's lifetime are pruned.
CREATE TABLE livechat_form_tokens (
  nonce   text PRIMARY KEY,
  used_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE channel_icons (
  channel_id integer PRIMARY KEY REFERENCES channels (id) ON DELETE CASCADE,
  mime       text NOT NULL,
  bytes      bytea NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
