-- Server keys by address (docs/PORTAL.md, "Keys"): the IPv4 and IPv6 ranges (CIDR,
-- a JSON array) a key may be used from; NULL or empty for a key with no such
-- restriction.
ALTER TABLE api_keys ADD COLUMN ip_ranges TEXT;
