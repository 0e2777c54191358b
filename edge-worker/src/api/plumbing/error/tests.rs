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
        (ErrorCode::Forbidden, 403),
        (ErrorCode::NotFound, 404),
        (ErrorCode::MethodNotAllowed, 405),
        (ErrorCode::RateLimited, 429),
        (ErrorCode::Conflict, 409),
        (ErrorCode::InternalError, 500),
        (ErrorCode::InvalidArtifact, 500),
        (ErrorCode::ServiceUnavailable, 503),
    ];
    for (code, expected) in table {
        assert_eq!(status(code).as_u16(), expected, "{code}");
    }
}

#[test]
fn engine_errors_keep_their_code_message_and_details() {
    for code in [
        ErrorCode::InvalidRequest,
        ErrorCode::InvalidCoordinates,
        ErrorCode::LocationNotCovered,
        ErrorCode::DateOutOfRange,
        ErrorCode::InternalError,
    ] {
        let err = ApiError::from(
            QueryError::new(code, "hexIds", "something is wrong")
                .at(3)
                .with("limit", 5),
        );
        assert_eq!(err.code, code);
        assert_eq!(err.message, "something is wrong");
        assert_eq!(
            Value::Object(err.details),
            serde_json::json!({"field": "hexIds", "index": 3, "limit": 5})
        );
    }
}

#[test]
fn method_not_allowed_lists_the_allowed_methods() {
    let err = ApiError::method_not_allowed(&http::Method::DELETE, &[http::Method::GET]);
    assert_eq!(err.status(), StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(err.details["allowed"], serde_json::json!(["GET"]));
}
