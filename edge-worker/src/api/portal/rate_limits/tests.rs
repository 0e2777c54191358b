use super::network_of;

#[test]
fn ipv6_addresses_count_by_their_64_and_ipv4_by_the_host() {
    assert_eq!(network_of("203.0.113.9"), "203.0.113.9");
    assert_eq!(network_of("2001:db8:1:2::1"), "2001:db8:1:2::/64");
    assert_eq!(
        network_of("2001:db8:1:2:ffff:ffff:ffff:ffff"),
        network_of("2001:db8:1:2::1")
    );
    assert_ne!(network_of("2001:db8:1:3::1"), network_of("2001:db8:1:2::1"));
    assert_eq!(network_of("::ffff:203.0.113.9"), "203.0.113.9");
    assert_eq!(network_of("not an address"), "not an address");
}
