use super::*;

#[test]
fn origins_are_written_one_way_or_refused_with_a_reason() {
    for (typed, written) in [
        ("https://Maps.Example.org/", "https://maps.example.org"),
        ("https://maps.example.org:443", "https://maps.example.org"),
        (
            "https://maps.example.org:8443",
            "https://maps.example.org:8443",
        ),
        (" http://localhost:8080 ", "http://localhost:8080"),
        ("http://127.0.0.1:80", "http://127.0.0.1"),
    ] {
        assert_eq!(normalise(typed), Ok(written.to_owned()), "{typed}");
    }
    for (typed, reason) in [
        ("maps.example.org", OriginRefusal::Scheme),
        ("ftp://maps.example.org", OriginRefusal::Scheme),
        ("https://maps.example.org/app", OriginRefusal::Path),
        ("https://maps.example.org?x=1", OriginRefusal::Path),
        (
            "https://user:pw@maps.example.org",
            OriginRefusal::Credentials,
        ),
        ("https://*.example.org", OriginRefusal::Host),
        ("https://", OriginRefusal::Host),
        ("https://exa mple.org", OriginRefusal::Host),
        ("https://example.org:0", OriginRefusal::Port),
        ("https://example.org:70000", OriginRefusal::Port),
        ("http://maps.example.org", OriginRefusal::Insecure),
    ] {
        assert_eq!(normalise(typed), Err(reason), "{typed}");
    }
    assert_eq!(
        normalise(&format!("https://{}.org", "a".repeat(300))),
        Err(OriginRefusal::TooLong)
    );
}
