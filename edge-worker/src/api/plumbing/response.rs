//! Building JSON responses with the headers every answer carries.

use bytes::Bytes;
use http::header::{self, HeaderValue};
use http::{Response, StatusCode};
use serde_json::Value;

use crate::api::ApiError;

/// Headers set on every response, success or error (docs/API.md, "Security
/// headers").
pub const SECURITY_HEADERS: [(&str, &str); 6] = [
    ("x-content-type-options", "nosniff"),
    // The API is served over HTTPS only; browsers ignore this on plain http://.
    (
        "strict-transport-security",
        "max-age=63072000; includeSubDomains",
    ),
    ("x-frame-options", "DENY"),
    ("referrer-policy", "no-referrer"),
    (
        "content-security-policy",
        "default-src 'none'; frame-ancestors 'none'",
    ),
    ("cache-control", "no-store"),
];

/// A JSON response with the given status.
#[must_use]
pub fn json(status: StatusCode, body: &Value) -> Response<Bytes> {
    // Serialising a `Value` cannot fail: its map keys are always strings.
    json_bytes(
        status,
        Bytes::from(serde_json::to_vec(body).unwrap_or_default()),
    )
}

/// A response of already serialised JSON.
#[must_use]
pub fn json_bytes(status: StatusCode, bytes: Bytes) -> Response<Bytes> {
    let mut response = Response::new(bytes);
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json; charset=utf-8"),
    );
    for (name, value) in SECURITY_HEADERS {
        headers.insert(name, HeaderValue::from_static(value));
    }
    response
}

/// A response without a body (preflights), with the security headers.
#[must_use]
pub fn empty(status: StatusCode) -> Response<Bytes> {
    let mut response = json_bytes(status, Bytes::new());
    response.headers_mut().remove(header::CONTENT_TYPE);
    response
}

/// Bodies smaller than this are sent as they are: gzip would gain too little.
pub const COMPRESS_MIN_BYTES: usize = 1024;

/// The content coding of a response body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Coding {
    /// The body as it is.
    Identity,
    /// gzip.
    Gzip,
}

/// What an `Accept-Encoding` value (RFC 9110, section 12.5.3) lets a response use.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AcceptedCodings {
    /// Preference for gzip, 0 (refused) to 1.
    pub gzip: f32,
    /// Preference for the body as it is, 0 (refused) to 1.
    pub identity: f32,
    /// Whether the header gave `identity` a preference (by name or by `*`); if not,
    /// it is acceptable but does not compete with the codings listed.
    pub identity_listed: bool,
}

impl AcceptedCodings {
    /// Reads the header: no header, or an empty one, asks for no coding; a coding
    /// not listed is refused unless `*` names it; `identity` is accepted unless
    /// `identity;q=0`, or `*;q=0` without an `identity` entry, refuses it. An entry
    /// with a malformed `q` is ignored.
    #[must_use]
    pub fn parse(accept_encoding: Option<&str>) -> Self {
        let Some(value) = accept_encoding.filter(|v| !v.trim().is_empty()) else {
            return Self {
                gzip: 0.0,
                identity: 1.0,
                identity_listed: false,
            };
        };
        let (mut gzip, mut identity, mut any) = (None, None, None);
        for entry in value.split(',') {
            let mut parts = entry.split(';');
            let name = parts.next().unwrap_or("").trim().to_ascii_lowercase();
            let mut q = Some(1.0);
            for parameter in parts {
                let (key, text) = parameter.split_once('=').unwrap_or((parameter, ""));
                if key.trim().eq_ignore_ascii_case("q") {
                    q = text
                        .trim()
                        .parse::<f32>()
                        .ok()
                        .filter(|q| (0.0..=1.0).contains(q));
                }
            }
            let Some(q) = q else { continue };
            match name.as_str() {
                "gzip" | "x-gzip" => gzip = Some(q),
                "identity" => identity = Some(q),
                "*" => any = Some(q),
                _ => {}
            }
        }
        Self {
            gzip: gzip.or(any).unwrap_or(0.0),
            identity: identity.or(any).unwrap_or(1.0),
            identity_listed: identity.or(any).is_some(),
        }
    }

    /// The coding for a body of `len` bytes: gzip when accepted, preferred at least as
    /// much as the body as it is if the header ranks both, and the body is large
    /// enough to gain (or the body as it is is refused); else the body as it is. When
    /// the client refuses both, the body is sent as it is: RFC 9110 (section 12.5.3)
    /// leaves that case open, and a plain body is what any client can read.
    #[must_use]
    pub fn choose(self, len: usize) -> Coding {
        let gzip_wanted = self.gzip > 0.0 && (!self.identity_listed || self.gzip >= self.identity);
        if self.gzip > 0.0 && (self.identity <= 0.0 || (gzip_wanted && len >= COMPRESS_MIN_BYTES)) {
            Coding::Gzip
        } else {
            Coding::Identity
        }
    }
}

/// Compresses a response body with gzip when the client's `Accept-Encoding` makes
/// gzip the coding to use ([`AcceptedCodings::choose`]); sets `Content-Encoding`, and
/// `Vary: Accept-Encoding` on every answer whose coding could depend on it.
pub fn compress(response: &mut Response<Bytes>, accept_encoding: Option<&str>) {
    use std::io::Write;
    if response.headers().contains_key(header::CONTENT_ENCODING) {
        return;
    }
    let vary = response
        .headers()
        .get(header::VARY)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    if !vary
        .as_deref()
        .is_some_and(|v| v.contains("Accept-Encoding"))
    {
        let value = vary.map_or_else(
            || "Accept-Encoding".to_owned(),
            |v| format!("{v}, Accept-Encoding"),
        );
        if let Ok(value) = HeaderValue::from_str(&value) {
            response.headers_mut().insert(header::VARY, value);
        }
    }
    let coding = AcceptedCodings::parse(accept_encoding).choose(response.body().len());
    if coding == Coding::Identity || response.body().is_empty() {
        return;
    }
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    // Writing to a Vec cannot fail.
    if encoder.write_all(response.body()).is_err() {
        return;
    }
    let Ok(compressed) = encoder.finish() else {
        return;
    };
    *response.body_mut() = Bytes::from(compressed);
    response
        .headers_mut()
        .insert(header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
}

/// The response for an error, with its code's status.
#[must_use]
pub fn error(err: &ApiError) -> Response<Bytes> {
    json(err.status(), &err.body())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::ErrorCode;

    #[test]
    fn json_responses_carry_type_and_security_headers() {
        let response = json(StatusCode::OK, &serde_json::json!({"status": "success"}));
        let headers = response.headers();
        assert_eq!(headers["content-type"], "application/json; charset=utf-8");
        assert_eq!(headers["x-content-type-options"], "nosniff");
        assert_eq!(headers["cache-control"], "no-store");
        let body: Value = serde_json::from_slice(response.body()).unwrap();
        assert_eq!(body["status"], "success");
    }

    #[test]
    fn accept_encoding_is_read_as_rfc_9110_says() {
        let q = |value: Option<&str>| {
            let a = AcceptedCodings::parse(value);
            (a.gzip, a.identity)
        };
        assert_eq!(q(None), (0.0, 1.0));
        assert_eq!(q(Some("")), (0.0, 1.0));
        assert_eq!(q(Some("gzip, deflate, br")), (1.0, 1.0));
        assert_eq!(q(Some("br;q=1.0, GZIP;q=0.8")), (0.8, 1.0));
        assert_eq!(q(Some("x-gzip")), (1.0, 1.0));
        assert_eq!(q(Some("*")), (1.0, 1.0));
        assert_eq!(q(Some("*;q=0")), (0.0, 0.0));
        assert_eq!(q(Some("*;q=0, identity")), (0.0, 1.0));
        assert_eq!(q(Some("gzip;q=0, *")), (0.0, 1.0));
        assert_eq!(q(Some("identity;q=0")), (0.0, 0.0));
        assert_eq!(q(Some("identity;q=0, gzip;q=0.5")), (0.5, 0.0));
        assert_eq!(q(Some("br")), (0.0, 1.0));
        // A malformed or out-of-range q drops its entry.
        assert_eq!(q(Some("gzip;q=high")), (0.0, 1.0));
        assert_eq!(q(Some("gzip;q=2")), (0.0, 1.0));
    }

    #[test]
    fn the_coding_follows_the_preferences_and_the_size() {
        let choose = |value: &str, len: usize| AcceptedCodings::parse(Some(value)).choose(len);
        let big = COMPRESS_MIN_BYTES;
        assert_eq!(choose("gzip", big), Coding::Gzip);
        assert_eq!(choose("gzip", big - 1), Coding::Identity);
        assert_eq!(choose("gzip;q=0.5, identity", big), Coding::Identity);
        assert_eq!(choose("gzip, identity;q=0.5", big), Coding::Gzip);
        // Identity refused: even a small body is compressed.
        assert_eq!(choose("gzip, identity;q=0", 10), Coding::Gzip);
        // Nothing acceptable: the header is disregarded.
        assert_eq!(choose("identity;q=0", big), Coding::Identity);
        assert_eq!(choose("br", big), Coding::Identity);
    }

    #[test]
    fn large_bodies_are_gzipped_only_when_accepted() {
        use std::io::Read;
        let big = serde_json::json!({"cells": vec!["882b9bc46dfffff"; 500]});
        for (accept, gzipped) in [
            (Some("gzip, deflate, br"), true),
            (Some("br;q=1.0, gzip;q=0.8"), true),
            (Some("*"), true),
            (Some("gzip;q=0"), false),
            (Some("identity"), false),
            (Some("*;q=0, identity"), false),
            (None, false),
        ] {
            let mut response = json(StatusCode::OK, &big);
            let original = response.body().clone();
            compress(&mut response, accept);
            assert_eq!(
                response.headers().contains_key("content-encoding"),
                gzipped,
                "{accept:?}"
            );
            assert_eq!(response.headers()["vary"], "Accept-Encoding");
            if gzipped {
                assert!(response.body().len() < original.len() / 5);
                let mut plain = Vec::new();
                flate2::read::GzDecoder::new(&response.body()[..])
                    .read_to_end(&mut plain)
                    .unwrap();
                assert_eq!(plain, original);
            } else {
                assert_eq!(response.body(), &original);
            }
        }
        let mut small = json(StatusCode::OK, &serde_json::json!({"status": "success"}));
        compress(&mut small, Some("gzip"));
        assert!(!small.headers().contains_key("content-encoding"));
        assert_eq!(small.headers()["vary"], "Accept-Encoding");
        compress(&mut small, Some("gzip, identity;q=0"));
        assert_eq!(small.headers()["content-encoding"], "gzip");
    }

    #[test]
    fn error_responses_use_the_code_status() {
        let response = error(&ApiError::new(ErrorCode::Unauthorized, "API key required"));
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
        let body: Value = serde_json::from_slice(response.body()).unwrap();
        assert_eq!(body["code"], "UNAUTHORIZED");
    }
}
