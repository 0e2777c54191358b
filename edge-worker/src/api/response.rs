//! Building JSON responses with the headers every answer carries.

use bytes::Bytes;
use http::header::{self, HeaderValue};
use http::{Response, StatusCode};
use serde_json::Value;

use super::ApiError;

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

/// Whether an `Accept-Encoding` value accepts gzip (`q=0` refuses it).
#[must_use]
pub fn accepts_gzip(accept_encoding: Option<&str>) -> bool {
    accept_encoding.is_some_and(|value| {
        value.split(',').any(|coding| {
            let mut parts = coding.split(';');
            let name = parts.next().unwrap_or("").trim();
            let refused = parts.any(|p| {
                p.trim()
                    .strip_prefix("q=")
                    .and_then(|q| q.trim().parse::<f32>().ok())
                    == Some(0.0)
            });
            (name.eq_ignore_ascii_case("gzip") || name == "*") && !refused
        })
    })
}

/// Compresses a response body with gzip when the client accepts it and the body is
/// at least [`COMPRESS_MIN_BYTES`]; sets `Content-Encoding` and `Vary`.
pub fn compress(response: &mut Response<Bytes>, accept_encoding: Option<&str>) {
    use std::io::Write;
    if response.body().len() < COMPRESS_MIN_BYTES
        || response.headers().contains_key(header::CONTENT_ENCODING)
    {
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
    if !accepts_gzip(accept_encoding) {
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
    fn large_bodies_are_gzipped_only_when_accepted() {
        use std::io::Read;
        let big = serde_json::json!({"cells": vec!["882b9bc46dfffff"; 500]});
        for (accept, gzipped) in [
            (Some("gzip, deflate, br"), true),
            (Some("br;q=1.0, gzip;q=0.8"), true),
            (Some("*"), true),
            (Some("gzip;q=0"), false),
            (Some("identity"), false),
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
    }

    #[test]
    fn error_responses_use_the_code_status() {
        let response = error(&ApiError::new(ErrorCode::Unauthorized, "API key required"));
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
        let body: Value = serde_json::from_slice(response.body()).unwrap();
        assert_eq!(body["code"], "UNAUTHORIZED");
    }
}
