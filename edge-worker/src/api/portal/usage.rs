//! A key's usage for its partner: per UTC day, the requests counted against the
//! quota and those refused by reason, from the key's gate (the same log the quota is
//! enforced from), as JSON for the page and as CSV to download; with today's
//! remaining quota and when it resets.

use std::fmt::Write as _;

use chrono::{DateTime, Days, NaiveDate, SecondsFormat, Utc};
use serde::Serialize;

use super::accounts;
use super::handler_io::{Answer, Caller, File};
use crate::api::access::daily_quota;
use crate::api::access::gate::{DayUsage, KEEP_DAYS, KeyUsage, UsageLog};
use crate::api::access::keys::{AccountQuota, KeyKind};
use crate::api::backend::Backend;
use crate::api::partners::store::PartnerKey;
use crate::api::plumbing::error::{ApiError, ErrorCode};
use crate::api::plumbing::input;

/// Days shown when the request names none.
pub const DEFAULT_DAYS: u32 = 30;

/// Most days a request may ask for.
pub const MAX_DAYS: u32 = 90;

const _: () = assert!(
    MAX_DAYS as usize <= KEEP_DAYS,
    "the gates keep every day shown"
);

/// The CSV's columns.
pub const CSV_HEADER: &str =
    "day,used,refused_quota,refused_origin,refused_api,refused_key,refused_address";

/// The `days` days ending on `today`, oldest first, days without requests as zeros.
#[must_use]
pub fn days_of(log: &UsageLog, today: NaiveDate, days: u32) -> Vec<DayUsage> {
    (0..days)
        .rev()
        .map(|back| {
            let day = today - Days::new(u64::from(back));
            log.on(day).copied().unwrap_or(DayUsage {
                day,
                ..DayUsage::default()
            })
        })
        .collect()
}

/// What a usage route asked for: how many `days`, the key `key` of the signed-in
/// partner, the quota its `account` shares, and their gate's `log`.
struct AskedUsage {
    days: u32,
    key: PartnerKey,
    account: AccountQuota,
    log: KeyUsage,
}

/// Reads what both usage routes answer from: `days` of the query checked first, then
/// the key `id` of the signed-in partner and its gate's logs.
async fn asked_usage<B: Backend>(
    backend: &B,
    id: &str,
    query: Option<&str>,
    caller: &Caller<'_>,
) -> Result<AskedUsage, ApiError> {
    let UsageQuery { days } = UsageQuery::parse(query)?;
    let (_, partner) = accounts::signed_in(backend, caller).await?;
    let key = backend
        .keys_of(&partner.id)
        .await
        .map_err(super::stored(backend))?
        .into_iter()
        .find(|k| k.id == id)
        .ok_or_else(|| {
            ApiError::new(ErrorCode::NotFound, "no such key in this account").with("id", id)
        })?;
    let log = backend
        .usage(&key.digest)
        .await
        .map_err(|e| super::internal(backend, "keys", &e))?;
    let account = AccountQuota::of_key(
        &key.id,
        key.kind,
        key.daily_limit,
        Some((&partner.id, partner.tier, partner.daily_limit)),
    );
    Ok(AskedUsage {
        days,
        key,
        account,
        log,
    })
}

/// What the usage routes' query asks for.
#[derive(Debug)]
#[cfg_attr(test, derive(schemars::JsonSchema), schemars(inline))]
pub struct UsageQuery {
    /// How many days, ending today (UTC).
    #[cfg_attr(test, schemars(default = "default_days", range(min = 1, max = MAX_DAYS)))]
    pub days: u32,
}

#[cfg(test)]
const fn default_days() -> u32 {
    DEFAULT_DAYS
}

impl UsageQuery {
    /// The days a query string asks for, [`DEFAULT_DAYS`] when it names none.
    ///
    /// # Errors
    /// `INVALID_REQUEST` naming `days` when it is not a whole number from 1 to
    /// [`MAX_DAYS`].
    pub fn parse(query: Option<&str>) -> Result<Self, ApiError> {
        let days =
            input::query_count(&input::query_pairs(query), "days", (DEFAULT_DAYS, MAX_DAYS))?;
        Ok(Self { days })
    }
}

/// A key's usage per UTC day, and today's quota: the key's own and the account's
/// its keys of that kind share.
#[derive(Debug, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct Usage {
    /// The key's id.
    pub id: String,
    /// The key's own daily limit.
    pub daily_limit: u32,
    /// Today (UTC) for the key.
    pub today: Today,
    /// Today for the account's keys of this kind, which share the account's
    /// daily limit.
    pub account: AccountToday,
    /// The days asked for, oldest first, days without requests as zeros.
    pub days: Vec<DayUsage>,
}

/// Today's count of a key against its daily limit.
#[derive(Debug, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema), schemars(inline))]
pub struct Today {
    /// The UTC day.
    #[cfg_attr(test, schemars(with = "String", extend("format" = "date")))]
    pub day: NaiveDate,
    /// Requests admitted today.
    pub used: u32,
    /// Requests left today: the key's, or the account's if fewer.
    pub remaining: u32,
    /// When the count starts again (the next UTC midnight).
    #[cfg_attr(test, schemars(extend("format" = "date-time")))]
    pub resets_at: String,
}

/// Today's count of the account's keys of one kind against their shared limit.
#[derive(Debug, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema), schemars(inline))]
pub struct AccountToday {
    /// The keys' kind.
    pub kind: KeyKind,
    /// The account's daily limit for its keys of this kind, together.
    pub daily_limit: u32,
    /// Requests they made today.
    pub used: u32,
    /// Requests they have left today.
    pub remaining: u32,
}

/// `GET /portal/api/keys/{id}/usage?days=N`: the last `N` days (30 by default, at
/// most 90) and today's quota.
///
/// # Errors
/// `NOT_FOUND` for a key that is not the partner's; `INVALID_REQUEST` for a bad
/// `days`; `UNAUTHORIZED` without a session; `INTERNAL_ERROR` when the store or
/// the gate fails.
pub async fn usage<B: Backend>(
    backend: &B,
    id: &str,
    query: Option<&str>,
    caller: &Caller<'_>,
) -> Result<Answer, ApiError> {
    let AskedUsage {
        days,
        key,
        account,
        log,
    } = asked_usage(backend, id, query, caller).await?;
    let today = daily_quota::day_of(caller.now);
    let used = log.key.on(today).map_or(0, |d| d.used);
    let account_used = log.account.on(today).map_or(0, |d| d.used);
    let account_left = account.daily_limit.saturating_sub(account_used);
    Ok(Answer::ok(&Usage {
        today: Today {
            day: today,
            used,
            remaining: key.daily_limit.saturating_sub(used).min(account_left),
            resets_at: reset_at(caller.now),
        },
        account: AccountToday {
            kind: key.kind,
            daily_limit: account.daily_limit,
            used: account_used,
            remaining: account_left,
        },
        days: days_of(&log.key, today, days),
        id: key.id,
        daily_limit: key.daily_limit,
    }))
}

fn reset_at(now: DateTime<Utc>) -> String {
    daily_quota::reset_at(now).to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// `GET /portal/api/keys/{id}/usage.csv?days=N`: the same days as CSV
/// ([`CSV_HEADER`]), to download.
///
/// # Errors
/// As [`usage`].
pub async fn usage_csv<B: Backend>(
    backend: &B,
    id: &str,
    query: Option<&str>,
    caller: &Caller<'_>,
) -> Result<Answer, ApiError> {
    let AskedUsage { days, key, log, .. } = asked_usage(backend, id, query, caller).await?;
    let mut text = format!("{CSV_HEADER}\n");
    for d in days_of(&log.key, daily_quota::day_of(caller.now), days) {
        let _ = writeln!(
            text,
            "{},{},{},{},{},{},{}",
            d.day,
            d.used,
            d.refused_quota,
            d.refused_origin,
            d.refused_api,
            d.refused_key,
            d.refused_address
        );
    }
    Ok(Answer::file(File {
        content_type: "text/csv; charset=utf-8",
        name: format!("hexrisk-usage-{}.csv", key.id),
        body: text,
    }))
}
