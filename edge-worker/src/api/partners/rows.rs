//! The portal's rows (`edge-worker/migrations/`) as `sql_store.rs` binds and
//! reads them, and their conversions to the store's types. Times are RFC 3339 text in
//! UTC with milliseconds.

use chrono::{DateTime, Utc};
use serde::Deserialize;

use super::sql::{SqlError, SqlValue};
use super::store::{
    AuditEntry, Ceremony, CeremonyKind, NewKey, Partner, PartnerKey, PartnerStatus, Passkey, Role,
    Session,
};
use crate::api::access::keys::{KeyApi, KeyKind, Tier};

/// As `scripts/operator.mjs` writes times (`Date.toISOString()`), so that text order
/// is time order across both writers.
pub(crate) fn time(at: DateTime<Utc>) -> SqlValue {
    SqlValue::Text(at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true))
}

fn parse_time(text: &str) -> Result<DateTime<Utc>, SqlError> {
    DateTime::parse_from_rfc3339(text)
        .map(|t| t.with_timezone(&Utc))
        .map_err(|e| stored("time", format!("{text}: {e}")))
}

fn optional_time(text: Option<&str>) -> Result<Option<DateTime<Utc>>, SqlError> {
    text.map(parse_time).transpose()
}

fn stored(what: &'static str, text: impl Into<String>) -> SqlError {
    SqlError::Stored {
        what,
        text: text.into(),
    }
}

/// A stored name `parse` knows, or which column's it is not.
fn named<T>(
    what: &'static str,
    code: &str,
    parse: impl Fn(&str) -> Option<T>,
) -> Result<T, SqlError> {
    parse(code).ok_or_else(|| stored(what, code))
}

/// JSON text stored in a column.
fn json<T: serde::de::DeserializeOwned>(what: &'static str, text: &str) -> Result<T, SqlError> {
    serde_json::from_str(text).map_err(|e| stored(what, e.to_string()))
}

/// A row of `ceremonies`.
#[derive(Deserialize)]
pub(crate) struct CeremonyRow {
    id: String,
    kind: String,
    state: String,
    pending: Option<String>,
    expires_at: String,
}

impl CeremonyRow {
    pub(crate) fn into_ceremony(self) -> Result<Ceremony, SqlError> {
        Ok(Ceremony {
            kind: named("ceremony kind", &self.kind, CeremonyKind::parse)?,
            expires_at: parse_time(&self.expires_at)?,
            id: self.id,
            state: self.state,
            pending: self.pending,
        })
    }
}

/// A row of `partners`.
#[derive(Deserialize)]
pub(crate) struct PartnerRow {
    id: String,
    user_handle: String,
    organisation: String,
    email: String,
    intended_use: String,
    status: String,
    role: String,
    tier: String,
    daily_limit: Option<u32>,
    created_at: String,
}

impl PartnerRow {
    pub(crate) fn into_partner(self) -> Result<Partner, SqlError> {
        Ok(Partner {
            user_handle: hex::decode(&self.user_handle)
                .map_err(|e| stored("user handle", e.to_string()))?,
            status: named("status", &self.status, PartnerStatus::parse)?,
            role: named("role", &self.role, Role::parse)?,
            tier: named("tier", &self.tier, Tier::parse)?,
            daily_limit: self.daily_limit,
            created_at: parse_time(&self.created_at)?,
            id: self.id,
            organisation: self.organisation,
            email: self.email,
            intended_use: self.intended_use,
        })
    }
}

/// The values of a new `partners` row, in its insert's order.
pub(crate) fn partner_values(p: &Partner) -> Vec<SqlValue> {
    vec![
        p.id.as_str().into(),
        hex::encode(&p.user_handle).into(),
        p.organisation.as_str().into(),
        p.email.as_str().into(),
        p.intended_use.as_str().into(),
        p.status.code().into(),
        p.role.code().into(),
        p.tier.code().into(),
        p.daily_limit.into(),
        time(p.created_at),
    ]
}

/// A row of `passkeys`.
#[derive(Deserialize)]
pub(crate) struct PasskeyRow {
    credential_id: String,
    partner_id: String,
    stored: String,
    created_at: String,
    last_used_at: Option<String>,
}

impl PasskeyRow {
    pub(crate) fn into_passkey(self) -> Result<Passkey, SqlError> {
        Ok(Passkey {
            created_at: parse_time(&self.created_at)?,
            last_used_at: optional_time(self.last_used_at.as_deref())?,
            credential_id: self.credential_id,
            partner_id: self.partner_id,
            stored: self.stored,
        })
    }
}

/// The values of a new `passkeys` row (never used yet), in its insert's order.
pub(crate) fn passkey_values(key: &Passkey) -> Vec<SqlValue> {
    vec![
        key.credential_id.as_str().into(),
        key.partner_id.as_str().into(),
        key.stored.as_str().into(),
        time(key.created_at),
    ]
}

/// A row of `sessions`.
#[derive(Deserialize)]
pub(crate) struct SessionRow {
    digest: String,
    partner_id: String,
    credential_id: Option<String>,
    created_at: String,
    last_seen_at: String,
    ended_at: Option<String>,
}

impl SessionRow {
    pub(crate) fn into_session(self) -> Result<Session, SqlError> {
        Ok(Session {
            created_at: parse_time(&self.created_at)?,
            last_seen_at: parse_time(&self.last_seen_at)?,
            ended_at: optional_time(self.ended_at.as_deref())?,
            digest: self.digest,
            partner_id: self.partner_id,
            credential_id: self.credential_id,
        })
    }
}

/// A row of `audit_log`.
#[derive(Deserialize)]
pub(crate) struct AuditRow {
    at: String,
    partner_id: String,
    actor: String,
    action: String,
    subject: Option<String>,
    address: Option<String>,
}

impl AuditRow {
    pub(crate) fn into_entry(self) -> Result<AuditEntry, SqlError> {
        Ok(AuditEntry {
            at: parse_time(&self.at)?,
            partner_id: self.partner_id,
            actor: self.actor,
            action: self.action,
            subject: self.subject,
            address: self.address,
        })
    }
}

/// The values of an `audit_log` line, in its insert's order.
pub(crate) fn audit_values(e: &AuditEntry) -> Vec<SqlValue> {
    vec![
        time(e.at),
        e.partner_id.as_str().into(),
        e.actor.as_str().into(),
        e.action.as_str().into(),
        e.subject.as_deref().into(),
        e.address.as_deref().into(),
    ]
}

/// A window's count of `portal_requests`.
#[derive(Deserialize)]
pub(crate) struct Count {
    pub(crate) count: u32,
}

/// A row of `api_keys` made in the portal.
#[derive(Deserialize)]
pub(crate) struct KeyListRow {
    id: String,
    digest: String,
    label: String,
    kind: String,
    tier: String,
    daily_limit: u32,
    apis: String,
    origins: String,
    ip_ranges: Option<String>,
    issued_at: String,
    expires_at: Option<String>,
    revoked_at: Option<String>,
    rolled_to: Option<String>,
}

impl KeyListRow {
    pub(crate) fn into_key(self) -> Result<PartnerKey, SqlError> {
        let kind = |code: &str| {
            [KeyKind::Sandbox, KeyKind::Live]
                .into_iter()
                .find(|k| k.code() == code)
        };
        Ok(PartnerKey {
            kind: named("key kind", &self.kind, kind)?,
            tier: named("tier", &self.tier, Tier::parse)?,
            apis: json::<Vec<KeyApi>>("key's APIs", &self.apis)?,
            origins: json("key's origins", &self.origins)?,
            ip_ranges: match self.ip_ranges.as_deref() {
                None => Vec::new(),
                Some(text) => json("key's address ranges", text)?,
            },
            issued_at: parse_time(&self.issued_at)?,
            expires_at: optional_time(self.expires_at.as_deref())?,
            revoked_at: optional_time(self.revoked_at.as_deref())?,
            id: self.id,
            digest: self.digest,
            label: self.label,
            daily_limit: self.daily_limit,
            rolled_to: self.rolled_to,
        })
    }
}

/// The values of a new key's row, `?1` to `?12` of `sql_store.rs`'s insert
/// (`?10` its partner).
pub(crate) fn key_values(new: &NewKey) -> Vec<SqlValue> {
    let k = &new.key;
    let apis: Vec<&str> = k.apis.iter().map(|a| a.code()).collect();
    vec![
        k.id.as_str().into(),
        k.digest.as_str().into(),
        k.kind.code().into(),
        k.tier.code().into(),
        k.daily_limit.into(),
        time(k.issued_at),
        k.expires_at.map_or(SqlValue::Null, time),
        serde_json::to_string(&k.origins).unwrap_or_default().into(),
        k.label.as_str().into(),
        new.partner_id.as_str().into(),
        serde_json::to_string(&apis).unwrap_or_default().into(),
        if k.ip_ranges.is_empty() {
            SqlValue::Null
        } else {
            serde_json::to_string(&k.ip_ranges)
                .unwrap_or_default()
                .into()
        },
    ]
}
