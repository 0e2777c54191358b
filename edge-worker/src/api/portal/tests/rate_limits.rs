//! The portal's rate limits: sign-in attempts per address, changes per address and
//! per account, each over one-minute windows, with `Retry-After`.

use chrono::TimeDelta;
use http::Method;

use super::super::rate_limits::{CHANGES_PER_ACCOUNT, SIGN_IN_PER_ADDRESS, window_of};
use super::{Call, apply};
use crate::api::test_support::{MemoryBackend, PORTAL_ORIGIN, SoftAuthenticator, now};

#[test]
fn sign_in_attempts_are_limited_per_address_and_the_next_window_opens_again() {
    let backend = MemoryBackend::new();
    let start = window_of(now());
    let attempt = |at| {
        let mut call = Call::new(Method::POST, "/portal/api/sessions/options", None);
        call.at = at;
        call.send(&backend)
    };
    for _ in 0..SIGN_IN_PER_ADDRESS {
        assert_eq!(attempt(start).0, 200);
    }
    let (status, body, answer) = attempt(start + TimeDelta::seconds(45));
    assert_eq!(status, 429, "{body}");
    assert_eq!(body["code"], "RATE_LIMITED");
    assert_eq!(body["details"]["scope"], "address");
    assert_eq!(answer.headers()["retry-after"], "15");
    // Refused, so no ceremony was started for it.
    assert_eq!(
        backend.tables().ceremonies.len(),
        SIGN_IN_PER_ADDRESS as usize
    );
    assert_eq!(
        attempt(start + TimeDelta::minutes(1)).0,
        200,
        "a new window"
    );
}

#[test]
fn an_account_is_limited_across_addresses() {
    let backend = MemoryBackend::new();
    let session = apply(&backend, &mut SoftAuthenticator::new(1, PORTAL_ORIGIN));
    let start = window_of(now()) + TimeDelta::minutes(1);
    let revoke = |i: u32| {
        // Each from its own address, so only the account's limit can apply.
        let path = format!("/portal/api/keys/k{i}");
        let mut call = Call::new(Method::DELETE, &path, None);
        call.session = Some(&session);
        call.at = start;
        call.address = Some(format!("198.51.100.{}", i % 250));
        call.send(&backend).0
    };
    for i in 0..CHANGES_PER_ACCOUNT {
        assert_eq!(revoke(i), 404, "counted, then answered");
    }
    assert_eq!(revoke(CHANGES_PER_ACCOUNT), 429);
}

#[test]
fn walking_through_the_addresses_of_an_ipv6_64_walks_around_nothing() {
    let backend = MemoryBackend::new();
    let start = window_of(now());
    let attempt = |i: u32, prefix: &str| {
        let mut call = Call::new(Method::POST, "/portal/api/sessions/options", None);
        call.at = start;
        call.address = Some(format!("{prefix}:{i:x}"));
        call.send(&backend).0
    };
    for i in 0..SIGN_IN_PER_ADDRESS {
        assert_eq!(attempt(i, "2001:db8:7:7:0:0:0"), 200);
    }
    assert_eq!(
        attempt(SIGN_IN_PER_ADDRESS, "2001:db8:7:7:1:2:3"),
        429,
        "the same /64"
    );
    assert_eq!(attempt(0, "2001:db8:7:8:0:0:0"), 200, "another /64");
}
