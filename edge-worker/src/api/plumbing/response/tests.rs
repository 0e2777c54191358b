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
fn accept_encoding_is_read_as_rfc_9110_says() {
    let q = |value: Option<&str>| {
        let a = AcceptedCodings::parse(value);
        (a.gzip, a.identity)
    };
    assert_eq!(q(None), (0.0, 1.0));
    assert_eq!(q(Some("")), (0.0, 1.0));
    assert_eq!(q(Some("gzip, deflate, br")), (1.0, 1.0));
    assert_eq!(q(Some("br;q=1.0, GZIP;q=0.8")), (0.8, 1.0));
    assert_eq!(q(Some("x-gzip")), (1.0, 1.0));
    assert_eq!(q(Some("*")), (1.0, 1.0));
    assert_eq!(q(Some("*;q=0")), (0.0, 0.0));
    assert_eq!(q(Some("*;q=0, identity")), (0.0, 1.0));
    assert_eq!(q(Some("gzip;q=0, *")), (0.0, 1.0));
    assert_eq!(q(Some("identity;q=0")), (0.0, 0.0));
    assert_eq!(q(Some("identity;q=0, gzip;q=0.5")), (0.5, 0.0));
    assert_eq!(q(Some("br")), (0.0, 1.0));
    // A malformed or out-of-range q drops its entry.
    assert_eq!(q(Some("gzip;q=high")), (0.0, 1.0));
    assert_eq!(q(Some("gzip;q=2")), (0.0, 1.0));
}

#[test]
fn the_coding_follows_the_preferences_and_the_size() {
    let choose = |value: &str, len: usize| AcceptedCodings::parse(Some(value)).choose(len);
    let big = COMPRESS_MIN_BYTES;
    assert_eq!(choose("gzip", big), Coding::Gzip);
    assert_eq!(choose("gzip", big - 1), Coding::Identity);
    assert_eq!(choose("gzip;q=0.5, identity", big), Coding::Identity);
    assert_eq!(choose("gzip, identity;q=0.5", big), Coding::Gzip);
    // Identity refused: even a small body is compressed.
    assert_eq!(choose("gzip, identity;q=0", 10), Coding::Gzip);
    // Nothing acceptable: the header is disregarded.
    assert_eq!(choose("identity;q=0", big), Coding::Identity);
    assert_eq!(choose("br", big), Coding::Identity);
}

#[test]
fn large_bodies_are_gzipped_only_when_accepted() {
    use std::io::Read;
    let big = serde_json::json!({"cells": vec!["882b9bc46dfffff"; 500]});
    for (accept, gzipped) in [
        (Some("gzip, deflate, br"), true),
        (Some("br;q=1.0, gzip;q=0.8"), true),
        (Some("*"), true),
        (Some("gzip;q=0"), false),
        (Some("identity"), false),
        (Some("*;q=0, identity"), false),
        (None, false),
    ] {
        let mut response = json(StatusCode::OK, &big);
        let original = response.body().clone();
        compress(&mut response, accept);
        assert_eq!(
            response.headers().contains_key("content-encoding"),
            gzipped,
            "{accept:?}"
        );
        assert_eq!(response.headers()["vary"], "Accept-Encoding");
        if gzipped {
            assert!(response.body().len() < original.len() / 5);
            let mut plain = Vec::new();
            flate2::read::GzDecoder::new(&response.body()[..])
                .read_to_end(&mut plain)
                .unwrap();
            assert_eq!(plain, original);
        } else {
            assert_eq!(response.body(), &original);
        }
    }
    let mut small = json(StatusCode::OK, &serde_json::json!({"status": "success"}));
    compress(&mut small, Some("gzip"));
    assert!(!small.headers().contains_key("content-encoding"));
    assert_eq!(small.headers()["vary"], "Accept-Encoding");
    compress(&mut small, Some("gzip, identity;q=0"));
    assert_eq!(small.headers()["content-encoding"], "gzip");
}

#[test]
fn error_responses_use_the_code_status() {
    let response = error(&ApiError::new(ErrorCode::Unauthorized, "API key required"));
    assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
    let body: Value = serde_json::from_slice(response.body()).unwrap();
    assert_eq!(body["code"], "UNAUTHORIZED");
}
