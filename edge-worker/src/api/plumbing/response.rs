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
mod tests;
