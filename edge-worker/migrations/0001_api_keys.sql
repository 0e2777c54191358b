-- API keys: only the SHA-256 digest of each key is stored, never the key.
CREATE TABLE IF NOT EXISTS api_keys (
  id          TEXT PRIMARY KEY,
  digest      TEXT NOT NULL UNIQUE,
  kind        TEXT NOT NULL CHECK (kind IN ('sandbox', 'live')),
  tier        TEXT NOT NULL CHECK (tier IN ('sandbox', 'partner', 'enterprise')),
  daily_limit INTEGER NOT NULL CHECK (daily_limit >= 0),
  issued_at   TEXT NOT NULL,
  expires_at  TEXT,
  revoked_at  TEXT,
  origins     TEXT NOT NULL DEFAULT '[]',
  label       TEXT NOT NULL DEFAULT ''
);
