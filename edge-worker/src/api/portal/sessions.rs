//! Sessions: an opaque random id in a `__Host-` cookie, stored only as its digest,
//! ended by an idle and an absolute timeout or by signing out.
//!
//! The cookie is `Secure`, `HttpOnly`, `SameSite=Strict` and `Path=/` with no
//! `Domain`, which the `__Host-` prefix makes browsers enforce. A new id is issued at
//! every sign-in (the one presented, if any, is ended), so an id planted before
//! sign-in is worth nothing after it. Signing out ends the session in the store, so
//! its id stops working wherever it was used.

use chrono::{DateTime, TimeDelta, Utc};
use sha2::{Digest, Sha256};

use super::random;
use crate::api::partners::store::Session;

/// The session cookie's name.
pub const COOKIE: &str = "__Host-hexrisk-session";

/// A session unused this long has ended.
pub const IDLE_TIMEOUT: TimeDelta = TimeDelta::minutes(30);

/// A session this old has ended, however busy.
pub const ABSOLUTE_TIMEOUT: TimeDelta = TimeDelta::hours(12);

/// What lasts (another passkey, a new or rolled key) needs a user-verified passkey
/// ceremony this recent: the sign-in that started the session, or a fresh one.
pub const STEP_UP_WINDOW: TimeDelta = TimeDelta::minutes(5);

/// A key revoked or expired this long ago is deleted from the store: as long as its
/// gate keeps its usage (`gate::KEEP_DAYS`, checked in the tests below).
pub const KEYS_KEPT: TimeDelta = TimeDelta::days(100);

/// How stale a session's last use may be in the store: a busy session is written
/// at most once a minute, which bounds the idle timeout's error to a minute.
pub const TOUCH_EVERY: TimeDelta = TimeDelta::minutes(1);

/// A new session id (256 random bits, base64url) and the digest it is stored by.
///
/// # Errors
/// When the platform has no randomness.
pub fn new_id() -> Result<(String, String), getrandom::Error> {
    let id = random::token::<32>()?;
    let digest = digest(&id);
    Ok((id, digest))
}

/// The digest a session id is stored by: SHA-256, lowercase hex.
#[must_use]
pub fn digest(id: &str) -> String {
    hex::encode(Sha256::digest(id.as_bytes()))
}

/// The session id in a `Cookie` header, if it carries a well-formed one.
#[must_use]
pub fn id_in(cookie_header: Option<&str>) -> Option<&str> {
    cookie_header?
        .split(';')
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(name, _)| *name == COOKIE)
        .map(|(_, value)| value.trim())
        .filter(|v| {
            v.len() == 43
                && v.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        })
}

/// The `Set-Cookie` value that hands a browser session `id`.
#[must_use]
pub fn set_cookie(id: &str) -> String {
    format!(
        "{COOKIE}={id}; Path=/; Secure; HttpOnly; SameSite=Strict; Max-Age={}",
        ABSOLUTE_TIMEOUT.num_seconds()
    )
}

/// The `Set-Cookie` value that removes the session cookie.
#[must_use]
pub fn clear_cookie() -> String {
    format!("{COOKIE}=; Path=/; Secure; HttpOnly; SameSite=Strict; Max-Age=0")
}

impl Session {
    /// Whether the session may be used at `now`: not ended, used within the idle
    /// timeout and younger than the absolute timeout.
    #[must_use]
    pub fn is_live(&self, now: DateTime<Utc>) -> bool {
        self.ended_at.is_none()
            && now - self.last_seen_at < IDLE_TIMEOUT
            && now - self.created_at < ABSOLUTE_TIMEOUT
    }

    /// Whether it began with a user-verified ceremony within [`STEP_UP_WINDOW`] of
    /// `now` (every sign-in and registration the portal accepts is user-verified).
    #[must_use]
    pub fn is_recently_verified(&self, now: DateTime<Utc>) -> bool {
        now - self.created_at <= STEP_UP_WINDOW
    }

    /// Whether its last use at `now` should be written to the store.
    #[must_use]
    pub fn needs_touch(&self, now: DateTime<Utc>) -> bool {
        now - self.last_seen_at >= TOUCH_EVERY
    }
}

#[cfg(test)]
mod tests;
