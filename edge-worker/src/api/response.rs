//! Building JSON responses with the headers every answer carries.

use bytes::Bytes;
use http::header::{self, HeaderValue};
use http::{Response, StatusCode};
use serde_json::Value;

use super::ApiError;

/// Headers set on every response, success or error.
const SECURITY_HEADERS: [(&str, &str); 5] = [
    ("x-content-type-options", "nosniff"),
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

/// The response for an error, with its code's status.
#[must_use]
pub fn error(err: &ApiError) -> Response<Bytes> {
    json(err.code.status(), &err.body())
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
    fn error_responses_use_the_code_status() {
        let response = error(&ApiError::new(ErrorCode::Unauthorized, "API key required"));
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
        let body: Value = serde_json::from_slice(response.body()).unwrap();
        assert_eq!(body["code"], "UNAUTHORIZED");
    }
}
