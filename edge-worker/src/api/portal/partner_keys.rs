//! Keys made by partners: list, create, roll and revoke (docs/PORTAL.md, "Keys").
//!
//! A key is shown once, in the answer that makes it; the store keeps its SHA-256
//! digest. Approved partners may make sandbox keys, and live keys once the operator
//! has set their tier. Each key names the APIs it may call and, for the router API,
//! the browser origins that may use it. Rolling makes a new key with the same
//! settings and lets the old one run for a grace period of the partner's choosing;
//! revoking stops it. Both reach the keys' gates within the record time to live.
//!
//! The account holds at most [`MAX_KEYS`] keys in force, a rolled key in its grace
//! period included: a roll is a creation, and the store counts and inserts in one
//! statement. A sandbox key's expiry is set when the first of its line is made and
//! passes unchanged to each key rolled from it. Making and rolling need a recent
//! passkey ceremony ([`accounts::signed_in_recently`]).

use chrono::{DateTime, TimeDelta, Utc};
use serde::Serialize;
use serde_json::{Map, Value, json};

use super::accounts;
use super::handler_io::{Answer, Caller};
use super::origins::{self, MAX_ORIGINS};
use super::random;
use crate::api::access::ip_ranges::{IpRange, MAX_RANGES};
use crate::api::access::keys::{KeyApi, KeyKind, PresentedKey, SECRET_LEN, Tier};
use crate::api::backend::Backend;
use crate::api::partners::store::{KeyCap, NewKey, Partner, PartnerKey, PartnerStatus};
use crate::api::{ApiError, ErrorCode};

/// A sandbox key's lifetime (as `scripts/operator.mjs` issues them).
pub const SANDBOX_LIFETIME: TimeDelta = TimeDelta::days(30);
/// The furthest expiry a partner may choose for a live key.
pub const MAX_LIFETIME: TimeDelta = TimeDelta::days(366);
/// The longest grace period of a rolled key.
pub const MAX_GRACE: TimeDelta = TimeDelta::days(7);
/// Most keys a partner may hold usable at once.
pub const MAX_KEYS: usize = 20;
/// Longest label, in characters.
pub const MAX_LABEL: usize = 100;

fn invalid(field: &str, message: impl Into<String>) -> ApiError {
    ApiError::new(ErrorCode::InvalidRequest, message).with("field", field)
}

/// The settings of a key to make, checked: its label, its kind, the APIs it may
/// call and who may use it.
#[derive(Debug)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct KeySettings {
    /// The partner's name for it, trimmed, without control or format characters;
    /// none: no label.
    #[cfg_attr(test, schemars(with = "Option<String>", length(max = MAX_LABEL)))]
    pub(super) label: String,
    /// Sandbox (the sandbox tier's limit, 30 days at most) or live (the account's
    /// tier, which the operator sets).
    pub(super) kind: KeyKind,
    /// The APIs it may call, at least one (a name listed twice counts once).
    #[cfg_attr(test, schemars(length(min = 1)))]
    pub(super) apis: Vec<KeyApi>,
    /// Browser origins that may use it with the router API (`https://host[:port]`,
    /// or `http://` for localhost and 127.0.0.1), each written one way; none: any
    /// origin. Every refused origin is answered with its reason.
    #[cfg_attr(
        test,
        schemars(
            with = "Option<Vec<String>>",
            length(max = MAX_ORIGINS),
            inner(length(max = origins::MAX_ORIGIN))
        )
    )]
    pub(super) origins: Vec<String>,
    /// When it stops: in the future and within a year; a sandbox key stops after
    /// 30 days at most. None: a live key does not expire.
    #[cfg_attr(
        test,
        schemars(with = "Option<String>", extend("format" = "date-time"))
    )]
    pub(super) expires_at: Option<DateTime<Utc>>,
    /// Server addresses the key may be used from: IPv4 or IPv6 addresses or CIDR ranges; none: any address
    #[cfg_attr(
        test,
        schemars(with = "Option<Vec<IpRange>>", length(max = MAX_RANGES))
    )]
    pub(super) ip_ranges: Vec<IpRange>,
}

fn parse_apis(body: &Map<String, Value>) -> Result<Vec<KeyApi>, ApiError> {
    let listed = body.get("apis").and_then(Value::as_array).ok_or_else(|| {
        invalid(
            "apis",
            "`apis` must list \"prediction\", \"router\" or both",
        )
    })?;
    let mut apis = Vec::new();
    for item in listed {
        let api = item
            .as_str()
            .and_then(KeyApi::parse)
            .ok_or_else(|| invalid("apis", "`apis` may hold \"prediction\" and \"router\" only"))?;
        if !apis.contains(&api) {
            apis.push(api);
        }
    }
    if apis.is_empty() {
        return Err(invalid("apis", "`apis` must name at least one API"));
    }
    Ok(apis)
}

/// A list field of a key's restrictions, as [`parse_list`] reads it.
struct ListField {
    /// The body's field (`origins`, `ip_ranges`).
    field: &'static str,
    /// What one item is, in messages (`origins`, `ranges`).
    items: &'static str,
    /// Most items.
    max: usize,
    /// The name of an item in a refusal (`origin`, `range`), and the longest text
    /// of it echoed back.
    echo: (&'static str, usize),
}

/// Each item of `list`'s field parsed into its one written form by `parse`
/// (`Err((reason code, message))`), duplicates dropped; every refusal at once, with
/// its reason, in `details.refused_<items>`, and then nothing is made. An absent or
/// null field is an empty list.
fn parse_list<T: PartialEq>(
    body: &Map<String, Value>,
    list: &ListField,
    parse: impl Fn(&str) -> Result<T, (&'static str, String)>,
) -> Result<Vec<T>, ApiError> {
    let ListField {
        field,
        items,
        max,
        echo: (name, longest),
    } = *list;
    let Some(listed) = body.get(field).filter(|v| !v.is_null()) else {
        return Ok(Vec::new());
    };
    let listed = listed
        .as_array()
        .ok_or_else(|| invalid(field, format!("`{field}` must be a list of {items}")))?;
    if listed.len() > max {
        return Err(invalid(field, format!("at most {max} {items}")).with("limit", max));
    }
    let (mut accepted, mut refused) = (Vec::new(), Vec::new());
    for item in listed {
        let text = item.as_str().unwrap_or_default();
        match parse(text) {
            Ok(value) if !accepted.contains(&value) => accepted.push(value),
            Ok(_) => {}
            Err((reason, message)) => refused.push(json!({
                name: text.chars().take(longest).collect::<String>(),
                "reason": reason,
                "message": message,
            })),
        }
    }
    if refused.is_empty() {
        Ok(accepted)
    } else {
        Err(invalid(
            field,
            format!("some {items} were refused; nothing was made"),
        )
        .with(&format!("refused_{items}"), refused))
    }
}

/// Browser origins, each written one way (`portal/origins.rs`).
const ORIGINS: ListField = ListField {
    field: "origins",
    items: "origins",
    max: MAX_ORIGINS,
    echo: ("origin", origins::MAX_ORIGIN),
};

/// Server address ranges, each written one way (`api/access/ip_ranges.rs`).
const IP_RANGES: ListField = ListField {
    field: "ip_ranges",
    items: "ranges",
    max: MAX_RANGES,
    echo: ("range", 64),
};

impl KeySettings {
    /// The settings in a request body at `now`.
    ///
    /// # Errors
    /// `INVALID_REQUEST` naming the first field refused (every refused origin with
    /// its reason).
    pub fn parse(body: &Map<String, Value>, now: DateTime<Utc>) -> Result<Self, ApiError> {
        let label = match body.get("label") {
            None | Some(Value::Null) => String::new(),
            Some(Value::String(text)) => text.trim().to_owned(),
            Some(_) => return Err(invalid("label", "`label` must be text")),
        };
        if label.chars().count() > MAX_LABEL || super::text::has_hidden(&label) {
            return Err(invalid(
                "label",
                format!(
                    "`label` must be at most {MAX_LABEL} characters, without control or \
                     format characters"
                ),
            )
            .with("limit", MAX_LABEL));
        }
        let kind = match body.get("kind").and_then(Value::as_str) {
            Some("sandbox") => KeyKind::Sandbox,
            Some("live") => KeyKind::Live,
            _ => return Err(invalid("kind", "`kind` must be \"sandbox\" or \"live\"")),
        };
        let expires_at = match body.get("expires_at") {
            None | Some(Value::Null) => None,
            Some(value) => {
                let at = value
                    .as_str()
                    .and_then(|t| t.parse::<DateTime<Utc>>().ok())
                    .ok_or_else(|| {
                        invalid("expires_at", "`expires_at` must be an RFC 3339 time")
                    })?;
                if at <= now || at > now + MAX_LIFETIME {
                    return Err(invalid(
                        "expires_at",
                        "`expires_at` must be in the future and within a year",
                    )
                    .with("latest", (now + MAX_LIFETIME).to_rfc3339()));
                }
                Some(at)
            }
        };
        Ok(Self {
            label,
            kind,
            apis: parse_apis(body)?,
            origins: parse_list(body, &ORIGINS, |text| {
                origins::normalise(text).map_err(|r| (r.code(), r.to_string()))
            })?,
            expires_at,
            ip_ranges: parse_list(body, &IP_RANGES, |text| {
                text.parse::<IpRange>()
                    .map_err(|r| (r.code(), r.to_string()))
            })?,
        })
    }
}

/// The tier and daily limit the partner's keys of `kind` get, or why it may not make
/// one.
fn tier_for(partner: &Partner, kind: KeyKind) -> Result<(Tier, u32), ApiError> {
    let forbidden = |message: &str| ApiError::new(ErrorCode::Forbidden, message.to_owned());
    match partner.status {
        PartnerStatus::Approved => {}
        PartnerStatus::Applied => {
            return Err(forbidden("your application is waiting for the operator"));
        }
        PartnerStatus::Rejected | PartnerStatus::Suspended => {
            return Err(forbidden("this account may not make keys"));
        }
    }
    match (kind, partner.tier) {
        (KeyKind::Sandbox, _) => Ok((Tier::Sandbox, Tier::Sandbox.default_limit().unwrap_or(0))),
        (KeyKind::Live, Tier::Sandbox) => Err(forbidden(
            "live keys need the partner or enterprise tier, which the operator sets",
        )),
        (KeyKind::Live, tier) => tier
            .default_limit()
            .or(partner.daily_limit)
            .map(|limit| (tier, limit))
            .ok_or_else(|| {
                forbidden("no daily limit has been agreed for this enterprise account yet")
            }),
    }
}

/// A new key of `settings` for `partner`: its text (shown once) and what is stored.
fn make_key<B: Backend>(
    backend: &B,
    partner: &Partner,
    settings: &KeySettings,
    (tier, daily_limit): (Tier, u32),
    now: DateTime<Utc>,
) -> Result<(String, NewKey), ApiError> {
    let secret = random::base62(SECRET_LEN).map_err(super::randomness(backend))?;
    let text = format!("{}{secret}", settings.kind.prefix());
    let id = hex::encode(random::bytes::<16>().map_err(super::randomness(backend))?);
    let sandbox_end = (settings.kind == KeyKind::Sandbox).then(|| now + SANDBOX_LIFETIME);
    let expires_at = match (settings.expires_at, sandbox_end) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    };
    let key = PartnerKey {
        id,
        digest: PresentedKey::new(&text).digest(),
        label: settings.label.clone(),
        kind: settings.kind,
        tier,
        daily_limit,
        apis: settings.apis.clone(),
        origins: settings.origins.clone(),
        ip_ranges: settings.ip_ranges.clone(),
        issued_at: now,
        expires_at,
        revoked_at: None,
        rolled_to: None,
    };
    Ok((
        text,
        NewKey {
            key,
            partner_id: partner.id.clone(),
        },
    ))
}

/// A key as the page lists it (never the key itself, which only the answer that
/// makes it shows).
#[derive(Debug, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct Key {
    /// Its id (32 hex digits; not secret).
    pub id: String,
    /// The partner's name for it.
    pub label: String,
    /// Sandbox or live.
    pub kind: KeyKind,
    /// Its tier.
    pub tier: Tier,
    /// Requests a UTC day.
    pub daily_limit: u32,
    /// The APIs it may call.
    pub apis: Vec<KeyApi>,
    /// Browser origins that may use it (router API); none: any origin.
    pub origins: Vec<String>,
    /// Server address ranges it may be used from (CIDR); none: any address.
    pub ip_ranges: Vec<IpRange>,
    /// What limits who may use it, as the page labels it.
    pub restriction: Restriction,
    /// When it was made.
    #[cfg_attr(test, schemars(with = "String", extend("format" = "date-time")))]
    pub issued_at: DateTime<Utc>,
    /// When it stops, if it does.
    #[cfg_attr(
        test,
        schemars(with = "Option<String>", extend("format" = "date-time"))
    )]
    pub expires_at: Option<DateTime<Utc>>,
    /// When it was revoked, if it was.
    #[cfg_attr(
        test,
        schemars(with = "Option<String>", extend("format" = "date-time"))
    )]
    pub revoked_at: Option<DateTime<Utc>>,
    /// The id of the key that replaced it, if it was rolled.
    pub rolled_to: Option<String>,
    /// Where it stands now.
    pub state: KeyState,
}

/// What limits who may use a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Restriction {
    /// Neither browser origins nor server addresses.
    Unrestricted,
    /// Browser origins only.
    BrowserOrigins,
    /// Server addresses only.
    ServerAddresses,
    /// Both.
    OriginsAndAddresses,
}

impl Restriction {
    /// Every restriction, in the order the page explains them.
    pub const ALL: [Self; 4] = [
        Self::Unrestricted,
        Self::BrowserOrigins,
        Self::ServerAddresses,
        Self::OriginsAndAddresses,
    ];

    /// The restriction of a key with `origins` and `ip_ranges`.
    #[must_use]
    pub fn of(origins: &[String], ip_ranges: &[IpRange]) -> Self {
        match (origins.is_empty(), ip_ranges.is_empty()) {
            (true, true) => Self::Unrestricted,
            (false, true) => Self::BrowserOrigins,
            (true, false) => Self::ServerAddresses,
            (false, false) => Self::OriginsAndAddresses,
        }
    }

    /// The wire name.
    #[must_use]
    pub const fn code(self) -> &'static str {
        match self {
            Self::Unrestricted => "unrestricted",
            Self::BrowserOrigins => "browser_origins",
            Self::ServerAddresses => "server_addresses",
            Self::OriginsAndAddresses => "origins_and_addresses",
        }
    }
}

impl Serialize for Restriction {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.code())
    }
}

/// Its wire names, as an enum of strings.
#[cfg(test)]
impl schemars::JsonSchema for Restriction {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Restriction".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": "string", "enum": Self::ALL.map(Self::code) })
    }
}

/// Where a key stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyState {
    /// In force.
    Active,
    /// Replaced by a roll: in force until its grace period ends.
    Rolled,
    /// Revoked.
    Revoked,
    /// Past its expiry.
    Expired,
}

impl KeyState {
    /// Every state.
    pub const ALL: [Self; 4] = [Self::Active, Self::Rolled, Self::Revoked, Self::Expired];

    /// The state of `key` at `now`: revoked or expired first, then rolled.
    #[must_use]
    pub fn of(key: &PartnerKey, now: DateTime<Utc>) -> Self {
        if key.revoked_at.is_some_and(|t| t <= now) {
            Self::Revoked
        } else if key.expires_at.is_some_and(|t| t <= now) {
            Self::Expired
        } else if key.rolled_to.is_some() {
            Self::Rolled
        } else {
            Self::Active
        }
    }

    /// The wire name.
    #[must_use]
    pub const fn code(self) -> &'static str {
        match self {
            Self::Active => "active",
            Self::Rolled => "rolled",
            Self::Revoked => "revoked",
            Self::Expired => "expired",
        }
    }
}

impl Serialize for KeyState {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.code())
    }
}

/// Its wire names, as an enum of strings.
#[cfg(test)]
impl schemars::JsonSchema for KeyState {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> std::borrow::Cow<'static, str> {
        "KeyState".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": "string", "enum": Self::ALL.map(Self::code) })
    }
}

impl Key {
    /// `key` as the page lists it at `now`.
    #[must_use]
    pub fn of(key: &PartnerKey, now: DateTime<Utc>) -> Self {
        Self {
            id: key.id.clone(),
            label: key.label.clone(),
            kind: key.kind,
            tier: key.tier,
            daily_limit: key.daily_limit,
            apis: key.apis.clone(),
            origins: key.origins.clone(),
            ip_ranges: key.ip_ranges.clone(),
            restriction: Restriction::of(&key.origins, &key.ip_ranges),
            issued_at: key.issued_at,
            expires_at: key.expires_at,
            revoked_at: key.revoked_at,
            rolled_to: key.rolled_to.clone(),
            state: KeyState::of(key, now),
        }
    }
}

/// A key just made, shown once: its record, the key itself, and a `curl` line for
/// each API it may call.
#[derive(Debug, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema), schemars(rename = "NewKey"))]
pub struct ShownKey {
    /// The key's record.
    #[serde(flatten)]
    pub record: Key,
    /// The key: shown here once, never again.
    pub key: String,
    /// A `curl` command line calling each API the key may call.
    pub curl: Vec<String>,
    /// The key a roll replaces: it works until `expires_at`, then stops. Only in
    /// a roll's answer.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, schemars(with = "Replaced"))]
    pub replaces: Option<Replaced>,
}

/// The key a roll replaced.
#[derive(Debug, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema), schemars(inline))]
pub struct Replaced {
    /// Its id.
    pub id: String,
    /// When it stops: the end of the grace period, or its own expiry if sooner.
    #[cfg_attr(test, schemars(with = "String", extend("format" = "date-time")))]
    pub expires_at: DateTime<Utc>,
}

/// The answer that shows a new key once: its record, the key and a `curl` line
/// for each API it may call.
fn shown_once(text: &str, key: &PartnerKey, origin: &str, now: DateTime<Utc>) -> ShownKey {
    ShownKey {
        record: Key::of(key, now),
        key: text.to_owned(),
        curl: key
            .apis
            .iter()
            .map(|api| match api {
                KeyApi::Prediction => {
                    format!("curl -H 'Authorization: Bearer {text}' {origin}/v1/cities")
                }
                KeyApi::Router => format!("curl -H 'X-API-Key: {text}' {origin}/route/config"),
            })
            .collect(),
        replaces: None,
    }
}

/// The account's keys.
#[derive(Debug, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema), schemars(inline))]
pub struct Keys {
    /// Newest first.
    pub keys: Vec<Key>,
}

/// A key revoked.
#[derive(Debug, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema), schemars(inline))]
pub struct Revoked {
    /// Its id.
    pub revoked: String,
    /// Within how many seconds its gates refuse it (the record time to live).
    pub refused_within_seconds: i64,
}

/// How to roll a key.
#[derive(Debug)]
#[cfg_attr(test, derive(schemars::JsonSchema), schemars(inline))]
pub struct Roll {
    /// Hours the old key keeps working after the roll, 0 (it stops now) to 168.
    #[cfg_attr(test, schemars(range(max = MAX_GRACE.num_hours())))]
    pub grace_hours: u32,
}

impl Roll {
    /// The roll a request's body asks for.
    ///
    /// # Errors
    /// `INVALID_REQUEST` naming `grace_hours` when it is not a whole number from 0
    /// to 168.
    pub fn parse(body: &Map<String, Value>) -> Result<Self, ApiError> {
        body.get("grace_hours")
            .and_then(Value::as_u64)
            .filter(|h| i64::try_from(*h).is_ok_and(|h| h <= MAX_GRACE.num_hours()))
            .and_then(|h| u32::try_from(h).ok())
            .map(|grace_hours| Self { grace_hours })
            .ok_or_else(|| {
                invalid(
                    "grace_hours",
                    format!(
                        "`grace_hours` must be a whole number from 0 to {}",
                        MAX_GRACE.num_hours()
                    ),
                )
            })
    }
}

/// `GET /portal/api/keys`: the partner's keys, newest first.
///
/// # Errors
/// `UNAUTHORIZED` without a session; `INTERNAL_ERROR` when storage fails.
pub async fn list<B: Backend>(backend: &B, caller: &Caller<'_>) -> Result<Answer, ApiError> {
    let (_, partner) = accounts::signed_in(backend, caller).await?;
    let keys = backend
        .keys_of(&partner.id)
        .await
        .map_err(super::stored(backend))?;
    Ok(Answer::ok(&Keys {
        keys: keys.iter().map(|k| Key::of(k, caller.now)).collect(),
    }))
}

/// `POST /portal/api/keys`: makes a key and shows it once.
///
/// # Errors
/// `INVALID_REQUEST` for bad settings (every refused origin with its reason) or
/// too many keys; `FORBIDDEN` when the account may not make this kind of key;
/// `UNAUTHORIZED` without a session; `INTERNAL_ERROR` when storage fails.
pub async fn create<B: Backend>(
    backend: &B,
    body: &Map<String, Value>,
    caller: &Caller<'_>,
    origin: &str,
) -> Result<Answer, ApiError> {
    let (_, partner) = accounts::signed_in_recently(backend, caller).await?;
    let settings = KeySettings::parse(body, caller.now)?;
    let tier = tier_for(&partner, settings.kind)?;
    let (text, new) = make_key(backend, &partner, &settings, tier, caller.now)?;
    let line = accounts::own_entry(&partner.id, ("key_created", Some(&new.key.id)), caller);
    if !backend
        .insert_key(&new, cap(caller.now), &[line])
        .await
        .map_err(super::stored(backend))?
    {
        return Err(at_cap());
    }
    Ok(Answer::created(&shown_once(
        &text, &new.key, origin, caller.now,
    )))
}

fn cap(now: DateTime<Utc>) -> KeyCap {
    KeyCap { max: MAX_KEYS, now }
}

fn at_cap() -> ApiError {
    ApiError::new(
        ErrorCode::InvalidRequest,
        format!(
            "at most {MAX_KEYS} keys in force, rolled keys in their grace period included; \
             revoke one first"
        ),
    )
    .with("limit", MAX_KEYS)
    .with("reason", "key_cap")
}

fn no_such_key(id: &str) -> ApiError {
    ApiError::new(ErrorCode::NotFound, "no such key in this account").with("id", id)
}

/// `POST /portal/api/access/keys/{id}/roll` `{grace_hours}`: a new key with the same
/// settings, shown once; the old one works for `grace_hours` more (0 to 168), then
/// stops.
///
/// # Errors
/// `NOT_FOUND` for a key that is not the partner's or is no longer usable;
/// `INVALID_REQUEST` for a bad grace period; `FORBIDDEN`, `UNAUTHORIZED` and
/// `INTERNAL_ERROR` as for [`create`].
pub async fn roll<B: Backend>(
    backend: &B,
    id: &str,
    body: &Map<String, Value>,
    caller: &Caller<'_>,
    origin: &str,
) -> Result<Answer, ApiError> {
    let (_, partner) = accounts::signed_in_recently(backend, caller).await?;
    let Roll { grace_hours } = Roll::parse(body)?;
    let held = backend
        .keys_of(&partner.id)
        .await
        .map_err(super::stored(backend))?;
    let old = held
        .iter()
        .find(|k| k.id == id && k.is_in_force(caller.now) && k.rolled_to.is_none())
        .ok_or_else(|| no_such_key(id))?;
    let settings = KeySettings {
        label: old.label.clone(),
        kind: old.kind,
        apis: old.apis.clone(),
        origins: old.origins.clone(),
        ip_ranges: old.ip_ranges.clone(),
        // A live key keeps its chosen expiry; a sandbox key its line's first one, so
        // that rolling never extends a sandbox.
        expires_at: old.expires_at,
    };
    let tier = tier_for(&partner, old.kind)?;
    let (text, new) = make_key(backend, &partner, &settings, tier, caller.now)?;
    let grace_end = caller.now + TimeDelta::hours(i64::from(grace_hours));
    let old_end = old.expires_at.map_or(grace_end, |t| t.min(grace_end));
    let lines = [
        accounts::own_entry(&partner.id, ("key_rolled", Some(id)), caller),
        accounts::own_entry(&partner.id, ("key_created", Some(&new.key.id)), caller),
    ];
    if !backend
        .roll_key(&partner.id, id, &new, old_end, cap(caller.now), &lines)
        .await
        .map_err(super::stored(backend))?
    {
        // Refused by the cap, unless the key was rolled or revoked meanwhile.
        let now_held = backend
            .keys_of(&partner.id)
            .await
            .map_err(super::stored(backend))?;
        let still = now_held
            .iter()
            .any(|k| k.id == id && k.is_in_force(caller.now) && k.rolled_to.is_none());
        return Err(if still { at_cap() } else { no_such_key(id) });
    }
    let mut body = shown_once(&text, &new.key, origin, caller.now);
    body.replaces = Some(Replaced {
        id: id.to_owned(),
        expires_at: old_end,
    });
    Ok(Answer::created(&body))
}

/// `DELETE /portal/api/access/keys/{id}`: revokes the key now; its gates refuse it within
/// the record time to live.
///
/// # Errors
/// `NOT_FOUND` for a key that is not the partner's or is revoked already;
/// `UNAUTHORIZED` without a session; `INTERNAL_ERROR` when storage fails.
pub async fn revoke<B: Backend>(
    backend: &B,
    id: &str,
    caller: &Caller<'_>,
    record_ttl_seconds: i64,
) -> Result<Answer, ApiError> {
    let (_, partner) = accounts::signed_in(backend, caller).await?;
    let line = accounts::own_entry(&partner.id, ("key_revoked", Some(id)), caller);
    if !backend
        .revoke_key(&partner.id, id, caller.now, &[line])
        .await
        .map_err(super::stored(backend))?
    {
        return Err(no_such_key(id));
    }
    Ok(Answer::ok(&Revoked {
        revoked: id.to_owned(),
        refused_within_seconds: record_ttl_seconds,
    }))
}
