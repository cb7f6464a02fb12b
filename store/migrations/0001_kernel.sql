-- Kernel: workspaces, users, roles, memberships, API keys, sessions, sign-in links and requests.

CREATE TABLE workspaces (
  id            integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  name          text NOT NULL CHECK (char_length(name) BETWEEN 2 AND 120),
  slug          text NOT NULL UNIQUE,
  plan          text NOT NULL DEFAULT 'free' CHECK (plan IN ('free', 'pro', 'custom')),
  pro_until     timestamptz,
  timezone      text NOT NULL DEFAULT 'Asia/Jakarta',
  -- Custom contracts override plan limits key by key; 0 = unlimited.
  limits        jsonb NOT NULL DEFAULT '{}'::jsonb,
  frozen_at     timestamptz,
  owner_user_id integer,
  created_at    timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE users (
  id                  integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  email               text NOT NULL,
  name                text NOT NULL,
  avatar_url          text,
  locale              text NOT NULL DEFAULT 'en' CHECK (locale IN ('en', 'id')),
  timezone            text,
  is_platform_admin   boolean NOT NULL DEFAULT false,
  preferences         jsonb NOT NULL DEFAULT '{}'::jsonb,
  active_workspace_id integer REFERENCES workspaces (id) ON DELETE SET NULL,
  last_login_at       timestamptz,
  created_at          timestamptz NOT NULL DEFAULT now()
);
-- Users are matched by e-mail, case-insensitively.
CREATE UNIQUE INDEX users_email_key ON users (lower(email));

ALTER TABLE workspaces ADD CONSTRAINT workspaces_owner_fk FOREIGN KEY (owner_user_id) REFERENCES users (id);

CREATE TABLE roles (
  id           integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  workspace_id integer NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  name         text NOT NULL,
  permissions  text[] NOT NULL DEFAULT '{}',
  is_admin     boolean NOT NULL DEFAULT false,
  -- The Owner's role cannot be changed or deleted.
  is_owner     boolean NOT NULL DEFAULT false,
  created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX roles_workspace_idx ON roles (workspace_id);

CREATE TABLE members (
  id              integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  workspace_id    integer NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  user_id         integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  role_id         integer NOT NULL REFERENCES roles (id),
  status          text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'disabled')),
  disabled_reason text,
  view_all        boolean NOT NULL DEFAULT false,
  channel_access  text NOT NULL DEFAULT 'all' CHECK (channel_access IN ('all', 'selected')),
  channel_ids     integer[] NOT NULL DEFAULT '{}',
  reply_initial   text NOT NULL DEFAULT '' CHECK (char_length(reply_initial) <= 20),
  joined_at       timestamptz NOT NULL DEFAULT now(),
  UNIQUE (workspace_id, user_id)
);
CREATE INDEX members_user_idx ON members (user_id);

CREATE TABLE api_keys (
  id           integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  workspace_id integer NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  created_by   integer NOT NULL REFERENCES users (id),
  name         text NOT NULL,
  scope        text NOT NULL CHECK (scope IN ('read', 'write')),
  -- Only the prefix is ever shown again; the secret is kept as a SHA-256 digest.
  prefix       text NOT NULL,
  secret_hash  bytea NOT NULL UNIQUE,
  last_used_at timestamptz,
  revoked_at   timestamptz,
  created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX api_keys_workspace_idx ON api_keys (workspace_id) WHERE revoked_at IS NULL;

CREATE TABLE sessions (
  id          integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id     integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  token_hash  bytea NOT NULL UNIQUE,
  csrf_token  text NOT NULL,
  via         text NOT NULL CHECK (via IN ('oidc', 'link')),
  created_at  timestamptz NOT NULL DEFAULT now(),
  expires_at  timestamptz NOT NULL,
  ended_at    timestamptz
);
CREATE INDEX sessions_user_idx ON sessions (user_id) WHERE ended_at IS NULL;

-- One-time sign-in links issued by the operator CLI.
CREATE TABLE login_links (
  id          integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id     integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  token_hash  bytea NOT NULL UNIQUE,
  expires_at  timestamptz NOT NULL,
  used_at     timestamptz,
  created_at  timestamptz NOT NULL DEFAULT now()
);

-- OpenID Connect authorization requests in flight (state -> PKCE verifier, nonce).
CREATE TABLE auth_requests (
  state         text PRIMARY KEY,
  code_verifier text NOT NULL,
  nonce         text NOT NULL,
  return_to     text NOT NULL DEFAULT '/',
  expires_at    timestamptz NOT NULL
);
