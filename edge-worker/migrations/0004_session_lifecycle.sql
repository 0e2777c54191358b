-- Sessions that end with the account's lifecycle (docs/PORTAL.md): the passkey that
-- started each one, so that removing a passkey ends its sessions, and an index to end
-- every session of an account at once (suspension, rejection, "sign out everywhere").
ALTER TABLE sessions ADD COLUMN credential_id TEXT;
CREATE INDEX IF NOT EXISTS sessions_by_partner ON sessions (partner_id, ended_at);
