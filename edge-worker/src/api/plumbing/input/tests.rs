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
