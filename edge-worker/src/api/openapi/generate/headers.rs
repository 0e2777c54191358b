//! The response headers the documents describe, as components: the quota and cache
//! headers of the keyed APIs (docs/API.md) and the portal's.

use serde_json::{Map, Value, json};

use crate::api::plumbing::caching::{PINNED_MAX_AGE_SECONDS, PUBLIC_MAX_AGE_SECONDS};

/// What `Cache-Control` says of each kind of answer (`plumbing::caching`).
fn cache_control() -> String {
    format!(
        "private, no-cache for answers to a key (a private cache may keep them but must \
         revalidate: every use is authenticated and counted); private, \
         max-age={PINNED_MAX_AGE_SECONDS} for a tile whose URL names the artifact version in \
         force (v=); public, max-age={PUBLIC_MAX_AGE_SECONDS} for the OpenAPI documents; \
         no-store for every other answer"
    )
}

/// The headers of the prediction and router documents.
pub(super) fn keyed_api() -> Map<String, Value> {
    let headers = json!({
        "RateLimit": {"description": "the key's remaining daily quota, draft-ietf-httpapi-ratelimit-headers-10: r = requests left today, t = seconds until 00:00 UTC, when the count resets", "schema": {"type": "string", "pattern": "^\"daily\";r=[0-9]+;t=[0-9]+$"}, "example": "\"daily\";r=9958;t=3600"},
        "RateLimit-Policy": {"description": "the key's quota policy, draft-ietf-httpapi-ratelimit-headers-10: q = requests per window, w = window in seconds", "schema": {"type": "string", "pattern": "^\"daily\";q=[0-9]+;w=86400$"}, "example": "\"daily\";q=10000;w=86400"},
        "Retry-After": {"description": "seconds until the daily count resets (00:00 UTC)", "schema": {"type": "integer", "minimum": 0}},
        "ETag": {"description": "strong validator of this representation: 128 bits of the SHA-256 of the body before any content coding, with -gzip appended when the body is gzip-compressed; send it back in If-None-Match to get 304 while it is current (a W/ prefix when the platform re-encodes the body, as it may for a client that prefers br)", "schema": {"type": "string", "pattern": "^(W/)?\"[0-9a-f]{32}(-gzip)?\"$"}},
        "Cache-Control": { "description": cache_control(), "schema": {"type": "string"} },
    });
    headers.as_object().cloned().unwrap_or_default()
}

/// The headers of the portal's document.
pub(super) fn portal() -> Map<String, Value> {
    let headers = json!({
        "Retry-After": {
            "description": "seconds until a request may succeed again",
            "schema": { "type": "string", "pattern": "^[0-9]+$" },
        },
        "Set-Cookie": {
            "description": "__Host-hexrisk-session (Secure; HttpOnly; SameSite=Strict; Path=/)",
            "schema": { "type": "string" },
        },
    });
    headers.as_object().cloned().unwrap_or_default()
}
