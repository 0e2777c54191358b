//! Daily request quotas: UTC days, the counter's answer, the 429 body and the rate
//! limit headers.
//!
//! Days run from 00:00 UTC to 00:00 UTC; `reset_at` is the next 00:00 UTC. Every
//! authenticated response carries the fields of the IETF draft "`RateLimit` header
//! fields for HTTP" (draft-ietf-httpapi-ratelimit-headers-10): `RateLimit-Policy:
//! "daily";q=<limit>;w=86400` (the key's quota) and `RateLimit: "daily";r=<remaining>;
//! t=<seconds until the reset>`; a 429 also `Retry-After`. The early drafts' three
//! fields (`RateLimit-Limit`, `-Remaining`, `-Reset`) are not sent.

use chrono::{DateTime, Days, NaiveDate, SecondsFormat, Utc};
use http::HeaderValue;
use serde::{Deserialize, Serialize};

use crate::api::plumbing::error::{ApiError, ErrorCode};

/// The UTC day an instant falls in.
#[must_use]
pub fn day_of(now: DateTime<Utc>) -> NaiveDate {
    now.date_naive()
}

/// The next 00:00 UTC after `now`.
#[must_use]
pub fn reset_at(now: DateTime<Utc>) -> DateTime<Utc> {
    let next = day_of(now)
        .checked_add_days(Days::new(1))
        .unwrap_or(NaiveDate::MAX);
    next.and_hms_opt(0, 0, 0).map_or(now, |t| t.and_utc())
}

/// What the counter says after counting (or refusing) one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct QuotaState {
    /// Whether this request is within the limit.
    pub allowed: bool,
    /// Requests counted today, this one included when allowed.
    pub used: u32,
    /// The daily limit.
    pub limit: u32,
}

/// A counter's decision for one request, as the Durable Object applies it:
/// with `used` requests already counted today, allow and count it if under `limit`.
#[must_use]
pub fn decide(used: u32, limit: u32) -> QuotaState {
    if used < limit {
        QuotaState {
            allowed: true,
            used: used + 1,
            limit,
        }
    } else {
        QuotaState {
            allowed: false,
            used,
            limit,
        }
    }
}

/// The decision for one request of a key with `key_used` of its own `key_limit`
/// counted today, whose account has `account_used` of `account_limit`: allowed only
/// if both are under their limits. The state told (headers, 429) is the one that
/// binds: the refusing quota, else the one with fewer requests left (the account's
/// on a tie).
#[must_use]
pub fn decide_with_account(
    key_used: u32,
    key_limit: u32,
    account_used: u32,
    account_limit: u32,
) -> QuotaState {
    let key = decide(key_used, key_limit);
    let account = decide(account_used, account_limit);
    let left = |s: QuotaState| s.limit.saturating_sub(s.used);
    match (key.allowed, account.allowed) {
        (true, true) if left(key) < left(account) => key,
        (true, true) | (_, false) => QuotaState {
            allowed: key.allowed && account.allowed,
            ..account
        },
        (false, true) => key,
    }
}

/// The 429 answer.
#[must_use]
pub fn rate_limited(state: QuotaState, now: DateTime<Utc>) -> ApiError {
    ApiError::new(ErrorCode::RateLimited, "daily request limit exceeded")
        .with("limit", state.limit)
        .with("used", state.used)
        .with(
            "reset_at",
            reset_at(now).to_rfc3339_opts(SecondsFormat::Secs, true),
        )
}

/// The name of the one quota policy, as both fields name it.
pub const POLICY: &str = "daily";

/// Seconds in the policy's window.
pub const WINDOW_SECONDS: u32 = 86_400;

/// Rate limit headers for a response.
#[must_use]
pub fn headers(state: QuotaState, now: DateTime<Utc>) -> Vec<(&'static str, HeaderValue)> {
    let reset = (reset_at(now) - now).num_seconds().max(0);
    let remaining = state.limit.saturating_sub(state.used);
    // Structured-field lists of one item: a string naming the policy, with integer
    // parameters; every part is ASCII digits or the constant name.
    let field = |text: String| HeaderValue::from_str(&text).unwrap_or(HeaderValue::from_static(""));
    let mut out = vec![
        (
            "ratelimit-policy",
            field(format!("\"{POLICY}\";q={};w={WINDOW_SECONDS}", state.limit)),
        ),
        (
            "ratelimit",
            field(format!("\"{POLICY}\";r={remaining};t={reset}")),
        ),
    ];
    if !state.allowed {
        out.push(("retry-after", HeaderValue::from(reset)));
    }
    out
}

#[cfg(test)]
mod tests;
