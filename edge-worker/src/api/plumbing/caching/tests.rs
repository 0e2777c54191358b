use super::*;

fn ok(body: &'static [u8]) -> Response<Bytes> {
    let mut response = Response::new(Bytes::from_static(body));
    response
        .headers_mut()
        .insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

#[test]
fn entity_tags_follow_the_body_and_its_coding() {
    let tag = entity_tag(b"{\"status\":\"success\"}", None);
    assert_eq!(tag.len(), 34);
    assert!(tag.starts_with('"') && tag.ends_with('"'));
    assert_eq!(tag, entity_tag(b"{\"status\":\"success\"}", None));
    assert_ne!(tag, entity_tag(b"{\"status\":\"success\" }", None));
    let gzip = entity_tag(b"{\"status\":\"success\"}", Some("gzip"));
    assert_eq!(gzip, format!("{}-gzip\"", &tag[..tag.len() - 1]));
}

#[test]
fn if_none_match_uses_the_weak_comparison() {
    let tag = "\"abc\"";
    assert!(none_match("\"abc\"", tag));
    assert!(none_match("W/\"abc\"", tag));
    assert!(none_match("\"x\", \"abc\"", tag));
    assert!(none_match(" * ", tag));
    assert!(!none_match("\"abcd\"", tag));
    assert!(!none_match("\"x\"", tag));
}

#[test]
fn a_matching_tag_turns_the_answer_into_a_bodyless_304() {
    let mut response = ok(b"{}");
    apply(
        &mut response,
        CachePolicy::PrivateRevalidate,
        b"{}",
        None,
        Some("X-API-Key"),
    );
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(response.headers()[CACHE_CONTROL], "private, no-cache");
    assert_eq!(response.headers()[VARY], "X-API-Key");
    let etag = response.headers()[ETAG].to_str().unwrap().to_owned();

    let mut again = ok(b"{}");
    again
        .headers_mut()
        .insert(VARY, HeaderValue::from_static("Accept-Encoding"));
    apply(
        &mut again,
        CachePolicy::PrivateRevalidate,
        b"{}",
        Some(&etag),
        Some("X-API-Key"),
    );
    assert_eq!(again.status(), StatusCode::NOT_MODIFIED);
    assert!(again.body().is_empty());
    assert_eq!(again.headers()[ETAG], etag.as_str());
    assert_eq!(again.headers()[VARY], "Accept-Encoding, X-API-Key");

    let mut changed = ok(b"{\"a\":1}");
    apply(
        &mut changed,
        CachePolicy::Public,
        b"{\"a\":1}",
        Some(&etag),
        None,
    );
    assert_eq!(changed.status(), StatusCode::OK);
    assert_eq!(
        changed.headers()[CACHE_CONTROL],
        format!("public, max-age={PUBLIC_MAX_AGE_SECONDS}").as_str()
    );
    assert!(!changed.headers().contains_key(VARY));
}

#[test]
fn the_cache_control_values_state_their_lifetimes() {
    assert_eq!(
        CachePolicy::PrivatePinned.cache_control(),
        format!("private, max-age={PINNED_MAX_AGE_SECONDS}")
    );
    assert_eq!(
        CachePolicy::Public.cache_control(),
        format!("public, max-age={PUBLIC_MAX_AGE_SECONDS}")
    );
}

#[test]
fn errors_are_left_alone() {
    let mut response = ok(b"{}");
    *response.status_mut() = StatusCode::TOO_MANY_REQUESTS;
    apply(&mut response, CachePolicy::Public, b"{}", Some("*"), None);
    assert_eq!(response.status(), StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(response.headers()[CACHE_CONTROL], "no-store");
    assert!(!response.headers().contains_key(ETAG));
}
