//! The account gate: what the Durable Object of a key's account decides for each
//! metered request.
//!
//! Every key of an account and kind draws on one daily quota
//! ([`AccountQuota`](super::keys::AccountQuota)), counted by one object named after
//! it; a key issued outside the portal is an account of its own. An authenticated
//! request costs the Worker one storage round trip: it sends the digest of the
//! presented key, the time and the browser origin to the account's gate (which the
//! isolate learns once per key: [`directory`]). The gate holds its keys' records,
//! read from the key store (D1, which stays the index for issuing, listing and
//! revoking) and each kept for at most the record's time to live, the account's
//! count for the day and each key's. It checks that the key is usable at that time
//! (expiry takes effect at once, revocation within the time to live, suspension of
//! its partner likewise), that it may call the request's API, that a browser origin
//! is one the key lists, and only then counts the request, against the key's own
//! limit and the account's at once.
//!
//! Most requests never reach the gate: with an admitted request the gate grants the
//! asking isolate a block of the key's quota ([`blocks`]), counted at once in the
//! key's count and the account's, which the isolate spends on its own
//! (`api/access/held_blocks.rs`) and returns what it did not spend.
//!
//! The count is exact: workerd runs an object's events one at a time between awaits,
//! [`admit`] changes the counts in memory before anything is awaited, and the object
//! awaits the write of the new counts before answering, so a restart loses no
//! counted request, and no key, roll or isolate takes the account past its limit.
//! The same logs ([`UsageLog`]) keep each day's count and the requests refused by
//! reason for [`KEEP_DAYS`] days: the partner portal's usage figures.

use chrono::{DateTime, NaiveDate, TimeDelta, Utc};
use serde::{Deserialize, Serialize};

use super::daily_quota::{self, QuotaState};
use super::ip_ranges;
use super::keys::{KeyApi, KeyRecord, KeyRefusal};
use crate::api::plumbing::cors;

pub mod directory;
pub mod quota_blocks;

use quota_blocks::{Grant, Return};

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

/// What the Worker asks a key's account gate about one request.
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
    /// The client's address, for a key that lists server addresses (none on a local
    /// run: `partners::config::ClientAddress`).
    #[serde(default)]
    pub address: Option<String>,
    /// Ended blocks of this key the isolate gives back.
    #[serde(default)]
    pub returned: Vec<Return>,
    /// Whether the isolate would take a block with this request.
    #[serde(default)]
    pub want_block: bool,
    /// The key's record as the Worker read it from the key store for this request
    /// (to learn its account), which a gate without a current record of the key
    /// keeps as read at `now` rather than reading it again.
    #[serde(default)]
    pub record: Option<KeyRecord>,
}

/// The gate's answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum Admission {
    /// No key has this digest; not counted.
    UnknownKey,
    /// The key may not be used now, for `reason`; not counted (a refusal of the key).
    KeyRefused {
        /// Why.
        reason: KeyRefusal,
    },
    /// The key may not call the request's API; not counted.
    ApiRefused,
    /// The key does not list the request's browser origin; not counted.
    OriginRefused,
    /// The key lists server addresses and the request's is not among them; not
    /// counted.
    AddressRefused,
    /// The key may be used: the request was counted if `quota.allowed`, else it is
    /// over the daily limit.
    Counted {
        /// The key.
        record: Box<KeyRecord>,
        /// The count after this request.
        quota: QuotaState,
        /// A block granted with it (asked for, and the key far enough from its
        /// limit), already counted.
        #[serde(default)]
        block: Option<Grant>,
    },
}

/// What a gate counted of a key, or of an account, on one UTC day: the requests admitted (the count the
/// daily limit applies to) and those refused, by reason.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema), schemars(inline))]
pub struct DayUsage {
    /// The day.
    #[cfg_attr(test, schemars(with = "String", extend("format" = "date")))]
    pub day: NaiveDate,
    /// Requests admitted: the quota's count.
    pub used: u32,
    /// Requests refused over the daily limit.
    pub refused_quota: u32,
    /// Requests refused from a browser origin the key does not list.
    pub refused_origin: u32,
    /// Requests refused on an API the key may not call.
    pub refused_api: u32,
    /// Requests refused because the key had expired, was revoked or its partner
    /// suspended.
    pub refused_key: u32,
    /// Requests refused from a server address the key does not list.
    #[serde(default)]
    pub refused_address: u32,
}

/// Days of usage a gate keeps (the portal shows 30; at least 90 are kept).
pub const KEEP_DAYS: usize = 100;

/// A key's or an account's usage, day by day, oldest first, at most [`KEEP_DAYS`] days: what a gate
/// stores, and the one source of the quota's count and the portal's figures.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct UsageLog {
    /// The days with any request, oldest first.
    pub days: Vec<DayUsage>,
    /// The number of the next block granted (from 1; 0 names none).
    #[serde(default)]
    pub next_block: u64,
    /// The numbers of the blocks settled lately, at most [`SETTLED_KEPT`]: a return
    /// sent again after its answer was lost is settled once.
    #[serde(default)]
    pub settled: Vec<u64>,
}

/// How many settled blocks a log remembers: far more than can be outstanding at
/// once (an isolate holds one block of a key at a time).
pub const SETTLED_KEPT: usize = 1_024;

impl UsageLog {
    /// The day `day`, if any request was counted on it.
    #[must_use]
    pub fn on(&self, day: NaiveDate) -> Option<&DayUsage> {
        self.days.iter().rev().find(|d| d.day == day)
    }

    /// The entry of `day`, made if needed and kept in day order (a request stamped
    /// by a clock a little behind counts on its own day); days more than
    /// [`KEEP_DAYS`] before the newest are dropped, and a request older than that
    /// counts on the oldest day kept.
    fn today(&mut self, day: NaiveDate) -> &mut DayUsage {
        let newest = self.days.last().map_or(day, |d| d.day.max(day));
        let oldest = newest - chrono::Days::new(KEEP_DAYS as u64 - 1);
        let day = day.max(oldest);
        self.days.retain(|d| d.day >= oldest);
        let at = match self.days.binary_search_by_key(&day, |d| d.day) {
            Ok(at) => at,
            Err(at) => {
                self.days.insert(
                    at,
                    DayUsage {
                        day,
                        ..DayUsage::default()
                    },
                );
                at
            }
        };
        &mut self.days[at]
    }

    /// Adds `used` requests to the count of `day`.
    pub fn add_used(&mut self, day: NaiveDate, used: u32) {
        let entry = self.today(day);
        entry.used = entry.used.saturating_add(used);
    }

    /// The log a gate stored before it kept one: its count of one day.
    #[must_use]
    pub fn from_count(day: NaiveDate, used: u32) -> Self {
        Self {
            days: vec![DayUsage {
                day,
                used,
                ..DayUsage::default()
            }],
            ..Self::default()
        }
    }
}

/// What an account's gate keeps: the account's usage log (its quota's count, the
/// blocks it granted and settled) and the usage log of each of its keys.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GateLogs {
    /// The account's log: `used` is the count its daily quota applies to.
    pub account: UsageLog,
    /// Each key's log, by digest: its own count and its refusals by reason.
    pub keys: std::collections::BTreeMap<String, UsageLog>,
}

impl GateLogs {
    /// The log of the key `digest`, made empty if needed.
    pub fn key(&mut self, digest: &str) -> &mut UsageLog {
        self.keys.entry(digest.to_owned()).or_default()
    }
}

/// What a gate tells of one key: its own log and its account's.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyUsage {
    /// The key's log.
    pub key: UsageLog,
    /// Its account's log (every key of the account and kind).
    pub account: UsageLog,
}

/// Decides one request with the key's `record` (`None`: no such key), read from
/// the store until `record_until`, and the account gate's `logs`, which it updates:
/// the blocks returned are settled first, an admitted request is counted in the
/// key's log and its account's (with a block granted and counted in both when
/// asked for), a refused one of a known key is counted by its reason in the key's.
/// Returns the answer and whether the logs changed (and must be stored before
/// answering).
pub fn admit(
    record: Option<&KeyRecord>,
    logs: &mut GateLogs,
    request: &GateRequest,
    record_until: DateTime<Utc>,
) -> (Admission, bool) {
    let day = daily_quota::day_of(request.now);
    // A digest that is no key at all has nothing to count against.
    let Some(record) = record else {
        return (Admission::UnknownKey, false);
    };
    settle(logs, &request.digest, &request.returned);
    let key_log = logs.key(&request.digest);
    if let Some(reason) = record.refusal(request.now) {
        key_log.today(day).refused_key += 1;
        return (Admission::KeyRefused { reason }, true);
    }
    if !record.may_call(request.api) {
        key_log.today(day).refused_api += 1;
        return (Admission::ApiRefused, true);
    }
    if let Some(origin) = &request.origin
        && !cors::origin_listed(&record.origins, origin)
    {
        key_log.today(day).refused_origin += 1;
        return (Admission::OriginRefused, true);
    }
    if !record.ip_ranges.is_empty()
        && !ip_ranges::listed(&record.ip_ranges, request.address.as_deref())
    {
        key_log.today(day).refused_address += 1;
        return (Admission::AddressRefused, true);
    }
    let key_used = key_log.on(day).map_or(0, |d| d.used);
    let account_used = logs.account.on(day).map_or(0, |d| d.used);
    let (key_limit, account_limit) = (record.daily_limit, record.account.daily_limit);
    let state = daily_quota::decide_with_account(key_used, key_limit, account_used, account_limit);
    if !state.allowed {
        logs.key(&request.digest).today(day).refused_quota += 1;
        logs.account.today(day).refused_quota += 1;
        let answer = Admission::Counted {
            record: Box::new(record.clone()),
            quota: state,
            block: None,
        };
        return (answer, true);
    }
    let mut block = request
        .want_block
        .then(|| {
            quota_blocks::grant_within(
                (key_limit, key_used + 1),
                (account_limit, account_used + 1),
                state,
                request.now,
                record_until,
            )
        })
        .flatten();
    let taken = 1 + block.map_or(0, |b| b.size);
    logs.key(&request.digest).today(day).used = key_used + taken;
    logs.account.today(day).used = account_used + taken;
    if let Some(granted) = &mut block {
        let account = &mut logs.account;
        account.next_block = account.next_block.max(1);
        granted.id = account.next_block;
        account.next_block += 1;
    }
    (
        Admission::Counted {
            record: Box::new(record.clone()),
            quota: state,
            block,
        },
        true,
    )
}

/// Blocks of a key's quota an isolate gives back without a request to decide: what
/// it sends the key's account gate once its blocks end (`glue/block_returns.rs`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlockReturns {
    /// SHA-256 digest of the key, lowercase hex (the gate's name).
    pub digest: String,
    /// The ended blocks.
    pub returned: Vec<Return>,
}

/// Settles blocks of the key `digest` returned in `logs`: their unspent requests
/// are no longer counted as used on their day, by the key or its account, and the
/// requests they refused are counted by reason in the key's log. A block the
/// account's log lists as settled is not settled again. Returns whether the logs
/// changed.
pub fn settle(logs: &mut GateLogs, digest: &str, returned: &[Return]) -> bool {
    let mut changed = false;
    for back in returned {
        let account = &mut logs.account;
        if back.block != 0 {
            if account.settled.contains(&back.block) {
                continue;
            }
            if account.settled.len() >= SETTLED_KEPT {
                account.settled.remove(0);
            }
            account.settled.push(back.block);
        }
        changed = true;
        let entry = account.today(back.day);
        entry.used = entry.used.saturating_sub(back.unspent);
        let entry = logs.key(digest).today(back.day);
        entry.used = entry.used.saturating_sub(back.unspent);
        entry.refused_origin += back.refused_origin;
        entry.refused_api += back.refused_api;
        entry.refused_key += back.refused_key;
        entry.refused_address += back.refused_address;
    }
    changed
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

    /// When the record kept is due to be read again (`None` before the first read).
    #[must_use]
    pub fn until(&self) -> Option<DateTime<Utc>> {
        self.entry.as_ref().map(|(_, read_at)| *read_at + self.ttl)
    }

    /// Keeps `record`, read from the store at `now`.
    pub fn store(&mut self, record: Option<KeyRecord>, now: DateTime<Utc>) {
        self.entry = Some((record, now));
    }
}

#[cfg(test)]
pub(crate) mod tests;
