-- Keys that partners make in the portal (docs/PORTAL.md): whose key it is, which APIs
-- it may call (a JSON array of "prediction" and "router"; keys issued before this
-- migration may call both), and the key that replaced it when it was rolled.
ALTER TABLE api_keys ADD COLUMN partner_id TEXT REFERENCES partners (id);
ALTER TABLE api_keys ADD COLUMN apis TEXT NOT NULL DEFAULT '["prediction","router"]';
ALTER TABLE api_keys ADD COLUMN rolled_to TEXT;
CREATE INDEX IF NOT EXISTS api_keys_by_partner ON api_keys (partner_id);
