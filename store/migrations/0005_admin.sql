-- Administration (spec 1 §3, §4.1, §4.2): general settings, the Custom contract's workspace
-- allowance, unique role names, invitations and ownership transfers. Decisions:
-- docs/decisions-admin.md.

ALTER TABLE workspaces
  -- General settings (store/settings.ts): response target, business hours; absent keys = defaults.
  ADD COLUMN settings            jsonb NOT NULL DEFAULT '{}'::jsonb,
  -- How many workspaces the Owner of this (Custom) workspace may own; 0 = unlimited. Free and Pro
  -- accounts own one whatever this says.
  ADD COLUMN contract_workspaces integer NOT NULL DEFAULT 1 CHECK (contract_workspaces >= 0);
CREATE INDEX workspaces_owner_idx ON workspaces (owner_user_id);

CREATE UNIQUE INDEX roles_name_key ON roles (workspace_id, lower(name));
CREATE INDEX members_role_idx ON members (role_id);

-- Invitations: pending until accepted or cancelled; expiry is a time, not a state change, so an
-- expired invitation is still listed (and can be resent). One open invitation per address.
CREATE TABLE invitations (
  id             integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  workspace_id   integer NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  email          text NOT NULL,
  role_id        integer NOT NULL REFERENCES roles (id),
  team_ids       integer[] NOT NULL DEFAULT '{}',
  view_all       boolean NOT NULL DEFAULT false,
  channel_access text NOT NULL DEFAULT 'all' CHECK (channel_access IN ('all', 'selected')),
  channel_ids    integer[] NOT NULL DEFAULT '{}',
  -- The e-mailed link's token, as its SHA-256; a resend replaces it, so the old link dies.
  token_hash     bytea NOT NULL UNIQUE,
  invited_by     integer REFERENCES users (id) ON DELETE SET NULL,
  mail_status    text NOT NULL DEFAULT 'off' CHECK (mail_status IN ('off', 'sent', 'failed')),
  sent_at        timestamptz,
  expires_at     timestamptz NOT NULL,
  accepted_at    timestamptz,
  accepted_by    integer REFERENCES users (id) ON DELETE SET NULL,
  cancelled_at   timestamptz,
  created_at     timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX invitations_open_key ON invitations (workspace_id, lower(email))
  WHERE accepted_at IS NULL AND cancelled_at IS NULL;
CREATE INDEX invitations_email_idx ON invitations (lower(email))
  WHERE accepted_at IS NULL AND cancelled_at IS NULL;
CREATE INDEX invitations_role_idx ON invitations (role_id) WHERE accepted_at IS NULL AND cancelled_at IS NULL;

-- Ownership transfers (spec 1 §3): at most one pending request per workspace.
CREATE TABLE ownership_transfers (
  id            integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  workspace_id  integer NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  from_user_id  integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  to_user_id    integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  -- Whether the previous Owner stays as a member, and with which role and teams.
  stay          boolean NOT NULL DEFAULT false,
  stay_role_id  integer REFERENCES roles (id) ON DELETE SET NULL,
  stay_team_ids integer[] NOT NULL DEFAULT '{}',
  status        text NOT NULL DEFAULT 'pending'
                CHECK (status IN ('pending', 'cancelled', 'accepted', 'declined')),
  created_at    timestamptz NOT NULL DEFAULT now(),
  decided_at    timestamptz
);
CREATE UNIQUE INDEX ownership_transfers_pending_key ON ownership_transfers (workspace_id) WHERE status = 'pending';
CREATE INDEX ownership_transfers_recipient_idx ON ownership_transfers (to_user_id) WHERE status = 'pending';
