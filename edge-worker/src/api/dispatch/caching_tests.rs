//! HTTP caching through the whole handler: `ETag`, `Cache-Control`, `304`.

use bytes::Bytes;
use http::{Method, Response};

use super::tests::{LIVE_KEY, Memory, SANDBOX_KEY, get};
use super::*;

fn router_get(backend: &Memory, uri: &str, headers: &[(&str, &str)]) -> Response<Bytes> {
    let mut builder = Request::builder().method(Method::GET).uri(uri);
    for (name, value) in headers {
        builder = builder.header(*name, *value);
    }
    futures_executor::block_on(handle(
        &builder.body(Bytes::new()).unwrap(),
        tests::ctx(),
        backend,
    ))
}

fn etag(response: &Response<Bytes>) -> String {
    response.headers()["etag"].to_str().unwrap().to_owned()
}

#[test]
fn configs_revalidate_with_their_etag_and_still_count() {
    let backend = Memory::new();
    let key = [("x-api-key", LIVE_KEY)];
    let first = router_get(&backend, "http://x/hexes/config", &key);
    assert_eq!(first.status(), 200);
    assert_eq!(first.headers()["cache-control"], "private, no-cache");
    assert!(
        first.headers()["vary"]
            .to_str()
            .unwrap()
            .contains("X-API-Key")
    );
    let tag = etag(&first);
    // The same body, the same tag.
    assert_eq!(
        etag(&router_get(&backend, "http://x/hexes/config", &key)),
        tag
    );
    let revalidated = router_get(
        &backend,
        "http://x/hexes/config",
        &[("x-api-key", LIVE_KEY), ("if-none-match", &tag)],
    );
    assert_eq!(revalidated.status(), 304);
    assert!(revalidated.body().is_empty());
    assert_eq!(etag(&revalidated), tag);
    // A revalidation is a request: authenticated and counted.
    assert!(revalidated.headers().contains_key("ratelimit"));
    let refused = router_get(
        &backend,
        "http://x/hexes/config",
        &[("if-none-match", &tag)],
    );
    assert_eq!(refused.status(), 401);
    // Another representation, another tag: gzip, or a sandbox key's marked body.
    let gzip = router_get(
        &backend,
        "http://x/hexes/config",
        &[
            ("x-api-key", LIVE_KEY),
            ("accept-encoding", "gzip, identity;q=0"),
        ],
    );
    assert_eq!(etag(&gzip), format!("{}-gzip\"", &tag[..tag.len() - 1]));
    let sandbox = router_get(
        &backend,
        "http://x/hexes/config",
        &[("x-api-key", SANDBOX_KEY)],
    );
    assert_ne!(etag(&sandbox), tag);
}

#[test]
fn prediction_lists_and_documents_are_cacheable_and_the_rest_is_not() {
    let backend = Memory::new();
    for uri in ["http://x/v1/classes", "http://x/v1/cities"] {
        let (status, _, response) = get(&backend, uri, Some(LIVE_KEY));
        assert_eq!(status, 200, "{uri}");
        assert_eq!(response.headers()["cache-control"], "private, no-cache");
        assert!(
            response.headers()["vary"]
                .to_str()
                .unwrap()
                .contains("Authorization")
        );
        assert!(response.headers().contains_key("etag"));
    }
    let document = router_get(&backend, "http://x/v1/openapi.json", &[]);
    assert_eq!(
        document.headers()["cache-control"],
        caching::CachePolicy::Public.cache_control()
    );
    let tag = etag(&document);
    let again = router_get(
        &backend,
        "http://x/openapi.json",
        &[("if-none-match", &tag)],
    );
    assert_eq!(again.status(), 200, "another document, another tag");
    let same = router_get(
        &backend,
        "http://x/v1/openapi.json",
        &[("if-none-match", &format!("W/{tag}"))],
    );
    assert_eq!(same.status(), 304);
    // Answers that depend on the clock or the request stay no-store.
    let (_, _, range) = get(
        &backend,
        "http://x/v1/prediction/range?city=city_ca_tor",
        Some(LIVE_KEY),
    );
    assert_eq!(range.headers()["cache-control"], "no-store");
    assert!(!range.headers().contains_key("etag"));
    let (_, _, health) = get(&backend, "http://x/v1/health", None);
    assert_eq!(health.headers()["cache-control"], "no-store");
}
