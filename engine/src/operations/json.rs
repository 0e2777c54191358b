//! Reading JSON request objects, shared by the operations.

use alloc::string::{String, ToString};

use serde::Deserialize;
use serde_json::{Map, Value};

use super::QueryError;

/// A parameter as text: a string, or a number written out.
pub(super) fn param<'a>(params: &'a Map<String, Value>, name: &str) -> Option<&'a str> {
    match params.get(name) {
        Some(Value::String(text)) => Some(text),
        _ => None,
    }
}

/// Reads a body object into a query type; wrong types name serde's reason.
pub(super) fn parse<T: for<'de> Deserialize<'de>>(
    body: &Map<String, Value>,
) -> Result<T, QueryError> {
    serde_json::from_value(Value::Object(body.clone())).map_err(|e| {
        QueryError::malformed("request body does not have the expected shape")
            .with("reason", e.to_string())
    })
}
