//! ARCHITECTURE.md's recipe for a new endpoint, followed once: a row and an
//! operation, nothing else. Dispatch answers the new endpoint with all its row names
//! (the key it takes, the cities it reaches, its cache policy, its count), and `Allow`,
//! 405 and the preflight come from the row too.

use bytes::Bytes;
use http::{Method, Request, Response};
use serde_json::json;

use hexrisk_engine::operations as engine;

use crate::api::access::keys::KeyApi;
use crate::api::endpoints::{Answered, Call};
use crate::api::models::needs::Reach;
use crate::api::plumbing::caching::CachePolicy;
use crate::api::routes::{Access, Answer, EngineOperation, Route, Table};
use crate::api::serving::dispatch::handle_with;
use crate::api::test_support::{LIVE_KEY, MemoryBackend, ctx, get, json_of};

/// The new endpoint's operation: how many cities the service covers.
fn city_count(call: &Call<'_>) -> Answered {
    let count = match engine::coverage(call.atlas(), &call.params())? {
        engine::prediction::CoverageAnswer::Every(list) => list.coverage.len(),
        engine::prediction::CoverageAnswer::City(_) => 1,
    };
    Ok((
        json!({"status": "success", "count": count}).into(),
        Some(count),
    ))
}

/// The new endpoint's row.
static ROWS: [Route; 1] = [Route {
    path: "/v1/cities/count",
    method: Method::GET,
    access: Access::Key(KeyApi::Prediction),
    answer: Answer::Engine(Reach::Everywhere, EngineOperation::Now(city_count)),
    cache: Some(CachePolicy::PrivateRevalidate),
    varies_on_accept: false,
}];

const TABLE: Table = Table {
    rows: &ROWS,
    baselines: false,
};

fn send(backend: &MemoryBackend, method: Method, headers: &[(&str, &str)]) -> Response<Bytes> {
    let mut request = Request::builder()
        .method(method)
        .uri("http://x/v1/cities/count");
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let request = request.body(Bytes::new()).unwrap();
    futures_executor::block_on(handle_with(TABLE, &request, ctx(), backend))
}

#[test]
fn a_row_and_an_operation_are_a_whole_endpoint() {
    let backend = MemoryBackend::new();
    let bearer = format!("Bearer {LIVE_KEY}");
    let key = [("authorization", bearer.as_str())];
    let answer = send(&backend, Method::GET, &key);
    assert_eq!(answer.status(), 200);
    // The operation's answer, over the cities its reach loaded.
    let (_, cities, _) = get(&backend, "http://x/v1/cities", Some(LIVE_KEY));
    let known = cities["cities"].as_array().unwrap().len();
    assert!(known > 0);
    assert_eq!(
        json_of(&answer),
        json!({"status": "success", "count": known})
    );
    let headers = answer.headers();
    assert_eq!(headers["x-hex-count"], known.to_string().as_str());
    assert!(headers.contains_key("hexrisk-model-version"));
    // The row's access: the prediction API's key, counted.
    assert!(headers.contains_key("ratelimit"));
    assert_eq!(send(&backend, Method::GET, &[]).status(), 401);
    // The row's cache policy.
    assert_eq!(headers["cache-control"], "private, no-cache");
    assert!(headers.contains_key("etag"));
    // The row's method: HEAD as GET, others refused with what the row allows.
    assert_eq!(send(&backend, Method::HEAD, &key).status(), 200);
    let refused = send(&backend, Method::POST, &key);
    assert_eq!(refused.status(), 405);
    assert_eq!(refused.headers()["allow"], "GET, OPTIONS");
    let preflight = send(&backend, Method::OPTIONS, &[]);
    assert_eq!(preflight.status(), 204);
    assert_eq!(preflight.headers()["allow"], "GET, OPTIONS");
    // Not served until its row is in the table.
    let (status, body, _) = get(&backend, "http://x/v1/cities/count", Some(LIVE_KEY));
    assert_eq!((status, body["code"].as_str()), (404, Some("NOT_FOUND")));
}
