//! API keys: their form, their digests, what the store holds about them, and the
//! exact 401 answers of the specification.
//!
//! A key is `hexrisk_sandbox_<secret>` or `hexrisk_live_<secret>`, the secret being
//! 32 base62 characters (about 190 bits) from a CSPRNG. The store holds only the
//! SHA-256 digest of the whole key, never the key.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::ip_ranges::IpRange;
use sha2::{Digest, Sha256};

use crate::api::plumbing::error::{ApiError, ErrorCode};

/// The service name in key prefixes.
pub const SERVICE: &str = "hexrisk";

/// Length of the random part of a key.
pub const SECRET_LEN: usize = 32;

/// Characters of the random part shown in `details.key_prefix`.
pub const SHOWN_SECRET_CHARS: usize = 4;

/// Key kind, from its prefix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum KeyKind {
    /// `hexrisk_sandbox_`: sandbox tier, 30-day lifetime, `sandbox_mode: true`.
    Sandbox,
    /// `hexrisk_live_`: limit by tier, no expiry, revocable.
    Live,
}

impl KeyKind {
    /// Both kinds.
    pub const ALL: [Self; 2] = [Self::Sandbox, Self::Live];

    /// The prefix, for example `hexrisk_live_`.
    #[must_use]
    pub const fn prefix(self) -> &'static str {
        match self {
            Self::Sandbox => "hexrisk_sandbox_",
            Self::Live => "hexrisk_live_",
        }
    }

    /// The stored name.
    #[must_use]
    pub const fn code(self) -> &'static str {
        match self {
            Self::Sandbox => "sandbox",
            Self::Live => "live",
        }
    }
}

/// Its wire names, as an enum of strings.
#[cfg(test)]
impl schemars::JsonSchema for KeyKind {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> std::borrow::Cow<'static, str> {
        "KeyKind".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": "string", "enum": Self::ALL.map(Self::code) })
    }
}

/// Access tier. The Worker enforces the daily limit stored with each key
/// ([`KeyRecord::daily_limit`]); `scripts/operator.mjs` sets it from the tier at issue.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Tier {
    /// Sandbox keys.
    Sandbox,
    /// Partner keys.
    Partner,
    /// Enterprise keys, each with the limit agreed for it.
    Enterprise,
}

impl Tier {
    /// Every tier, from the smallest.
    pub const ALL: [Self; 3] = [Self::Sandbox, Self::Partner, Self::Enterprise];

    /// The daily limit of the tier's keys; `None` for enterprise keys, whose limit is
    /// agreed with each partner. `scripts/operator.mjs` has the same limits
    /// (`TIER_LIMITS`), and `tests/api/portal.test.mjs` checks that they agree.
    #[must_use]
    pub const fn default_limit(self) -> Option<u32> {
        match self {
            Self::Sandbox => Some(100),
            Self::Partner => Some(10_000),
            Self::Enterprise => None,
        }
    }

    /// The stored name.
    #[must_use]
    pub const fn code(self) -> &'static str {
        match self {
            Self::Sandbox => "sandbox",
            Self::Partner => "partner",
            Self::Enterprise => "enterprise",
        }
    }

    /// The tier of a stored name.
    #[must_use]
    pub fn parse(code: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.code() == code)
    }
}

/// Its wire names, as an enum of strings.
#[cfg(test)]
impl schemars::JsonSchema for Tier {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Tier".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": "string", "enum": Self::ALL.map(Self::code) })
    }
}

/// An API a key may call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum KeyApi {
    /// The prediction API (`/v1/...`).
    Prediction,
    /// The router API (the origin root).
    Router,
}

impl KeyApi {
    /// Both APIs, in this order.
    pub const ALL: [Self; 2] = [Self::Prediction, Self::Router];

    /// The stored and wire name.
    #[must_use]
    pub const fn code(self) -> &'static str {
        match self {
            Self::Prediction => "prediction",
            Self::Router => "router",
        }
    }

    /// The API of a wire name.
    #[must_use]
    pub fn parse(code: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|a| a.code() == code)
    }
}

/// Its wire names, as an enum of strings.
#[cfg(test)]
impl schemars::JsonSchema for KeyApi {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> std::borrow::Cow<'static, str> {
        "KeyApi".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": "string", "enum": Self::ALL.map(Self::code) })
    }
}

fn both_apis() -> Vec<KeyApi> {
    KeyApi::ALL.to_vec()
}

/// What the key store holds about one key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyRecord {
    /// Stable id (not secret), used to name the key's quota counter.
    pub id: String,
    /// Kind.
    pub kind: KeyKind,
    /// Tier.
    pub tier: Tier,
    /// Requests allowed per UTC day.
    pub daily_limit: u32,
    /// Issue time.
    pub issued_at: DateTime<Utc>,
    /// Expiry (sandbox keys), if any.
    pub expires_at: Option<DateTime<Utc>>,
    /// Revocation time, if revoked.
    pub revoked_at: Option<DateTime<Utc>>,
    /// Browser origins allowed to use the key (router API).
    pub origins: Vec<String>,
    /// The APIs the key may call (both for keys issued before keys had scopes).
    #[serde(default = "both_apis")]
    pub apis: Vec<KeyApi>,
    /// Whether its partner is suspended (every key of the partner stops).
    #[serde(default)]
    pub suspended: bool,
    /// The server addresses it may be used from (`api/access/ip_ranges.rs`); empty: any.
    #[serde(default)]
    pub ip_ranges: Vec<IpRange>,
    /// The account's daily quota the key draws on, with every key of its account
    /// and kind.
    pub account: AccountQuota,
}

/// The daily quota an account's keys of one kind share: what the gate named
/// [`AccountQuota::gate`] counts. A key's own `daily_limit` may be lower; it is
/// never more than the account's.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AccountQuota {
    /// The name of the gate that counts it: `account:<partner id>:<kind>` for the
    /// portal's keys, `key:<key id>` for a key issued outside the portal (an account
    /// of its own).
    pub gate: String,
    /// Requests the account's keys of this kind may make per UTC day, together.
    pub daily_limit: u32,
}

impl AccountQuota {
    /// The quota a key draws on: its partner's (the tier's limit for live keys,
    /// an enterprise partner's agreed limit, the sandbox tier's for sandbox keys),
    /// or the key's own when it has no partner.
    #[must_use]
    pub fn of_key(
        key_id: &str,
        kind: KeyKind,
        key_limit: u32,
        partner: Option<(&str, Tier, Option<u32>)>,
    ) -> Self {
        let Some((partner_id, tier, agreed)) = partner else {
            return Self {
                gate: format!("key:{key_id}"),
                daily_limit: key_limit,
            };
        };
        let daily_limit = match kind {
            KeyKind::Sandbox => Tier::Sandbox.default_limit(),
            KeyKind::Live => tier.default_limit().or(agreed),
        }
        .unwrap_or(key_limit);
        Self {
            gate: format!("account:{partner_id}:{}", kind.code()),
            daily_limit,
        }
    }
}

/// Whether a key neither revoked nor expired by `now` is in force: the one rule of
/// the gate's record ([`KeyRecord::is_usable`]) and the portal's key rows.
#[must_use]
pub fn in_force(
    revoked_at: Option<DateTime<Utc>>,
    expires_at: Option<DateTime<Utc>>,
    now: DateTime<Utc>,
) -> bool {
    revoked_at.is_none_or(|t| t > now) && expires_at.is_none_or(|t| t > now)
}

/// Why a known key may not be used now. Told to whoever presents the key: only its
/// holder can (the key text is its only name), and a holder needs the real reason.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum KeyRefusal {
    /// Its account is suspended (the operator's decision).
    AccountSuspended,
    /// Revoked by its partner or the operator.
    Revoked,
    /// Past its expiry.
    Expired,
}

impl KeyRecord {
    /// Whether the key may be used at `now`: in force, its partner not suspended.
    #[must_use]
    pub fn is_usable(&self, now: DateTime<Utc>) -> bool {
        self.refusal(now).is_none()
    }

    /// Why the key may not be used at `now`, if it may not.
    #[must_use]
    pub fn refusal(&self, now: DateTime<Utc>) -> Option<KeyRefusal> {
        if self.suspended {
            Some(KeyRefusal::AccountSuspended)
        } else if self.revoked_at.is_some_and(|t| t <= now) {
            Some(KeyRefusal::Revoked)
        } else if self.expires_at.is_some_and(|t| t <= now) {
            Some(KeyRefusal::Expired)
        } else {
            None
        }
    }

    /// Whether the key may call `api`.
    #[must_use]
    pub fn may_call(&self, api: KeyApi) -> bool {
        self.apis.contains(&api)
    }
}

/// A key row as the store (D1 table `api_keys`) returns it: text columns.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct KeyRow {
    /// Key id.
    pub id: String,
    /// SHA-256 digest of the key, hex.
    pub digest: String,
    /// `sandbox` or `live`.
    pub kind: String,
    /// `sandbox`, `partner` or `enterprise`.
    pub tier: String,
    /// Daily limit.
    pub daily_limit: u32,
    /// RFC 3339.
    pub issued_at: String,
    /// RFC 3339 or null.
    pub expires_at: Option<String>,
    /// RFC 3339 or null.
    pub revoked_at: Option<String>,
    /// JSON array of origins.
    pub origins: String,
    /// JSON array of the APIs it may call (absent from queries that do not ask).
    #[serde(default)]
    pub apis: Option<String>,
    /// Its partner's status, for keys made in the portal.
    #[serde(default)]
    pub partner_status: Option<String>,
    /// JSON array of the server address ranges it may be used from, if any.
    #[serde(default)]
    pub ip_ranges: Option<String>,
    /// Its partner, for keys made in the portal.
    #[serde(default)]
    pub partner_id: Option<String>,
    /// Its partner's tier.
    #[serde(default)]
    pub partner_tier: Option<String>,
    /// Its partner's agreed daily limit (enterprise).
    #[serde(default)]
    pub partner_limit: Option<u32>,
}

/// The columns of a [`KeyRow`] from `api_keys k LEFT JOIN partners p`, for the
/// Worker's queries (`glue/`).
pub const KEY_ROW_COLUMNS: &str = "k.id, k.digest, k.kind, k.tier, k.daily_limit, k.issued_at, \
     k.expires_at, k.revoked_at, k.origins, k.apis, k.ip_ranges, p.status AS partner_status, \
     k.partner_id, p.tier AS partner_tier, p.daily_limit AS partner_limit";

/// The tables a [`KEY_ROW_COLUMNS`] query reads.
pub const KEY_ROW_TABLES: &str = "api_keys k LEFT JOIN partners p ON p.id = k.partner_id";

impl KeyRow {
    /// The record, if the row is well formed and its digest is `digest`
    /// (compared in constant time).
    #[must_use]
    pub fn into_record(self, digest: &str) -> Option<KeyRecord> {
        if !digests_equal(&self.digest, digest) {
            return None;
        }
        let time = |t: &str| t.parse::<DateTime<Utc>>().ok();
        let optional = |t: &Option<String>| match t {
            None => Some(None),
            Some(text) => time(text).map(Some),
        };
        let kind: KeyKind = serde_json::from_value(serde_json::Value::String(self.kind)).ok()?;
        let partner = match (&self.partner_id, &self.partner_tier) {
            (None, _) => None,
            (Some(id), Some(tier)) => Some((id.as_str(), Tier::parse(tier)?, self.partner_limit)),
            // A key whose partner row is gone draws on nothing it can name: refused.
            (Some(_), None) => return None,
        };
        let account = AccountQuota::of_key(&self.id, kind, self.daily_limit, partner);
        Some(KeyRecord {
            kind,
            tier: serde_json::from_value(serde_json::Value::String(self.tier)).ok()?,
            daily_limit: self.daily_limit,
            issued_at: time(&self.issued_at)?,
            expires_at: optional(&self.expires_at)?,
            revoked_at: optional(&self.revoked_at)?,
            origins: serde_json::from_str(&self.origins).ok()?,
            apis: match &self.apis {
                None => both_apis(),
                Some(text) => serde_json::from_str(text).ok()?,
            },
            suspended: self.partner_status.as_deref() == Some("suspended"),
            // A list that does not read refuses the key rather than lifting the
            // restriction.
            ip_ranges: match &self.ip_ranges {
                None => Vec::new(),
                Some(text) => serde_json::from_str(text).ok()?,
            },
            account,
            id: self.id,
        })
    }
}

/// A key as presented, checked for form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PresentedKey {
    text: String,
    kind: Option<KeyKind>,
}

impl PresentedKey {
    /// Wraps the submitted text.
    #[must_use]
    pub fn new(text: &str) -> Self {
        let kind = [KeyKind::Sandbox, KeyKind::Live].into_iter().find(|k| {
            text.strip_prefix(k.prefix()).is_some_and(|secret| {
                secret.len() == SECRET_LEN && secret.bytes().all(|b| b.is_ascii_alphanumeric())
            })
        });
        Self {
            text: text.to_owned(),
            kind,
        }
    }

    /// The kind, if the key has a valid form.
    #[must_use]
    pub fn kind(&self) -> Option<KeyKind> {
        self.kind
    }

    /// SHA-256 of the key, lower-case hex: what the store is keyed by.
    #[must_use]
    pub fn digest(&self) -> String {
        hex::encode(Sha256::digest(self.text.as_bytes()))
    }

    /// The leading part safe to show: the known prefix and a few characters of the
    /// secret, or for malformed text at most 8 characters, then `...`.
    #[must_use]
    pub fn shown_prefix(&self) -> String {
        let visible = match self.kind {
            Some(kind) => kind.prefix().len() + SHOWN_SECRET_CHARS,
            None => 8,
        };
        let head: String = self.text.chars().take(visible).collect();
        format!("{head}...")
    }
}

/// Extracts the key from an `Authorization` header value.
///
/// # Errors
/// The missing-key 401 when there is no usable `Bearer` credential.
pub fn bearer(header: Option<&str>) -> Result<PresentedKey, ApiError> {
    let token = header
        .and_then(|h| {
            let (scheme, rest) = h.trim().split_once(' ')?;
            scheme.eq_ignore_ascii_case("bearer").then(|| rest.trim())
        })
        .filter(|t| !t.is_empty());
    token.map(PresentedKey::new).ok_or_else(missing_key)
}

/// The router API's key header.
pub const X_API_KEY: &str = "x-api-key";

/// Reads the router API's `X-API-Key` header.
///
/// # Errors
/// The missing-key 401 when the header is absent or empty.
pub fn x_api_key(header: Option<&str>) -> Result<PresentedKey, ApiError> {
    header
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(PresentedKey::new)
        .ok_or_else(|| {
            ApiError::new(ErrorCode::Unauthorized, "API key is required").with(
                "suggestion",
                "Send your key as 'X-API-Key: <API_KEY>'. Keys are issued to approved partners.",
            )
        })
}

/// 401 for a request without a key.
#[must_use]
pub fn missing_key() -> ApiError {
    ApiError::new(ErrorCode::Unauthorized, "API key is required").with(
        "suggestion",
        "Send your key as 'Authorization: Bearer <API_KEY>'. Keys are issued to approved partners.",
    )
}

/// 401 for a key the store does not know. The body is the same whatever the text,
/// so it cannot be used to probe keys.
#[must_use]
pub fn invalid_key(key: &PresentedKey) -> ApiError {
    ApiError::new(ErrorCode::Unauthorized, "API key is invalid")
        .with("key_prefix", key.shown_prefix())
        .with(
            "suggestion",
            "Check the key for typos; sandbox keys expire 30 days after issue. Ask your hexrisk contact for a new key.",
        )
}

/// The answer to a known key that may not be used now, saying why
/// ([`KeyRefusal`]): 401 for a revoked or expired key, 403 for a suspended account
/// (the key is right; the account may not use it).
#[must_use]
pub fn refused_key(key: &PresentedKey, refusal: KeyRefusal) -> ApiError {
    let (code, message, reason, suggestion) = match refusal {
        KeyRefusal::Revoked => (
            ErrorCode::Unauthorized,
            "API key was revoked",
            "revoked",
            "Make a new key in the partner portal, or ask your hexrisk contact.",
        ),
        KeyRefusal::Expired => (
            ErrorCode::Unauthorized,
            "API key has expired",
            "expired",
            "Sandbox keys last 30 days from the first of their line. Make a new key in the partner portal.",
        ),
        KeyRefusal::AccountSuspended => (
            ErrorCode::Forbidden,
            "the account of this API key is suspended",
            "account_suspended",
            "Its keys work again if the operator approves the account again; contact your hexrisk contact.",
        ),
    };
    ApiError::new(code, message)
        .with("reason", reason)
        .with("key_prefix", key.shown_prefix())
        .with("suggestion", suggestion)
}

/// 403 for a request from a server address the key does not list.
#[must_use]
pub fn address_refused(address: &str) -> ApiError {
    ApiError::new(
        ErrorCode::Forbidden,
        "this address is not on the API key's list of server addresses",
    )
    .with("reason", "address_not_allowed")
    .with("address", address)
    .with(
        "suggestion",
        "Add the address's range to the key in the partner portal, or call from a listed server.",
    )
}

/// 403 for a key that may not call this API (its scopes, set in the partner portal).
#[must_use]
pub fn api_refused(api: KeyApi) -> ApiError {
    ApiError::new(
        ErrorCode::Forbidden,
        format!("this API key may not call the {} API", api.code()),
    )
    .with("api", api.code())
    .with(
        "suggestion",
        "Use a key made for this API, or allow it on the key in the partner portal.",
    )
}

/// Constant-time comparison of two digests.
#[must_use]
pub fn digests_equal(a: &str, b: &str) -> bool {
    use subtle::ConstantTimeEq;
    a.len() == b.len() && bool::from(a.as_bytes().ct_eq(b.as_bytes()))
}

#[cfg(test)]
mod tests;
