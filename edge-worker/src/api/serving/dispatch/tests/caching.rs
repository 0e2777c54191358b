//! HTTP caching through the whole handler: `ETag`, `Cache-Control`, `304`.

use bytes::Bytes;
use http::Response;

use crate::api::plumbing::caching::CachePolicy;
use crate::api::test_support::{LIVE_KEY, MemoryBackend, SANDBOX_KEY, get, get_with};

fn etag(response: &Response<Bytes>) -> String {
    response.headers()["etag"].to_str().unwrap().to_owned()
}

#[test]
fn configs_revalidate_with_their_etag_and_still_count() {
    let backend = MemoryBackend::new();
    let key = [("x-api-key", LIVE_KEY)];
    let first = get_with(&backend, "http://x/hexes/config", &key);
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
        etag(&get_with(&backend, "http://x/hexes/config", &key)),
        tag
    );
    let revalidated = get_with(
        &backend,
        "http://x/hexes/config",
        &[("x-api-key", LIVE_KEY), ("if-none-match", &tag)],
    );
    assert_eq!(revalidated.status(), 304);
    assert!(revalidated.body().is_empty());
    assert_eq!(etag(&revalidated), tag);
    // A revalidation is a request: authenticated and counted.
    assert!(revalidated.headers().contains_key("ratelimit"));
    let refused = get_with(
        &backend,
        "http://x/hexes/config",
        &[("if-none-match", &tag)],
    );
    assert_eq!(refused.status(), 401);
    // Another representation, another tag: gzip, or a sandbox key's marked body.
    let gzip = get_with(
        &backend,
        "http://x/hexes/config",
        &[
            ("x-api-key", LIVE_KEY),
            ("accept-encoding", "gzip, identity;q=0"),
        ],
    );
    assert_eq!(etag(&gzip), format!("{}-gzip\"", &tag[..tag.len() - 1]));
    let sandbox = get_with(
        &backend,
        "http://x/hexes/config",
        &[("x-api-key", SANDBOX_KEY)],
    );
    assert_ne!(etag(&sandbox), tag);
}

#[test]
fn prediction_lists_and_documents_are_cacheable_and_the_rest_is_not() {
    let backend = MemoryBackend::new();
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
    let document = get_with(&backend, "http://x/v1/openapi.json", &[]);
    assert_eq!(
        document.headers()["cache-control"],
        CachePolicy::Public.cache_control()
    );
    let tag = etag(&document);
    let again = get_with(
        &backend,
        "http://x/openapi.json",
        &[("if-none-match", &tag)],
    );
    assert_eq!(again.status(), 200, "another document, another tag");
    let same = get_with(
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
