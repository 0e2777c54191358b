//! Reading JSON request objects and writing answers, shared by the operations.

use alloc::string::{String, ToString};

use serde::Deserialize;
use serde_json::{Map, Value, json};

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

/// An answer object with `"status": "success"` first, as both APIs answer.
#[must_use]
pub fn with_status(value: impl serde::Serialize) -> Value {
    match serde_json::to_value(value).unwrap_or(Value::Null) {
        // `status` first, then the answer's members in their own order, as the
        // specifications show them.
        Value::Object(map) => {
            let mut body = Map::with_capacity(map.len() + 1);
            body.insert("status".into(), json!("success"));
            body.extend(map.into_iter().filter(|(k, _)| k != "status"));
            Value::Object(body)
        }
        other => other,
    }
}
