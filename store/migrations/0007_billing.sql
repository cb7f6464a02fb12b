-- Billing (spec 1 §4.3) and custom plan requests (§4.5). Decisions: docs/decisions-admin.md.

ALTER TABLE workspaces
  -- Billing profile copied onto each new invoice (name, email, company, address, tax_id, phone).
  ADD COLUMN billing_profile  jsonb NOT NULL DEFAULT '{}'::jsonb,
  -- Which channels and members stay active when the workspace moves to Free
  -- ({channel_ids, member_ids, chosen_at, chosen_by}); null = the oldest ones.
  ADD COLUMN downgrade_choice jsonb;

-- A channel left out of the Free plan's quota after a downgrade: kept with its settings and
-- conversations, but not active until the workspace pays again (or it is chosen to stay).
ALTER TABLE channels ADD COLUMN suspended_at timestamptz;

CREATE TABLE invoices (
  id           integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  workspace_id integer NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  number       text NOT NULL UNIQUE,
  kind         text NOT NULL DEFAULT 'upgrade' CHECK (kind IN ('upgrade')),
  plan         text NOT NULL CHECK (plan IN ('pro')),
  months       integer NOT NULL CHECK (months BETWEEN 1 AND 24),
  currency     text NOT NULL DEFAULT 'IDR',
  subtotal     bigint NOT NULL CHECK (subtotal >= 0),
  tax          bigint NOT NULL CHECK (tax >= 0),
  total        bigint NOT NULL CHECK (total >= 0),
  status       text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'paid', 'void')),
  profile      jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_by   integer REFERENCES users (id) ON DELETE SET NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  due_at       timestamptz NOT NULL,
  paid_at      timestamptz,
  -- The paid period, set when the payment arrives.
  period_start timestamptz,
  period_end   timestamptz
);
CREATE INDEX invoices_workspace_idx ON invoices (workspace_id, created_at DESC, id DESC);
-- At most one open upgrade invoice per workspace: a second upgrade reuses it.
CREATE UNIQUE INDEX invoices_open_upgrade_key ON invoices (workspace_id) WHERE status = 'open' AND kind = 'upgrade';

-- Checkouts created at the payment provider for an invoice.
CREATE TABLE payment_attempts (
  id           integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  invoice_id   integer NOT NULL REFERENCES invoices (id) ON DELETE CASCADE,
  provider     text NOT NULL,
  external_id  text NOT NULL,
  checkout_url text NOT NULL,
  amount       bigint NOT NULL,
  status       text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'paid', 'failed', 'expired')),
  expires_at   timestamptz NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now(),
  UNIQUE (provider, external_id)
);
CREATE INDEX payment_attempts_invoice_idx ON payment_attempts (invoice_id, id DESC);

-- The local payment provider's own book (connectors/payments/PaymentProviderLocal.ts): what a
-- real provider would keep on its side. The operator CLI or a signed callback marks it paid.
CREATE TABLE payment_local_checkouts (
  external_id text PRIMARY KEY,
  reference   text NOT NULL,
  amount      bigint NOT NULL,
  currency    text NOT NULL,
  description text NOT NULL,
  status      text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'paid', 'failed')),
  expires_at  timestamptz NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  paid_at     timestamptz
);

-- Custom plan requests from the public site.
CREATE TABLE plan_requests (
  id         integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  name       text NOT NULL,
  email      text NOT NULL,
  company    text NOT NULL DEFAULT '',
  phone      text NOT NULL DEFAULT '',
  message    text NOT NULL,
  channels   integer,
  agents     integer,
  locale     text NOT NULL DEFAULT 'en',
  ip         text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX plan_requests_ip_idx ON plan_requests (ip, created_at);
CREATE INDEX plan_requests_email_idx ON plan_requests (lower(email), created_at);
