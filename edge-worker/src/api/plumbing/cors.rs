//! Browser origins for the router API: each key lists the origins allowed to use it.
//!
//! - A request with `Origin` must come from an origin on its key's list, compared
//!   exactly (scheme, host and port, ASCII case-insensitive, without a trailing
//!   slash); otherwise `403 FORBIDDEN`. Requests without `Origin` (servers) pass on
//!   the key alone.
//! - Allowed answers carry `Access-Control-Allow-Origin` with exactly that origin
//!   (never `*`, never an origin that is not listed) and `Vary: Origin`.
//! - A preflight (`OPTIONS`) carries no key, so it is answered for any browser
//!   origin without reading the key store: an unauthenticated request learns nothing
//!   about any partner's list. The real request, with its key, is checked against
//!   that key's list. An origin that is not a browser origin (`null`, a path, another
//!   scheme) is refused with `403`, saying so.

use http::HeaderValue;
use http::Method;

use super::error::{ApiError, ErrorCode};

/// Request headers a browser may send.
pub const ALLOWED_HEADERS: &str = "X-API-Key, Content-Type";

/// Response headers a browser may read.
pub const EXPOSED_HEADERS: &str =
    "X-Hex-Count, Hexrisk-Model-Version, RateLimit, RateLimit-Policy, Retry-After";

/// How long a browser may cache a preflight, in seconds.
pub const PREFLIGHT_MAX_AGE_S: u32 = 600;

fn normalise(origin: &str) -> String {
    origin.trim().trim_end_matches('/').to_ascii_lowercase()
}

/// Whether `origin` is on `list`.
#[must_use]
pub fn origin_listed(list: &[String], origin: &str) -> bool {
    let origin = normalise(origin);
    !origin.is_empty() && origin != "null" && list.iter().any(|o| normalise(o) == origin)
}

/// Whether `origin` is a browser origin as the `Origin` header serialises one:
/// `http` or `https`, `://`, a host, and an optional port, nothing else. The opaque
/// origin `null` is not one.
#[must_use]
pub fn is_browser_origin(origin: &str) -> bool {
    let Some((scheme, rest)) = origin.split_once("://") else {
        return false;
    };
    let (host, port) = match rest.rsplit_once(':') {
        // An IPv6 literal's colons are inside its brackets.
        Some((host, port)) if !port.contains(']') => (host, Some(port)),
        _ => (rest, None),
    };
    matches!(scheme.to_ascii_lowercase().as_str(), "http" | "https")
        && !host.is_empty()
        && host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-.[]:_".contains(&b))
        && port
            .is_none_or(|p| !p.is_empty() && p.len() <= 5 && p.bytes().all(|b| b.is_ascii_digit()))
}

/// `403` for a preflight whose `Origin` is not a browser origin.
#[must_use]
pub fn not_a_browser_origin(origin: &str) -> ApiError {
    ApiError::new(
        ErrorCode::Forbidden,
        "the Origin header is not a browser origin (scheme://host[:port]); a page with an opaque origin cannot use a key",
    )
    .with("origin", origin)
}

/// `403` for an origin the key does not list.
#[must_use]
pub fn origin_refused(origin: &str) -> ApiError {
    ApiError::new(
        ErrorCode::Forbidden,
        "this origin is not on the API key's list of allowed origins",
    )
    .with("origin", origin)
    .with(
        "suggestion",
        "Add the origin to the key's allowlist, or call the API from your server without an Origin header.",
    )
}

fn value(text: &str) -> Option<HeaderValue> {
    HeaderValue::from_str(text).ok()
}

/// Headers of an answer to an allowed origin.
#[must_use]
pub fn allow_headers(origin: &str) -> Vec<(&'static str, HeaderValue)> {
    let Some(origin) = value(origin.trim()) else {
        return Vec::new();
    };
    vec![
        ("access-control-allow-origin", origin),
        ("vary", HeaderValue::from_static("Origin, Accept-Encoding")),
        (
            "access-control-expose-headers",
            HeaderValue::from_static(EXPOSED_HEADERS),
        ),
    ]
}

/// Headers of a successful preflight.
#[must_use]
pub fn preflight_headers(origin: &str, methods: &[Method]) -> Vec<(&'static str, HeaderValue)> {
    let mut out = allow_headers(origin);
    let mut names: Vec<&str> = methods.iter().map(Method::as_str).collect();
    names.push("OPTIONS");
    if let Some(list) = value(&names.join(", ")) {
        out.push(("access-control-allow-methods", list));
    }
    out.push((
        "access-control-allow-headers",
        HeaderValue::from_static(ALLOWED_HEADERS),
    ));
    out.push((
        "access-control-max-age",
        HeaderValue::from(PREFLIGHT_MAX_AGE_S),
    ));
    out
}

#[cfg(test)]
mod tests;
