//! HTTP caching of the answers that change only with the deployed code or the model
//! version (the configs, the class list, cities, coverage, precinct outlines and the
//! OpenAPI documents): a strong `ETag`, an honest `Cache-Control`, and `304 Not
//! Modified` for a matching `If-None-Match` (RFC 9111, RFC 9110 section 13).
//!
//! The `ETag` is a digest of the body the endpoint produced, before any content
//! coding, with `-gzip` appended when the body goes out gzip-compressed: each
//! representation has its own strong validator, and any change of code, model version
//! or key kind (a sandbox key's answers carry `sandbox_mode`) that changes the body
//! changes it. Everything else keeps `no-store`: answers that depend on the clock, the
//! request's places or the quota.

use bytes::Bytes;
use http::header::{
    CACHE_CONTROL, CONTENT_ENCODING, CONTENT_LENGTH, CONTENT_TYPE, ETAG, HeaderValue, VARY,
};
use http::{Response, StatusCode};
use sha2::{Digest, Sha256};

/// How a cacheable answer may be stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CachePolicy {
    /// Answers to a key: only the client's own cache may keep them, and it must ask
    /// again before each use (so every use is authenticated and counted, and a revoked
    /// key stops working at once); the answer to that question is a body-less 304.
    PrivateRevalidate,
    /// Answers to a key at a URL naming the artifact version they were made from
    /// (tiles asked for with `v=`, as their `TileJSON` names them): the client's
    /// own cache may keep them for [`PINNED_MAX_AGE_SECONDS`] without asking, as
    /// a new version brings new URLs. The bound is for the answers that follow
    /// the clock (a tile of "this week" changes on Monday).
    PrivatePinned,
    /// Public documents (the OpenAPI descriptions): any cache may keep them for
    /// [`PUBLIC_MAX_AGE_SECONDS`], then revalidate. A deploy shows within that time.
    Public,
}

/// How long a client may use a version-pinned answer without asking.
pub const PINNED_MAX_AGE_SECONDS: u32 = 3600;

/// How long a shared cache may serve a public document without asking.
pub const PUBLIC_MAX_AGE_SECONDS: u32 = 300;

impl CachePolicy {
    /// The `Cache-Control` value.
    #[must_use]
    pub const fn cache_control(self) -> &'static str {
        match self {
            Self::PrivateRevalidate => "private, no-cache",
            Self::PrivatePinned => "private, max-age=3600",
            Self::Public => "public, max-age=300",
        }
    }
}

/// The strong entity tag of a body: 128 bits of its SHA-256 in hex, quoted, with the
/// content coding appended when there is one.
#[must_use]
pub fn entity_tag(body: &[u8], coding: Option<&str>) -> String {
    let digest = Sha256::digest(body);
    let hex = hex::encode(&digest[..16]);
    match coding {
        Some(coding) => format!("\"{hex}-{coding}\""),
        None => format!("\"{hex}\""),
    }
}

/// Whether an `If-None-Match` value matches `etag` (weak comparison, as RFC 9110
/// section 13.1.2 requires: `W/` prefixes are ignored; `*` matches any current
/// representation).
#[must_use]
pub fn none_match(if_none_match: &str, etag: &str) -> bool {
    let opaque = |tag: &str| tag.trim().trim_start_matches("W/").to_owned();
    let wanted = opaque(etag);
    if_none_match.trim() == "*" || if_none_match.split(',').any(|tag| opaque(tag) == wanted)
}

/// Marks a successful cacheable answer: `ETag` from `identity_body` (the body before
/// compression) and the response's `Content-Encoding`, `Cache-Control` by `policy`,
/// and `Vary` on `key_header` too for private answers (a cache keyed by URL alone
/// would hand one key's answer to another). When `if_none_match` matches, the answer
/// becomes a `304 Not Modified` with the same headers and no body.
pub fn apply(
    response: &mut Response<Bytes>,
    policy: CachePolicy,
    identity_body: &[u8],
    if_none_match: Option<&str>,
    key_header: Option<&'static str>,
) {
    if response.status() != StatusCode::OK {
        return;
    }
    let coding = response
        .headers()
        .get(CONTENT_ENCODING)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let etag = entity_tag(identity_body, coding.as_deref());
    let headers = response.headers_mut();
    if let Ok(value) = HeaderValue::from_str(&etag) {
        headers.insert(ETAG, value);
    }
    headers.insert(
        CACHE_CONTROL,
        HeaderValue::from_static(policy.cache_control()),
    );
    if let (CachePolicy::PrivateRevalidate | CachePolicy::PrivatePinned, Some(key_header)) =
        (policy, key_header)
    {
        let vary = headers
            .get(VARY)
            .and_then(|v| v.to_str().ok())
            .map_or_else(|| key_header.to_owned(), |v| format!("{v}, {key_header}"));
        if let Ok(value) = HeaderValue::from_str(&vary) {
            headers.insert(VARY, value);
        }
    }
    if if_none_match.is_some_and(|value| none_match(value, &etag)) {
        *response.status_mut() = StatusCode::NOT_MODIFIED;
        *response.body_mut() = Bytes::new();
        let headers = response.headers_mut();
        for name in [CONTENT_ENCODING, CONTENT_LENGTH, CONTENT_TYPE] {
            headers.remove(name);
        }
    }
}

#[cfg(test)]
mod tests;
