use super::*;

#[test]
fn an_origin_is_https_or_plain_http_on_localhost() {
    let local = PortalConfig::from_var(Some("http://localhost:8787/")).unwrap();
    assert_eq!(local.origin, "http://localhost:8787");
    assert_eq!(local.rp_id, "localhost");
    // A local run never takes a client's own CF-Connecting-IP.
    assert_eq!(local.client_address, ClientAddress::Local);
    assert_eq!(local.client_address.of(Some("203.0.113.9")), Some("local"));
    let deployed = PortalConfig::from_var(Some("https://Portal.Example.com")).unwrap();
    assert_eq!(deployed.rp_id, "portal.example.com");
    assert_eq!(deployed.client_address, ClientAddress::Platform);
    assert_eq!(
        deployed.client_address.of(Some("203.0.113.9")),
        Some("203.0.113.9")
    );
    for refused in [
        None,
        Some(""),
        Some("http://example.com"),
        Some("https://"),
        Some("https://example.com/portal"),
        Some("https://example.com:0"),
        Some("https://example.com:99999"),
        Some("ftp://localhost"),
        Some("localhost:8787"),
    ] {
        assert_eq!(PortalConfig::from_var(refused), None, "{refused:?}");
    }
}
