//! The portal's D1 rows (`edge-worker/migrations/0002_portal.sql`) and their
//! conversions to the store's types; times are RFC 3339 text in UTC with
//! milliseconds.

use chrono::{DateTime, Utc};
use serde::Deserialize;
use worker::wasm_bindgen::JsValue;

use crate::api::access::keys::{KeyApi, KeyKind, Tier};
use crate::api::backend_error::BackendError;
use crate::api::partners::store::{
    AuditEntry, NewKey, Partner, PartnerKey, PartnerStatus, Passkey, Role,
};

pub(super) fn fail(e: impl std::fmt::Display) -> BackendError {
    BackendError::new("database", format!("portal: {e}"))
}

/// As `scripts/operator.mjs` writes times (`Date.toISOString()`), so that text order is
/// time order across both writers.
pub(super) fn time(at: DateTime<Utc>) -> JsValue {
    at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
        .into()
}

pub(super) fn parse_time(text: &str) -> Result<DateTime<Utc>, BackendError> {
    DateTime::parse_from_rfc3339(text)
        .map(|t| t.with_timezone(&Utc))
        .map_err(fail)
}

pub(super) fn optional_time(text: Option<&str>) -> Result<Option<DateTime<Utc>>, BackendError> {
    text.map(parse_time).transpose()
}

#[derive(Deserialize)]
pub(super) struct CeremonyRow {
    pub(super) id: String,
    pub(super) kind: String,
    pub(super) state: String,
    pub(super) pending: Option<String>,
    pub(super) expires_at: String,
}

#[derive(Deserialize)]
pub(super) struct PartnerRow {
    pub(super) id: String,
    pub(super) user_handle: String,
    pub(super) organisation: String,
    pub(super) email: String,
    pub(super) intended_use: String,
    pub(super) status: String,
    pub(super) role: String,
    pub(super) tier: String,
    pub(super) daily_limit: Option<u32>,
    pub(super) created_at: String,
}

impl PartnerRow {
    pub(super) fn into_partner(self) -> Result<Partner, BackendError> {
        Ok(Partner {
            user_handle: hex::decode(&self.user_handle).map_err(fail)?,
            status: PartnerStatus::parse(&self.status).ok_or_else(|| fail("unknown status"))?,
            role: Role::parse(&self.role).ok_or_else(|| fail("unknown role"))?,
            tier: Tier::parse(&self.tier).ok_or_else(|| fail("unknown tier"))?,
            daily_limit: self.daily_limit,
            created_at: parse_time(&self.created_at)?,
            id: self.id,
            organisation: self.organisation,
            email: self.email,
            intended_use: self.intended_use,
        })
    }
}

#[derive(Deserialize)]
pub(super) struct PasskeyRow {
    pub(super) credential_id: String,
    pub(super) partner_id: String,
    pub(super) stored: String,
    pub(super) created_at: String,
    pub(super) last_used_at: Option<String>,
}

impl PasskeyRow {
    pub(super) fn into_passkey(self) -> Result<Passkey, BackendError> {
        Ok(Passkey {
            created_at: parse_time(&self.created_at)?,
            last_used_at: optional_time(self.last_used_at.as_deref())?,
            credential_id: self.credential_id,
            partner_id: self.partner_id,
            stored: self.stored,
        })
    }
}

#[derive(Deserialize)]
pub(super) struct SessionRow {
    pub(super) digest: String,
    pub(super) partner_id: String,
    pub(super) credential_id: Option<String>,
    pub(super) created_at: String,
    pub(super) last_seen_at: String,
    pub(super) ended_at: Option<String>,
}

#[derive(Deserialize)]
pub(super) struct AuditRow {
    pub(super) at: String,
    pub(super) partner_id: String,
    pub(super) actor: String,
    pub(super) action: String,
    pub(super) subject: Option<String>,
    pub(super) address: Option<String>,
}

#[derive(Deserialize)]
pub(super) struct Count {
    pub(super) count: u32,
}

#[derive(Deserialize)]
pub(super) struct KeyListRow {
    pub(super) id: String,
    pub(super) digest: String,
    pub(super) label: String,
    pub(super) kind: String,
    pub(super) tier: String,
    pub(super) daily_limit: u32,
    pub(super) apis: String,
    pub(super) origins: String,
    pub(super) ip_ranges: Option<String>,
    pub(super) issued_at: String,
    pub(super) expires_at: Option<String>,
    pub(super) revoked_at: Option<String>,
    pub(super) rolled_to: Option<String>,
}

impl KeyListRow {
    pub(super) fn into_key(self) -> Result<PartnerKey, BackendError> {
        Ok(PartnerKey {
            kind: match self.kind.as_str() {
                "sandbox" => KeyKind::Sandbox,
                "live" => KeyKind::Live,
                _ => return Err(fail("unknown key kind")),
            },
            tier: Tier::parse(&self.tier).ok_or_else(|| fail("unknown tier"))?,
            apis: serde_json::from_str::<Vec<KeyApi>>(&self.apis).map_err(fail)?,
            origins: serde_json::from_str(&self.origins).map_err(fail)?,
            ip_ranges: match self.ip_ranges.as_deref() {
                None => Vec::new(),
                Some(text) => serde_json::from_str(text).map_err(fail)?,
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

/// The statement that stores `new`, only if `guard` (SQL) holds.
pub(super) fn insert_key_sql(guard: &str) -> String {
    format!(
        "INSERT INTO api_keys (id, digest, kind, tier, daily_limit, issued_at, expires_at, revoked_at, \
         origins, label, partner_id, apis, ip_ranges) SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, NULL, ?8, ?9, ?10, ?11, ?12 \
         WHERE {guard}"
    )
}

pub(super) fn insert_key_values(new: &NewKey) -> Vec<JsValue> {
    let k = &new.key;
    let apis: Vec<&str> = k.apis.iter().map(|a| a.code()).collect();
    vec![
        k.id.as_str().into(),
        k.digest.as_str().into(),
        match k.kind {
            KeyKind::Sandbox => "sandbox",
            KeyKind::Live => "live",
        }
        .into(),
        k.tier.code().into(),
        f64::from(k.daily_limit).into(),
        time(k.issued_at),
        k.expires_at.map_or(JsValue::NULL, time),
        serde_json::to_string(&k.origins).unwrap_or_default().into(),
        k.label.as_str().into(),
        new.partner_id.as_str().into(),
        serde_json::to_string(&apis).unwrap_or_default().into(),
        if k.ip_ranges.is_empty() {
            JsValue::NULL
        } else {
            serde_json::to_string(&k.ip_ranges)
                .unwrap_or_default()
                .into()
        },
    ]
}

pub(super) fn audit_entries(rows: Vec<AuditRow>) -> Result<Vec<AuditEntry>, BackendError> {
    rows.into_iter()
        .map(|r| {
            Ok(AuditEntry {
                at: parse_time(&r.at)?,
                partner_id: r.partner_id,
                actor: r.actor,
                action: r.action,
                subject: r.subject,
                address: r.address,
            })
        })
        .collect()
}
