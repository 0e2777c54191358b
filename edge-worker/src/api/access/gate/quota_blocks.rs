//! Blocks of a key's daily quota: what a key's gate reserves for one isolate to
//! spend without asking it again, and what the isolate gives back.
//!
//! A block is counted as used the moment the gate grants it, so however many
//! isolates hold blocks the day's count never passes the limit. The isolate spends
//! it locally until it is spent, the UTC day ends or the gate's key record is due
//! to be reread ([`Grant::until`], so revocation, suspension and rolling still take
//! effect within the record's time to live), then returns the unspent part and the
//! requests it refused with its next call to the gate. A quiet key and a key near
//! its limit get no block: every request is decided there, one by one.
//!
//! What this costs the count: a day's `used` includes the unspent part of blocks
//! still out. Each is settled when it ends, at most [`BLOCK_SECONDS`] after it was
//! granted: the isolate returns it on its own (`glue/block_returns.rs`, after its
//! answer) or with its next call to the key's gate. Only an isolate torn down while
//! holding a block leaves that part counted: at most [`MAX_BLOCK`] requests, and
//! only ever above the requests admitted.

use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};

/// A block is at most this many requests.
pub const MAX_BLOCK: u32 = 100;

/// A block is at most this fraction (1 / n) of the daily limit.
pub const LIMIT_SHARE: u32 = 100;

/// No block is granted before the key has used this many blocks' worth of requests
/// today, nor once fewer than that would be left: a quiet key's count stays exact
/// request by request, and so does the last of a busy key's quota.
pub const EXACT_BLOCKS: u32 = 10;

/// A block ends this long after it is granted at the latest, so that a busy key's
/// blocks come back (and its count settles) every few seconds.
pub const BLOCK_SECONDS: i64 = 20;

/// The block size for a key with `daily_limit`: 0 (no blocks) below two requests.
#[must_use]
pub fn block_size(daily_limit: u32) -> u32 {
    let size = (daily_limit / LIMIT_SHARE).min(MAX_BLOCK);
    if size >= 2 { size } else { 0 }
}

/// A block the gate granted with an admitted request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Grant {
    /// Requests the isolate may admit on its own.
    pub size: u32,
    /// The UTC day the block counts on.
    pub day: NaiveDate,
    /// When the block ends: the gate's key record is reread then, or the day ends.
    pub until: DateTime<Utc>,
    /// The day's count after the request the block came with (the block not
    /// included), for the quota headers of the requests spent from it.
    pub used_before: u32,
    /// The daily limit that count is of (the binding one of the key's and its
    /// account's), for the same headers.
    #[serde(default)]
    pub limit: u32,
    /// The gate's number for the block (one higher for each it grants), which its
    /// return carries so that a return sent twice is settled once.
    #[serde(default)]
    pub id: u64,
}

/// What an isolate gives back of an ended block.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Return {
    /// The block's day.
    pub day: NaiveDate,
    /// Requests of the block not spent: no longer counted as used.
    pub unspent: u32,
    /// Requests refused from a browser origin the key does not list.
    pub refused_origin: u32,
    /// Requests refused on an API the key may not call.
    pub refused_api: u32,
    /// Requests refused because the key had expired.
    pub refused_key: u32,
    /// Requests refused from a server address the key does not list.
    #[serde(default)]
    pub refused_address: u32,
    /// The block's number ([`Grant::id`]).
    #[serde(default)]
    pub block: u64,
}

/// The block to grant with a request admitted with `used` counted today (this
/// request included) under `daily_limit`, or `None`: too small a limit, too few
/// used or too few left ([`EXACT_BLOCKS`]), or a record due to be reread
/// (`record_until` not after `now`).
#[must_use]
pub fn grant(
    daily_limit: u32,
    used: u32,
    now: DateTime<Utc>,
    record_until: DateTime<Utc>,
) -> Option<Grant> {
    let size = block_size(daily_limit);
    let left = daily_limit.saturating_sub(used);
    let until = record_until
        .min(crate::api::access::daily_quota::reset_at(now))
        .min(now + chrono::TimeDelta::seconds(BLOCK_SECONDS));
    let exact = size.saturating_mul(EXACT_BLOCKS);
    (size > 0 && used >= exact && left >= exact + size && until > now).then(|| Grant {
        size,
        day: crate::api::access::daily_quota::day_of(now),
        until,
        used_before: used,
        limit: daily_limit,
        id: 0,
    })
}

/// The block to grant with a request admitted under two quotas at once, a key's
/// own and its account's, each as `(daily_limit, used)`: one each would grant,
/// the smaller, or `None` if either would grant none. Its `used_before` and
/// `limit` are those of `told`, the quota the request's answer tells.
#[must_use]
pub fn grant_within(
    key: (u32, u32),
    account: (u32, u32),
    told: crate::api::access::daily_quota::QuotaState,
    now: DateTime<Utc>,
    record_until: DateTime<Utc>,
) -> Option<Grant> {
    let by_key = grant(key.0, key.1, now, record_until)?;
    let by_account = grant(account.0, account.1, now, record_until)?;
    Some(Grant {
        size: by_key.size.min(by_account.size),
        used_before: told.used,
        limit: told.limit,
        ..by_key
    })
}
