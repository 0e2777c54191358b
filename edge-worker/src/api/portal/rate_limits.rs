//! Rate limits of the portal's state-changing requests, per client address and per
//! account, in fixed one-minute windows counted in the store: sign-in and applying
//! (the requests a guesser repeats) have the tightest. Over a limit the answer is
//! `429 RATE_LIMITED` with `Retry-After`, and nothing is done.
//!
//! An address is counted by its network: an IPv4 address alone, an IPv6 address by
//! its /64 prefix, which one subscriber usually holds whole, so that walking
//! through the addresses of a /64 walks around nothing.

use chrono::{DateTime, DurationRound, TimeDelta, Utc};

use crate::api::backend::Backend;
use crate::api::{ApiError, ErrorCode};

/// The window of every limit.
pub const WINDOW: TimeDelta = TimeDelta::minutes(1);

/// Sign-in and application requests (options and answers) per address and window.
pub const SIGN_IN_PER_ADDRESS: u32 = 20;

/// Sign-in answers naming one passkey per window, from any addresses: counted
/// before the passkey is looked up, so an id no account has is counted alike and
/// the answer tells nothing of whether it exists.
pub const SIGN_IN_PER_PASSKEY: u32 = 10;

/// Every state-changing request per address and window.
pub const CHANGES_PER_ADDRESS: u32 = 60;

/// Every state-changing request of one signed-in account per window.
pub const CHANGES_PER_ACCOUNT: u32 = 60;

/// What a request is counted as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Counted {
    /// Signing in, applying or enrolling: no account yet.
    SignIn,
    /// Any other change.
    Change,
}

/// The start of the window holding `now`.
#[must_use]
pub fn window_of(now: DateTime<Utc>) -> DateTime<Utc> {
    now.duration_trunc(WINDOW).unwrap_or(now)
}

fn limited(bucket: &str, limit: u32, now: DateTime<Utc>) -> ApiError {
    let retry = (window_of(now) + WINDOW - now).num_seconds().max(1);
    ApiError::new(
        ErrorCode::RateLimited,
        "too many requests to the portal; wait a minute",
    )
    .with("limit", limit)
    .with("window_seconds", WINDOW.num_seconds())
    .with("retry_after_seconds", retry)
    .with("scope", bucket)
}

/// The bucket name of a client address: an IPv4 address as it is, an IPv6 address
/// as its /64 prefix (`2001:db8:1:2::/64`); text that is not an address as it is.
#[must_use]
pub fn network_of(address: &str) -> String {
    match address.trim().parse::<std::net::IpAddr>() {
        Ok(std::net::IpAddr::V4(v4)) => v4.to_string(),
        // An IPv4 address written as IPv6 is the IPv4 host.
        Ok(std::net::IpAddr::V6(v6)) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                v4.to_string()
            } else {
                let prefix = u128::from(v6) & !((1_u128 << 64) - 1);
                format!("{}/64", std::net::Ipv6Addr::from(prefix))
            }
        }
        Err(_) => address.to_owned(),
    }
}

/// Counts a request from `address` (and `account`, once known) and refuses it over
/// a limit.
///
/// # Errors
/// `RATE_LIMITED` over a limit (`details.scope` `address` or `account`);
/// `INTERNAL_ERROR` when the store fails.
pub async fn check<B: Backend>(
    backend: &B,
    counted: Counted,
    (address, account): (Option<&str>, Option<&str>),
    now: DateTime<Utc>,
) -> Result<(), ApiError> {
    let window = window_of(now);
    // Requests without an address (local runs, tests) share one bucket.
    let address = address.map_or_else(|| "unknown".to_owned(), network_of);
    let mut buckets = vec![(format!("address:{address}"), CHANGES_PER_ADDRESS, "address")];
    if counted == Counted::SignIn {
        buckets.push((format!("sign-in:{address}"), SIGN_IN_PER_ADDRESS, "address"));
    }
    if let Some(account) = account {
        buckets.push((format!("account:{account}"), CHANGES_PER_ACCOUNT, "account"));
    }
    for (bucket, limit, scope) in buckets {
        let count = backend
            .count_request(&bucket, window)
            .await
            .map_err(super::stored(backend))?;
        if count > limit {
            return Err(limited(scope, limit, now));
        }
    }
    Ok(())
}

/// Counts a sign-in answer naming the passkey `credential_id` and refuses it over
/// [`SIGN_IN_PER_PASSKEY`] (`details.scope` `passkey`): what stops guesses at one
/// account spread over many addresses.
///
/// # Errors
/// `RATE_LIMITED` over the limit; `INTERNAL_ERROR` when the store fails.
pub async fn check_passkey<B: Backend>(
    backend: &B,
    credential_id: &str,
    now: DateTime<Utc>,
) -> Result<(), ApiError> {
    let count = backend
        .count_request(&format!("sign-in-passkey:{credential_id}"), window_of(now))
        .await
        .map_err(super::stored(backend))?;
    if count > SIGN_IN_PER_PASSKEY {
        return Err(limited("passkey", SIGN_IN_PER_PASSKEY, now));
    }
    Ok(())
}

#[cfg(test)]
mod tests;
