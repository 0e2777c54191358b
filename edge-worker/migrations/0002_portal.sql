-- The partner portal (docs/PORTAL.md): accounts, their passkeys, WebAuthn ceremonies
-- between their two requests, sessions and enrolment links (by the SHA-256 digest of
-- their secret, never the secret) and the append-only audit log.
CREATE TABLE IF NOT EXISTS partners (
  id            TEXT PRIMARY KEY,
  user_handle   TEXT NOT NULL UNIQUE,
  organisation  TEXT NOT NULL,
  email         TEXT NOT NULL,
  intended_use  TEXT NOT NULL,
  status        TEXT NOT NULL CHECK (status IN ('applied', 'approved', 'rejected', 'suspended')),
  role          TEXT NOT NULL CHECK (role IN ('partner', 'operator')),
  -- Set by the operator: the tier of the partner's live keys (sandbox: none yet), and
  -- an enterprise partner's agreed daily limit.
  tier          TEXT NOT NULL DEFAULT 'sandbox' CHECK (tier IN ('sandbox', 'partner', 'enterprise')),
  daily_limit   INTEGER CHECK (daily_limit IS NULL OR daily_limit >= 0),
  created_at    TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS passkeys (
  credential_id TEXT PRIMARY KEY,
  partner_id    TEXT NOT NULL REFERENCES partners (id),
  stored        TEXT NOT NULL,
  created_at    TEXT NOT NULL,
  last_used_at  TEXT
);
CREATE INDEX IF NOT EXISTS passkeys_by_partner ON passkeys (partner_id);

CREATE TABLE IF NOT EXISTS ceremonies (
  id          TEXT PRIMARY KEY,
  kind        TEXT NOT NULL CHECK (kind IN ('application', 'sign_in', 'add_passkey', 'enrolment')),
  state       TEXT NOT NULL,
  pending     TEXT,
  expires_at  TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS sessions (
  digest        TEXT PRIMARY KEY,
  partner_id    TEXT NOT NULL REFERENCES partners (id),
  created_at    TEXT NOT NULL,
  last_seen_at  TEXT NOT NULL,
  ended_at      TEXT
);

-- One-time links that let an account register a passkey without signing in (the
-- operator's first passkey; a partner who lost theirs), made by scripts/operator.mjs.
CREATE TABLE IF NOT EXISTS enrolments (
  digest      TEXT PRIMARY KEY,
  partner_id  TEXT NOT NULL REFERENCES partners (id),
  expires_at  TEXT NOT NULL,
  used_at     TEXT
);

-- Requests to the portal per bucket (an address, an account) and one-minute window,
-- for its rate limits; windows an hour old are dropped as new ones are counted.
CREATE TABLE IF NOT EXISTS portal_requests (
  bucket        TEXT NOT NULL,
  window_start  TEXT NOT NULL,
  count         INTEGER NOT NULL,
  PRIMARY KEY (bucket, window_start)
);

CREATE TABLE IF NOT EXISTS audit_log (
  seq         INTEGER PRIMARY KEY AUTOINCREMENT,
  at          TEXT NOT NULL,
  partner_id  TEXT NOT NULL,
  actor       TEXT NOT NULL,
  action      TEXT NOT NULL,
  subject     TEXT,
  address     TEXT
);
CREATE INDEX IF NOT EXISTS audit_by_partner ON audit_log (partner_id, seq);
-- Append-only: the log's lines cannot be changed or removed.
CREATE TRIGGER IF NOT EXISTS audit_log_no_update BEFORE UPDATE ON audit_log
BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
CREATE TRIGGER IF NOT EXISTS audit_log_no_delete BEFORE DELETE ON audit_log
BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
