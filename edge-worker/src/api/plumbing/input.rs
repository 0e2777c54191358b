//! Reading request input: JSON bodies and query strings, each failure an
//! [`ApiError`] naming the field at fault. Fields inside a body are read with the
//! engine's readers (`hexrisk_engine::operations::{missing, malformed, array}` and
//! `api::prediction::{coordinates, datetime}`), shared with the npm package; their
//! errors become [`ApiError`]s through `From`.

use serde_json::{Map, Value};

use super::error::{ApiError, ErrorCode};

/// Refuses a POST whose `Content-Type` is not JSON.
///
/// # Errors
/// `INVALID_REQUEST` naming the header.
pub fn require_json(content_type: Option<&str>) -> Result<(), ApiError> {
    let essence = content_type
        .and_then(|v| v.split(';').next())
        .map(|v| v.trim().to_ascii_lowercase());
    if essence.as_deref() == Some("application/json") {
        Ok(())
    } else {
        Err(ApiError::new(
            ErrorCode::InvalidRequest,
            "Content-Type must be application/json",
        )
        .with("field", "Content-Type")
        .with("value", content_type.unwrap_or("")))
    }
}

/// Parses a body as a JSON object.
///
/// # Errors
/// `INVALID_REQUEST` for invalid UTF-8 or JSON, or JSON that is not an object.
pub fn json_object(body: &[u8]) -> Result<Map<String, Value>, ApiError> {
    let value: Value = serde_json::from_slice(body).map_err(|err| {
        ApiError::new(ErrorCode::InvalidRequest, "request body is not valid JSON")
            .with("reason", err.to_string())
    })?;
    match value {
        Value::Object(map) => Ok(map),
        _ => Err(ApiError::new(
            ErrorCode::InvalidRequest,
            "request body must be a JSON object",
        )),
    }
}

/// A request's JSON object body, its `Content-Type` checked first.
///
/// # Errors
/// As [`require_json`], then as [`json_object`].
pub fn json_body(request: &http::Request<bytes::Bytes>) -> Result<Map<String, Value>, ApiError> {
    let content_type = request
        .headers()
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok());
    require_json(content_type)?;
    json_object(request.body())
}

/// Query-string parameters, percent-decoded.
#[must_use]
pub fn query_pairs(query: Option<&str>) -> Vec<(String, String)> {
    form_urlencoded::parse(query.unwrap_or("").as_bytes())
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect()
}

/// One query parameter (the first if repeated).
#[must_use]
pub fn query_param<'a>(pairs: &'a [(String, String)], name: &str) -> Option<&'a str> {
    pairs
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

/// A count parameter `name`: a whole number from 1 to `max`, `default` when absent.
///
/// # Errors
/// `INVALID_REQUEST` naming the parameter for anything else.
pub fn query_count(
    pairs: &[(String, String)],
    name: &str,
    (default, max): (u32, u32),
) -> Result<u32, ApiError> {
    match query_param(pairs, name) {
        None => Ok(default),
        Some(text) => text
            .parse::<u32>()
            .ok()
            .filter(|n| (1..=max).contains(n))
            .ok_or_else(|| {
                ApiError::new(
                    ErrorCode::InvalidRequest,
                    format!("`{name}` must be a whole number from 1 to {max}"),
                )
                .with("field", name)
            }),
    }
}

/// Query-string pairs as the parameter object the engine's GET operations take
/// (the first of repeated names wins).
#[must_use]
pub fn query_object(pairs: &[(String, String)]) -> Map<String, Value> {
    let mut map = Map::new();
    for (name, value) in pairs {
        map.entry(name.clone())
            .or_insert_with(|| Value::String(value.clone()));
    }
    map
}

#[cfg(test)]
mod tests;
