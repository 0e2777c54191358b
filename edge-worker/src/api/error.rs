//! The error body shared by both APIs: `{status: "error", code, message, details}`.

use core::fmt;

use http::StatusCode;
use serde_json::{Map, Value};

/// Machine-readable error codes, with their HTTP statuses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorCode {
    /// Coordinates outside every covered city (404).
    LocationNotCovered,
    /// Requested date not available for predictions (400).
    DateOutOfRange,
    /// Coordinates malformed or out of bounds (400).
    InvalidCoordinates,
    /// Request malformed (400).
    InvalidRequest,
    /// Key missing or invalid (401).
    Unauthorized,
    /// Browser origin not allowed for the key (403).
    Forbidden,
    /// No such path (404).
    NotFound,
    /// Path exists but not for this method (405).
    MethodNotAllowed,
    /// Daily limit exceeded (429).
    RateLimited,
    /// Server error (500).
    InternalError,
    /// A dependency such as the model is not available (503).
    ServiceUnavailable,
}

impl ErrorCode {
    /// The code as it appears in the body.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::LocationNotCovered => "LOCATION_NOT_COVERED",
            Self::DateOutOfRange => "DATE_OUT_OF_RANGE",
            Self::InvalidCoordinates => "INVALID_COORDINATES",
            Self::InvalidRequest => "INVALID_REQUEST",
            Self::Unauthorized => "UNAUTHORIZED",
            Self::Forbidden => "FORBIDDEN",
            Self::NotFound => "NOT_FOUND",
            Self::MethodNotAllowed => "METHOD_NOT_ALLOWED",
            Self::RateLimited => "RATE_LIMITED",
            Self::InternalError => "INTERNAL_ERROR",
            Self::ServiceUnavailable => "SERVICE_UNAVAILABLE",
        }
    }

    /// The HTTP status that goes with the code.
    #[must_use]
    pub const fn status(self) -> StatusCode {
        match self {
            Self::LocationNotCovered | Self::NotFound => StatusCode::NOT_FOUND,
            Self::DateOutOfRange | Self::InvalidCoordinates | Self::InvalidRequest => {
                StatusCode::BAD_REQUEST
            }
            Self::Unauthorized => StatusCode::UNAUTHORIZED,
            Self::Forbidden => StatusCode::FORBIDDEN,
            Self::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            Self::RateLimited => StatusCode::TOO_MANY_REQUESTS,
            Self::InternalError => StatusCode::INTERNAL_SERVER_ERROR,
            Self::ServiceUnavailable => StatusCode::SERVICE_UNAVAILABLE,
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An error answer: code, human-readable message and structured details.
#[derive(Debug, Clone, PartialEq)]
pub struct ApiError {
    /// The error code.
    pub code: ErrorCode,
    /// Text for people.
    pub message: String,
    /// Structured context; keys vary by error.
    pub details: Map<String, Value>,
}

impl From<hexrisk_engine::api::QueryError> for ApiError {
    /// An engine request error (shared with the npm package) in the API's shape.
    fn from(err: hexrisk_engine::api::QueryError) -> Self {
        let code = match err.code.as_str() {
            "INVALID_COORDINATES" => ErrorCode::InvalidCoordinates,
            "LOCATION_NOT_COVERED" => ErrorCode::LocationNotCovered,
            "DATE_OUT_OF_RANGE" => ErrorCode::DateOutOfRange,
            _ => ErrorCode::InvalidRequest,
        };
        let details = err.details();
        let mut api = Self::new(code, err.message);
        api.details = details;
        api
    }
}

impl ApiError {
    /// An error with empty details.
    #[must_use]
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            details: Map::new(),
        }
    }

    /// Adds one entry to `details`.
    #[must_use]
    pub fn with(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.details.insert(key.to_owned(), value.into());
        self
    }

    /// 404 for a path neither API serves.
    #[must_use]
    pub fn not_found(path: &str) -> Self {
        Self::new(ErrorCode::NotFound, "no such endpoint")
            .with("path", path)
            .with(
                "suggestion",
                "See GET /v1/openapi.json and GET /openapi.json for the endpoints.",
            )
    }

    /// 405 for a known path called with the wrong method.
    #[must_use]
    pub fn method_not_allowed(method: &http::Method, allowed: &[http::Method]) -> Self {
        let allowed: Vec<Value> = allowed.iter().map(|m| Value::from(m.as_str())).collect();
        Self::new(
            ErrorCode::MethodNotAllowed,
            format!("method {method} is not allowed here"),
        )
        .with("allowed", allowed)
    }

    /// The JSON body.
    #[must_use]
    pub fn body(&self) -> Value {
        serde_json::json!({
            "status": "error",
            "code": self.code.as_str(),
            "message": self.message,
            "details": self.details,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn body_has_the_documented_shape() {
        let err = ApiError::new(
            ErrorCode::InvalidCoordinates,
            "latitude must be between -90 and 90",
        )
        .with("field", "latitude")
        .with("value", 91.0)
        .with("valid_range", vec![-90.0, 90.0]);
        let body = err.body();
        assert_eq!(body["status"], "error");
        assert_eq!(body["code"], "INVALID_COORDINATES");
        assert_eq!(body["message"], "latitude must be between -90 and 90");
        assert_eq!(
            body["details"]["valid_range"],
            serde_json::json!([-90.0, 90.0])
        );
        assert_eq!(body.as_object().unwrap().len(), 4);
    }

    #[test]
    fn statuses_match_the_specification() {
        let table = [
            (ErrorCode::LocationNotCovered, 404),
            (ErrorCode::DateOutOfRange, 400),
            (ErrorCode::InvalidCoordinates, 400),
            (ErrorCode::InvalidRequest, 400),
            (ErrorCode::Unauthorized, 401),
            (ErrorCode::RateLimited, 429),
            (ErrorCode::InternalError, 500),
        ];
        for (code, status) in table {
            assert_eq!(code.status().as_u16(), status, "{code}");
        }
    }

    #[test]
    fn method_not_allowed_lists_the_allowed_methods() {
        let err = ApiError::method_not_allowed(&http::Method::DELETE, &[http::Method::GET]);
        assert_eq!(err.code.status(), StatusCode::METHOD_NOT_ALLOWED);
        assert_eq!(err.details["allowed"], serde_json::json!(["GET"]));
    }
}
