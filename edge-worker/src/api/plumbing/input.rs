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
mod tests {
    use super::*;
    use chrono::NaiveDateTime;
    use hexrisk_engine::operations::QueryError;
    use hexrisk_engine::operations::prediction::{When, coordinates, datetime};
    use serde_json::json;

    use crate::api::test_support::body;

    /// The error of a field reader, as the API sends it.
    fn api_error<T: std::fmt::Debug>(read: Result<T, QueryError>) -> ApiError {
        read.unwrap_err().into()
    }

    #[test]
    fn content_type_must_be_json() {
        assert!(require_json(Some("application/json")).is_ok());
        assert!(require_json(Some("Application/JSON; charset=utf-8")).is_ok());
        for bad in [None, Some("text/plain"), Some("application/jsonx")] {
            let err = require_json(bad).unwrap_err();
            assert_eq!(err.code, ErrorCode::InvalidRequest);
            assert_eq!(err.details["field"], "Content-Type");
        }
    }

    #[test]
    fn bodies_must_be_json_objects() {
        assert!(json_object(br#"{"a":1}"#).is_ok());
        for bad in [
            &b""[..],
            b"not json",
            b"[1,2]",
            b"\xff\xfe",
            b"{\"a\":NaN}",
            b"{\"a\":1",
        ] {
            assert_eq!(
                json_object(bad).unwrap_err().code,
                ErrorCode::InvalidRequest,
                "{bad:?}"
            );
        }
    }

    // The engine reads the fields inside bodies; these pin what the API answers.

    #[test]
    fn coordinates_missing_malformed_and_out_of_range() {
        let err = api_error(coordinates(&body(json!({"longitude": 1})), ""));
        assert_eq!(
            (err.code, err.details["field"].as_str()),
            (ErrorCode::InvalidRequest, Some("latitude"))
        );
        let err = api_error(coordinates(
            &body(json!({"latitude": "43", "longitude": 1})),
            "",
        ));
        assert_eq!(err.code, ErrorCode::InvalidCoordinates);
        let err = api_error(coordinates(
            &body(json!({"latitude": 91.5, "longitude": 1})),
            "",
        ));
        assert_eq!(err.code, ErrorCode::InvalidCoordinates);
        assert_eq!(err.message, "latitude must be between -90 and 90");
        assert_eq!(err.details["valid_range"], json!([-90.0, 90.0]));
        assert_eq!(err.details["value"], json!(91.5));
        let err = api_error(coordinates(
            &body(json!({"latitude": 1, "longitude": -200})),
            "locations[2].",
        ));
        assert_eq!(err.message, "longitude must be between -180 and 180");
        assert_eq!(err.details["field"], "locations[2].longitude");
        assert_eq!(err.details["valid_range"], json!([-180.0, 180.0]));
        assert_eq!(
            coordinates(&body(json!({"latitude": 43.6, "longitude": -79.4})), "").unwrap(),
            (43.6, -79.4)
        );
    }

    #[test]
    fn datetimes_in_every_accepted_form() {
        let instant = |s: &str| When::Instant(s.parse().unwrap());
        assert_eq!(
            When::parse("2022-01-05T10:00:00Z"),
            Some(instant("2022-01-05T10:00:00Z"))
        );
        assert_eq!(
            When::parse("2022-01-05T10:00:00-05:00"),
            Some(instant("2022-01-05T15:00:00Z"))
        );
        let local =
            |s: &str| When::Local(NaiveDateTime::parse_from_str(s, "%Y-%m-%dT%H:%M:%S").unwrap());
        assert_eq!(
            When::parse("2022-01-05T10:00:00"),
            Some(local("2022-01-05T10:00:00"))
        );
        assert_eq!(
            When::parse("2022-01-05"),
            Some(local("2022-01-05T00:00:00"))
        );
        for bad in [
            "",
            "yesterday",
            "2022-13-01",
            "2022-01-05T25:00:00Z",
            "05/01/2022",
        ] {
            assert_eq!(When::parse(bad), None, "{bad}");
        }
        let err = api_error(datetime(&body(json!({"datetime": "soon"}))));
        assert_eq!(
            (err.code, err.details["field"].as_str()),
            (ErrorCode::InvalidRequest, Some("datetime"))
        );
        assert_eq!(datetime(&body(json!({}))).unwrap(), None);
        assert!(datetime(&body(json!({"datetime": 5}))).is_err());
    }

    #[test]
    fn query_objects_keep_the_first_of_repeated_names() {
        let object = query_object(&query_pairs(Some("h3=a%20b&intent=night&h3=c")));
        assert_eq!(
            Value::Object(object),
            json!({"h3": "a b", "intent": "night"})
        );
        assert!(query_object(&query_pairs(None)).is_empty());
    }
}
