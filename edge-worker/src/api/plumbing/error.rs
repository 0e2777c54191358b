//! The error body shared by both APIs: `{status: "error", code, message, details}`.

use hexrisk_engine::operations::QueryError;
use http::StatusCode;
use serde_json::{Map, Value};

/// The machine-readable error codes, shared with the engine and the npm package.
pub use hexrisk_engine::operations::ErrorCode;

/// The HTTP status that goes with a code (the Worker's, not the engine's: the
/// codes are the same offline and online, the statuses exist only here).
#[must_use]
pub const fn status(code: ErrorCode) -> StatusCode {
    match code {
        ErrorCode::LocationNotCovered | ErrorCode::NotFound => StatusCode::NOT_FOUND,
        ErrorCode::DateOutOfRange | ErrorCode::InvalidCoordinates | ErrorCode::InvalidRequest => {
            StatusCode::BAD_REQUEST
        }
        ErrorCode::Unauthorized => StatusCode::UNAUTHORIZED,
        ErrorCode::Forbidden => StatusCode::FORBIDDEN,
        ErrorCode::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
        ErrorCode::RateLimited => StatusCode::TOO_MANY_REQUESTS,
        ErrorCode::Conflict => StatusCode::CONFLICT,
        // The Worker loads its own artifacts: one that cannot be loaded is its fault.
        ErrorCode::InternalError | ErrorCode::InvalidArtifact => StatusCode::INTERNAL_SERVER_ERROR,
        ErrorCode::ServiceUnavailable => StatusCode::SERVICE_UNAVAILABLE,
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

impl From<QueryError> for ApiError {
    /// An engine request error (shared with the npm package) in the API's shape.
    fn from(err: QueryError) -> Self {
        Self {
            code: err.code,
            details: err.details(),
            message: err.message,
        }
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

    /// The HTTP status of the answer.
    #[must_use]
    pub const fn status(&self) -> StatusCode {
        status(self.code)
    }

    /// The JSON body.
    #[must_use]
    pub fn body(&self) -> Value {
        serde_json::to_value(ErrorBody {
            status: "error",
            code: self.code.as_str(),
            message: &self.message,
            details: &self.details,
        })
        .unwrap_or_default()
    }
}

/// An error answer's body, as every API of the Worker sends it.
#[derive(serde::Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema), schemars(rename = "Error"))]
#[serde(deny_unknown_fields)]
pub(crate) struct ErrorBody<'a> {
    /// `error`.
    #[cfg_attr(test, schemars(extend("const" = "error")))]
    status: &'static str,
    /// The machine-readable error code.
    #[cfg_attr(test, schemars(schema_with = "error_codes"))]
    code: &'static str,
    /// Text for people.
    message: &'a str,
    /// Structured context; keys vary by error (docs/API.md, "Errors").
    details: &'a Map<String, Value>,
}

/// The schema of an error code: one of the codes the Worker answers with (the npm
/// package's `INVALID_ARTIFACT` is never sent).
#[cfg(test)]
fn error_codes(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let codes: Vec<&str> = ErrorCode::ALL
        .iter()
        .filter(|code| **code != ErrorCode::InvalidArtifact)
        .map(|code| code.as_str())
        .collect();
    schemars::json_schema!({ "type": "string", "enum": codes })
}

#[cfg(test)]
mod tests;
