-- Sessions that outlive what began them (security review).

-- The passkey a session began with: deleting the passkey ends its sessions. They are ended
-- explicitly in the delete's statement (store/passkeys.ts remove); SET NULL only lets the passkey
-- row go while the ended sessions stay on record.
ALTER TABLE sessions ADD COLUMN passkey_id integer REFERENCES passkeys (id) ON DELETE SET NULL;
CREATE INDEX sessions_passkey_idx ON sessions (passkey_id) WHERE passkey_id IS NOT NULL;

-- The address an e-mailed link was asked from (null for the operator CLI's): the hourly cap
-- counts per person and address, so a stranger's requests cannot use up the person's own.
ALTER TABLE login_links ADD COLUMN requested_from text;
CREATE INDEX login_links_recent_idx ON login_links (user_id, created_at);
