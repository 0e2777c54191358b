//! The errors of every request: one typed code shared by both HTTP APIs and the
//! npm package, and the field, index and context that go in `details`.

use alloc::boxed::Box;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::grid::CoordinateError;
use crate::routing::MAX_SNAP_DISTANCE_M;

/// The machine-readable error codes of both APIs and the npm package.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    /// Coordinates outside every covered city.
    LocationNotCovered,
    /// Requested date not available for predictions.
    DateOutOfRange,
    /// Coordinates malformed or out of bounds.
    InvalidCoordinates,
    /// Request malformed.
    InvalidRequest,
    /// Key missing or invalid.
    Unauthorized,
    /// Browser origin not allowed for the key.
    Forbidden,
    /// No such path.
    NotFound,
    /// Path exists but not for this method.
    MethodNotAllowed,
    /// Daily limit exceeded.
    RateLimited,
    /// The thing to create exists already (the partner portal: a passkey registered
    /// before).
    Conflict,
    /// Server error.
    InternalError,
    /// A dependency such as the model is not available.
    ServiceUnavailable,
    /// A city artifact that cannot be loaded (npm package only).
    InvalidArtifact,
}

impl ErrorCode {
    /// Every code.
    pub const ALL: [Self; 13] = [
        Self::LocationNotCovered,
        Self::DateOutOfRange,
        Self::InvalidCoordinates,
        Self::InvalidRequest,
        Self::Unauthorized,
        Self::Forbidden,
        Self::NotFound,
        Self::MethodNotAllowed,
        Self::RateLimited,
        Self::Conflict,
        Self::InternalError,
        Self::ServiceUnavailable,
        Self::InvalidArtifact,
    ];

    /// The code as it appears in answers.
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
            Self::Conflict => "CONFLICT",
            Self::InternalError => "INTERNAL_ERROR",
            Self::ServiceUnavailable => "SERVICE_UNAVAILABLE",
            Self::InvalidArtifact => "INVALID_ARTIFACT",
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for ErrorCode {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// A request that cannot be answered, with the API error code.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct QueryError {
    /// The error code: [`ErrorCode::InvalidRequest`], `InvalidCoordinates`,
    /// `LocationNotCovered` or `DateOutOfRange` for requests.
    pub code: ErrorCode,
    /// Text for people.
    pub message: String,
    /// The request field at fault.
    pub field: String,
    /// Position in an array field, when the error is about one element.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index: Option<usize>,
    /// Distance to the network, for points too far to snap.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub distance_m: Option<f64>,
    /// Further context (for example `limit`, `count`, `resolution`); boxed so that
    /// `Result<_, QueryError>` stays small on the happy path.
    #[serde(flatten)]
    pub extra: Box<Map<String, Value>>,
}

impl QueryError {
    /// An error with a code, the field at fault and a message.
    #[must_use]
    pub fn new(code: ErrorCode, field: &str, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            field: field.into(),
            index: None,
            distance_m: None,
            extra: Box::default(),
        }
    }

    /// An `INVALID_REQUEST` error.
    #[must_use]
    pub fn invalid(field: &str, message: impl Into<String>) -> Self {
        Self::new(ErrorCode::InvalidRequest, field, message)
    }

    /// Adds context.
    #[must_use]
    pub fn with(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.extra.insert(key.into(), value.into());
        self
    }

    /// The field at fault.
    #[must_use]
    pub fn on(mut self, field: impl Into<String>) -> Self {
        self.field = field.into();
        self
    }

    /// The position in an array field.
    #[must_use]
    pub fn at(mut self, index: usize) -> Self {
        self.index = Some(index);
        self
    }

    /// The error's context, as the APIs' `details`: `field` (unless empty), then `index`,
    /// `distanceM` and the rest when they apply.
    #[must_use]
    pub fn details(&self) -> Map<String, Value> {
        let mut details = Map::new();
        if !self.field.is_empty() {
            details.insert("field".into(), self.field.clone().into());
        }
        if let Some(index) = self.index {
            details.insert("index".into(), index.into());
        }
        if let Some(distance) = self.distance_m {
            details.insert("distanceM".into(), distance.into());
            details.insert("maxSnapDistanceM".into(), MAX_SNAP_DISTANCE_M.into());
        }
        for (key, value) in self.extra.iter() {
            details.insert(key.clone(), value.clone());
        }
        details
    }

    /// An error for a body that is not the expected JSON shape.
    #[must_use]
    pub fn malformed(message: impl Into<String>) -> Self {
        Self::invalid("body", message)
    }
}

/// `INVALID_REQUEST` for a missing field.
#[must_use]
pub fn missing(field: &str) -> QueryError {
    QueryError::invalid(field, format!("{field} is required"))
}

/// `INVALID_REQUEST` for a field of the wrong type or form.
#[must_use]
pub fn malformed(field: &str, expected: &str) -> QueryError {
    QueryError::invalid(field, format!("{field} must be {expected}"))
}

/// `INVALID_COORDINATES` for a coordinate out of range or not finite, with the
/// value (null when not finite) and the valid range.
#[must_use]
pub fn coordinate_error(err: &CoordinateError, field: &str, value: f64) -> QueryError {
    let value = if value.is_finite() {
        Value::from(value)
    } else {
        Value::Null
    };
    QueryError::new(ErrorCode::InvalidCoordinates, field, err.to_string())
        .with("value", value)
        .with("valid_range", err.field().valid_range().to_vec())
}

/// An array field of a body.
///
/// # Errors
/// `INVALID_REQUEST` when missing or not an array.
pub fn array<'a>(body: &'a Map<String, Value>, field: &str) -> Result<&'a Vec<Value>, QueryError> {
    match body.get(field) {
        None => Err(missing(field)),
        Some(Value::Array(items)) => Ok(items),
        Some(_) => Err(malformed(field, "an array")),
    }
}

/// An optional text field of a body or of query parameters.
///
/// # Errors
/// `INVALID_REQUEST` when present but not a string.
pub fn optional_text<'a>(
    map: &'a Map<String, Value>,
    field: &str,
) -> Result<Option<&'a str>, QueryError> {
    match map.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => Ok(Some(text)),
        Some(_) => Err(malformed(field, "a string")),
    }
}
