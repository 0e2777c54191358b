//! Bad input against every route of the portal, GETs included, signed in and not:
//! malformed, hostile and wrongly typed bodies and path ids get a 4xx answer in the
//! documented error shape or a well-formed success, never a panic or a 5xx, and
//! never a success without the session the route table says a route needs. The routes come from the portal's own table,
//! so a new one cannot be left out.

use bytes::Bytes;
use http::Request;
use serde_json::{Value, json};

use super::apply;
use crate::api::routes::{Access, Answer, ROUTES};
use crate::api::test_support::{MemoryBackend, PORTAL_ORIGIN, SoftAuthenticator, now};

fn bodies() -> Vec<Bytes> {
    let deep = format!("{}1{}", "[".repeat(5_000), "]".repeat(5_000));
    let huge =
        json!({ "organisation": "x".repeat(300_000), "email": "a@b.example", "intended_use": "y" });
    let mut out: Vec<Bytes> = [
        "",
        "not json",
        "[]",
        "null",
        "{}",
        "\"text\"",
        "{\"a\":",
        &deep,
        "{\"organisation\":5,\"email\":[],\"intended_use\":{}}",
        "{\"organisation\":\"\\u0000\",\"email\":\"a@b.example\",\"intended_use\":\"z\"}",
        "{\"kind\":[\"live\"],\"apis\":\"router\",\"origins\":[1,2],\"expires_at\":5}",
        "{\"kind\":\"sandbox\",\"apis\":[\"router\"],\"origins\":\"https://a.example\"}",
        "{\"label\":{\"x\":1},\"kind\":\"sandbox\",\"apis\":[\"prediction\"]}",
        "{\"grace_hours\":-1}",
        "{\"grace_hours\":1e300}",
        "{\"grace_hours\":\"24\"}",
        "{\"ceremony\":\"x\",\"credential\":\"y\"}",
        "{\"ceremony\":7,\"credential\":{}}",
        "{\"ceremony\":\"x\",\"credential\":{\"rawId\":5,\"response\":[]}}",
        "{\"token\":{}}",
        "{\"token\":\"\"}",
    ]
    .iter()
    .map(|s| Bytes::from(s.to_string()))
    .collect();
    out.push(Bytes::from(huge.to_string()));
    out
}

fn ids() -> Vec<String> {
    [
        "k",
        "..",
        "%2e%2e",
        "a".repeat(1_401).as_str(),
        "abc%00",
        "ÿ",
        "0123456789abcdef0123456789abcdef",
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect()
}

/// A refusal is a 4xx in the error shape; anything else must be a well-formed answer
/// (a JSON object that is no error, or the portal's page): never a 5xx.
fn check(answer: &http::Response<Bytes>, what: &str) {
    let status = answer.status().as_u16();
    let body: Value = serde_json::from_slice(answer.body()).unwrap_or(Value::Null);
    match status {
        400..=499 => {
            assert_eq!(body["status"], "error", "{what}: {body}");
            assert!(
                body["code"].is_string()
                    && body["message"].is_string()
                    && body["details"].is_object(),
                "{what}: {body}"
            );
        }
        200..=299 => {
            let html = answer
                .headers()
                .get("content-type")
                .is_some_and(|t| t.as_bytes().starts_with(b"text/html"));
            assert!(
                html || (body.is_object() && body["status"] != "error"),
                "{what}: HTTP {status} {body}"
            );
        }
        _ => panic!("{what}: HTTP {status} {body}"),
    }
}

#[test]
fn every_route_answers_bad_input_in_the_error_shape() {
    let backend = MemoryBackend::new();
    let session = apply(&backend, &mut SoftAuthenticator::new(1, PORTAL_ORIGIN));
    let cookie = format!("{}={session}", super::super::sessions::COOKIE);
    let mut sent = 0;
    let portal = ROUTES
        .iter()
        .filter(|route| matches!(route.answer, Answer::Portal(_)));
    for route in portal {
        let (pattern, method) = (route.path, &route.method);
        let paths: Vec<String> = if pattern.contains("{id}") {
            ids().iter().map(|id| pattern.replace("{id}", id)).collect()
        } else {
            vec![(*pattern).to_owned()]
        };
        for path in &paths {
            for body in bodies() {
                for signed_in in [false, true] {
                    let mut builder = Request::builder()
                        .method(method.clone())
                        .uri(path.as_str())
                        .header("origin", PORTAL_ORIGIN)
                        .header("content-type", "application/json");
                    if signed_in {
                        builder = builder.header("cookie", cookie.as_str());
                    }
                    let Ok(request) = builder.body(body.clone()) else {
                        continue; // a path the http crate itself refuses
                    };
                    // Each request in its own minute, so that the rate limits stay out.
                    let at = now() + chrono::TimeDelta::minutes(i64::from(sent));
                    sent += 1;
                    let answer =
                        futures_executor::block_on(super::super::handle(&request, at, &backend));
                    let what = format!(
                        "{method} {path} {:?}",
                        String::from_utf8_lossy(&body[..body.len().min(60)])
                    );
                    check(&answer, &what);
                    // What the table says a route needs, it gets: no success without a
                    // session, nor with a partner's (this one) on the operator's routes.
                    let needed = match route.access {
                        Access::Public | Access::Key(_) => false,
                        Access::Session => !signed_in,
                        Access::OperatorSession => true,
                    };
                    assert!(
                        !(needed && answer.status().is_success()),
                        "{what}: HTTP {} without the session the route needs",
                        answer.status()
                    );
                }
            }
        }
    }
    assert!(sent > 500, "{sent} requests");
    // Nothing failed; refused sign-ins are noted with their reason, as refusals.
    assert!(backend.logged().is_empty(), "{:?}", backend.logged());
    let refusals = backend.refusals();
    assert!(
        refusals
            .iter()
            .all(|r| r.starts_with("portal: sign-in refused: ")
                || r.starts_with("portal: application refused: ")),
        "{refusals:?}"
    );
}
