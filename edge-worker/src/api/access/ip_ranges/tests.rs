use super::*;

fn range(text: &str) -> IpRange {
    text.parse().unwrap()
}

fn ip(text: &str) -> IpAddr {
    text.parse().unwrap()
}

#[test]
fn ranges_are_written_one_way_and_refused_with_a_reason() {
    assert_eq!(range("203.0.113.0/24").to_string(), "203.0.113.0/24");
    assert_eq!(range(" 203.0.113.7 ").to_string(), "203.0.113.7/32");
    assert_eq!(range("2001:DB8::/32").to_string(), "2001:db8::/32");
    assert_eq!(range("::1").to_string(), "::1/128");
    assert_eq!(range("0.0.0.0/0").to_string(), "0.0.0.0/0");
    for (text, refusal) in [
        ("maps.example", RangeRefusal::Address),
        ("203.0.113/24", RangeRefusal::Address),
        ("", RangeRefusal::Address),
        ("203.0.113.0/33", RangeRefusal::Prefix),
        ("203.0.113.0/-1", RangeRefusal::Prefix),
        ("2001:db8::/129", RangeRefusal::Prefix),
        ("203.0.113.0/", RangeRefusal::Prefix),
        ("203.0.113.5/24", RangeRefusal::HostBits),
        ("2001:db8::1/64", RangeRefusal::HostBits),
    ] {
        assert_eq!(text.parse::<IpRange>(), Err(refusal), "{text}");
    }
}

#[test]
fn an_address_is_in_a_range_of_its_own_family_within_the_prefix() {
    let v4 = range("203.0.113.0/24");
    assert!(v4.contains(ip("203.0.113.0")) && v4.contains(ip("203.0.113.255")));
    assert!(!v4.contains(ip("203.0.114.0")));
    assert!(v4.contains(ip("::ffff:203.0.113.9")), "IPv4-mapped");
    let v6 = range("2001:db8:1::/48");
    assert!(v6.contains(ip("2001:db8:1:ffff::1")));
    assert!(!v6.contains(ip("2001:db8:2::1")));
    assert!(!v6.contains(ip("203.0.113.9")));
    assert!(range("0.0.0.0/0").contains(ip("198.51.100.1")));
    assert!(!range("0.0.0.0/0").contains(ip("2001:db8::1")));
    assert!(listed(&[v4, v6], Some("2001:db8:1::7")));
    assert!(!listed(&[v4, v6], Some("local")));
    assert!(!listed(&[v4, v6], None));
}

#[test]
fn ranges_travel_as_their_text() {
    let ranges = vec![range("203.0.113.0/24"), range("2001:db8::/32")];
    let json = serde_json::to_string(&ranges).unwrap();
    assert_eq!(json, r#"["203.0.113.0/24","2001:db8::/32"]"#);
    assert_eq!(serde_json::from_str::<Vec<IpRange>>(&json).unwrap(), ranges);
    assert!(serde_json::from_str::<Vec<IpRange>>(r#"["x"]"#).is_err());
}
