use super::*;

#[test]
fn origins_match_exactly_up_to_case_and_a_trailing_slash() {
    let list = vec![
        "http://127.0.0.1:8080".to_owned(),
        "https://maps.example".to_owned(),
    ];
    assert!(origin_listed(&list, "http://127.0.0.1:8080"));
    assert!(origin_listed(&list, "HTTPS://maps.example/"));
    assert!(!origin_listed(&list, "http://127.0.0.1:8081"));
    assert!(!origin_listed(&list, "https://maps.example.evil"));
    assert!(!origin_listed(&list, "http://maps.example"));
    assert!(!origin_listed(&list, "null"));
    assert!(!origin_listed(&[], "http://127.0.0.1:8080"));
}

#[test]
fn browser_origins_are_scheme_host_and_port_only() {
    for origin in [
        "https://maps.example",
        "http://127.0.0.1:8080",
        "http://localhost:8787",
        "https://[::1]:8443",
        "https://[2001:db8::1]",
        "HTTPS://Maps.Example",
    ] {
        assert!(is_browser_origin(origin), "{origin}");
    }
    for origin in [
        "null",
        "h",
        "",
        "https://",
        "ftp://maps.example",
        "https://maps.example/",
        "https://maps.example/path",
        "https://maps.example:",
        "https://maps.example:123456",
        "https://maps.example:80a",
        "https://user@maps.example",
        "https://maps.example?q",
        "https://ma ps.example",
    ] {
        assert!(!is_browser_origin(origin), "{origin}");
    }
}

#[test]
fn allowed_answers_name_exactly_the_origin() {
    let headers = allow_headers("http://127.0.0.1:8080");
    assert_eq!(headers[0].1, "http://127.0.0.1:8080");
    let preflight = preflight_headers("http://127.0.0.1:8080", &[Method::POST]);
    let get = |n: &str| {
        preflight
            .iter()
            .find(|(k, _)| *k == n)
            .map(|(_, v)| v.clone())
    };
    assert_eq!(
        get("access-control-allow-methods").unwrap(),
        "POST, OPTIONS"
    );
    assert_eq!(
        get("access-control-allow-headers").unwrap(),
        ALLOWED_HEADERS
    );
    // A header value that cannot be sent is never reflected.
    assert!(allow_headers("http://a\nb").is_empty());
    assert_eq!(
        origin_refused("https://x.example").code,
        ErrorCode::Forbidden
    );
}
