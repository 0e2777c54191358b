use super::*;

fn at(text: &str) -> DateTime<Utc> {
    text.parse().unwrap()
}

#[test]
fn days_reset_at_midnight_utc() {
    assert_eq!(
        reset_at(at("2026-11-22T23:59:59Z")),
        at("2026-11-23T00:00:00Z")
    );
    assert_eq!(
        reset_at(at("2026-11-22T00:00:00Z")),
        at("2026-11-23T00:00:00Z")
    );
    assert_eq!(day_of(at("2026-11-22T23:59:59Z")).to_string(), "2026-11-22");
}

#[test]
fn a_request_needs_room_in_the_key_and_in_its_account() {
    let state = decide_with_account(3, 100, 99, 100);
    assert_eq!((state.allowed, state.used, state.limit), (true, 100, 100));
    let state = decide_with_account(3, 100, 100, 100);
    assert_eq!((state.allowed, state.used, state.limit), (false, 100, 100));
    // The key's own lower limit binds, and is what the answer tells.
    let state = decide_with_account(10, 10, 50, 100);
    assert_eq!((state.allowed, state.used, state.limit), (false, 10, 10));
    let state = decide_with_account(8, 10, 50, 100);
    assert_eq!((state.allowed, state.used, state.limit), (true, 9, 10));
}

#[test]
fn the_limit_admits_exactly_limit_requests() {
    let mut used = 0;
    let mut allowed = 0;
    for _ in 0..150 {
        let state = decide(used, 100);
        used = state.used;
        allowed += u32::from(state.allowed);
    }
    assert_eq!((allowed, used), (100, 100));
}

#[test]
fn rate_limited_body_and_headers() {
    let now = at("2026-11-22T23:00:00Z");
    let state = decide(100, 100);
    let err = rate_limited(state, now);
    assert_eq!(err.status().as_u16(), 429);
    assert_eq!(err.details["limit"], 100);
    assert_eq!(err.details["used"], 100);
    assert_eq!(err.details["reset_at"], "2026-11-23T00:00:00Z");
    let headers = headers(state, now);
    let get = |name: &str| {
        headers
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.to_str().unwrap().to_owned())
    };
    assert_eq!(get("ratelimit").as_deref(), Some("\"daily\";r=0;t=3600"));
    assert_eq!(
        get("ratelimit-policy").as_deref(),
        Some("\"daily\";q=100;w=86400")
    );
    assert_eq!(get("retry-after").as_deref(), Some("3600"));
    assert_eq!(get("ratelimit-remaining"), None);
    let fresh = super::headers(decide(5, 100), now);
    let value = |name: &str| {
        fresh
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.clone())
    };
    assert_eq!(value("ratelimit").unwrap(), "\"daily\";r=94;t=3600");
    assert!(
        super::headers(decide(5, 100), now)
            .iter()
            .all(|(n, _)| *n != "retry-after")
    );
}
