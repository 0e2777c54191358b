//! The key gate: what a key's own Durable Object decides for each metered request.
//!
//! An authenticated request costs the Worker one storage round trip: it sends the
//! digest of the presented key, the time and the browser origin to the key's gate
//! (one object per digest). The gate holds the key's record, read from the key store
//! (D1, which stays the index for issuing, listing and revoking) and kept for at most
//! the record's time to live, and the key's count for the day. It checks that the key
//! is usable at that time (expiry takes effect at once, revocation within the time to
//! live, suspension of its partner likewise), that it may call the request's API,
//! that a browser origin is one the key lists, and only then counts the request.
//!
//! The count is exact: workerd runs an object's events one at a time between awaits,
//! [`admit`] changes the count in memory before anything is awaited, and the object
//! awaits the write of the new count before answering, so a restart loses no counted
//! request.

use chrono::{DateTime, NaiveDate, TimeDelta, Utc};
use serde::{Deserialize, Serialize};

use super::cors;
use super::keys::{KeyApi, KeyRecord};
use super::quota::{self, QuotaState};

/// How long a gate trusts the key record it read, by default: a revocation takes
/// effect within this time.
pub const DEFAULT_RECORD_TTL_SECONDS: u32 = 60;

/// Largest record time to live accepted from configuration (one hour).
pub const MAX_RECORD_TTL_SECONDS: u32 = 3_600;

/// The time to live of key records from the `HEXRISK_KEY_RECORD_TTL_SECONDS`
/// variable: whole seconds, at most [`MAX_RECORD_TTL_SECONDS`] (larger values are cut
/// to it), `0` rereading the record on every request; absent or not a whole number of
/// seconds, [`DEFAULT_RECORD_TTL_SECONDS`].
#[must_use]
pub fn record_ttl(var: Option<&str>) -> TimeDelta {
    let seconds = var
        .and_then(|v| v.trim().parse::<u32>().ok())
        .map_or(DEFAULT_RECORD_TTL_SECONDS, |s| {
            s.min(MAX_RECORD_TTL_SECONDS)
        });
    TimeDelta::seconds(i64::from(seconds))
}

/// What the Worker asks a key's gate about one request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GateRequest {
    /// SHA-256 digest of the presented key, lowercase hex (the object's name).
    pub digest: String,
    /// When the request arrived.
    pub now: DateTime<Utc>,
    /// The browser origin to check against the key's list (router API requests that
    /// carry `Origin`), else `None`.
    pub origin: Option<String>,
    /// The API the request calls, which the key must allow.
    pub api: KeyApi,
}

/// The gate's answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum Admission {
    /// No key with this digest is usable now (unknown, revoked or expired); not
    /// counted.
    UnknownKey,
    /// The key may not call the request's API; not counted.
    ApiRefused,
    /// The key does not list the request's browser origin; not counted.
    OriginRefused,
    /// The key may be used: the request was counted if `quota.allowed`, else it is
    /// over the daily limit.
    Counted {
        /// The key.
        record: KeyRecord,
        /// The count after this request.
        quota: QuotaState,
    },
}

/// A key's count of requests on one UTC day, as its gate stores it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct DailyCount {
    /// The day counted.
    pub day: NaiveDate,
    /// Requests admitted on it.
    pub used: u32,
}

impl Default for DailyCount {
    /// Nothing counted yet.
    fn default() -> Self {
        Self {
            day: NaiveDate::MIN,
            used: 0,
        }
    }
}

/// Decides one request with the key's `record` (`None`: no such key) and its
/// `count`, which it updates when the request is admitted. Returns the answer and
/// whether the count changed (and must be stored before answering).
pub fn admit(
    record: Option<&KeyRecord>,
    count: &mut DailyCount,
    request: &GateRequest,
) -> (Admission, bool) {
    let Some(record) = record.filter(|r| r.is_usable(request.now)) else {
        return (Admission::UnknownKey, false);
    };
    if !record.may_call(request.api) {
        return (Admission::ApiRefused, false);
    }
    if let Some(origin) = &request.origin
        && !cors::origin_listed(&record.origins, origin)
    {
        return (Admission::OriginRefused, false);
    }
    let day = quota::day_of(request.now);
    let used = if count.day == day { count.used } else { 0 };
    let state = quota::decide(used, record.daily_limit);
    if state.allowed {
        *count = DailyCount {
            day,
            used: state.used,
        };
    }
    (
        Admission::Counted {
            record: record.clone(),
            quota: state,
        },
        state.allowed,
    )
}

/// The key record a gate read from the key store, and when.
#[derive(Debug, Clone)]
pub struct RecordCache {
    ttl: TimeDelta,
    entry: Option<(Option<KeyRecord>, DateTime<Utc>)>,
}

impl RecordCache {
    /// An empty cache whose records live `ttl`.
    #[must_use]
    pub const fn new(ttl: TimeDelta) -> Self {
        Self { ttl, entry: None }
    }

    /// The record read less than the time to live before `now` (`Some(None)`: the
    /// store had no such key), or `None` when the store must be read again. A read
    /// stamped after `now` (clocks of two isolates) is read again too.
    #[must_use]
    pub fn current(&self, now: DateTime<Utc>) -> Option<Option<&KeyRecord>> {
        let (record, read_at) = self.entry.as_ref()?;
        let age = now.signed_duration_since(*read_at);
        (age >= TimeDelta::zero() && age < self.ttl).then_some(record.as_ref())
    }

    /// Keeps `record`, read from the store at `now`.
    pub fn store(&mut self, record: Option<KeyRecord>, now: DateTime<Utc>) {
        self.entry = Some((record, now));
    }
}

#[cfg(test)]
mod tests;
