-- Passkeys (WebAuthn credentials) of app users, and the challenges of ceremonies in flight.

-- A session can begin with a passkey.
ALTER TABLE sessions DROP CONSTRAINT sessions_via_check;
ALTER TABLE sessions ADD CONSTRAINT sessions_via_check CHECK (via IN ('oidc', 'link', 'passkey'));

-- One row per credential a person registered. `credential_id` is the authenticator's id
-- (base64url), unique across every user: an authenticator never hands one id to two accounts, and
-- a sign-in finds the account by it alone (discoverable credentials, no e-mail asked first).
CREATE TABLE passkeys (
  id             integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id        integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  credential_id  text NOT NULL UNIQUE,
  public_key     bytea NOT NULL,
  -- The authenticator's signature counter; 0 forever for those that keep none (most synced ones).
  counter        bigint NOT NULL DEFAULT 0,
  transports     text[] NOT NULL DEFAULT '{}',
  name           text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 80),
  -- Synced to the person's other devices (a password manager, a platform account).
  backed_up      boolean NOT NULL DEFAULT false,
  created_at     timestamptz NOT NULL DEFAULT now(),
  last_used_at   timestamptz
);
CREATE INDEX passkeys_user_idx ON passkeys (user_id);

-- A challenge is good for one ceremony, once, for five minutes. A registration's belongs to the
-- signed-in person who asked for it; a sign-in's to nobody yet (the passkey names the account).
CREATE TABLE passkey_challenges (
  challenge   text PRIMARY KEY,
  purpose     text NOT NULL CHECK (purpose IN ('register', 'sign_in')),
  user_id     integer REFERENCES users (id) ON DELETE CASCADE,
  expires_at  timestamptz NOT NULL,
  CHECK ((purpose = 'register') = (user_id IS NOT NULL))
);
CREATE INDEX passkey_challenges_expiry_idx ON passkey_challenges (expires_at);
