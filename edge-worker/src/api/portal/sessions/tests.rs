use super::*;

fn session(created: i64, seen: i64) -> Session {
    let at = |m: i64| DateTime::<Utc>::UNIX_EPOCH + TimeDelta::minutes(m);
    Session {
        digest: String::new(),
        partner_id: String::new(),
        credential_id: None,
        created_at: at(created),
        last_seen_at: at(seen),
        ended_at: None,
    }
}

#[test]
fn a_session_ends_when_idle_when_old_and_when_signed_out() {
    let at = |m: i64| DateTime::<Utc>::UNIX_EPOCH + TimeDelta::minutes(m);
    let s = session(0, 0);
    assert!(s.is_live(at(29)));
    assert!(!s.is_live(at(30)));
    // Busy, but past the absolute timeout.
    let busy = session(0, 12 * 60 - 1);
    assert!(busy.is_live(at(12 * 60 - 1)));
    assert!(!busy.is_live(at(12 * 60)));
    let ended = Session {
        ended_at: Some(at(1)),
        ..session(0, 0)
    };
    assert!(!ended.is_live(at(2)));
    assert!(!s.needs_touch(at(0)) && s.needs_touch(at(1)));
    assert!(s.is_recently_verified(at(5)) && !s.is_recently_verified(at(6)));
    assert_eq!(
        KEYS_KEPT.num_days(),
        i64::try_from(crate::api::access::gate::KEEP_DAYS).unwrap()
    );
}

#[test]
fn ids_are_random_and_found_only_in_their_own_cookie() {
    let (a, digest_a) = new_id().unwrap();
    let (b, _) = new_id().unwrap();
    assert_ne!(a, b);
    assert_eq!(a.len(), 43);
    assert_eq!(digest_a, digest(&a));
    let header = format!("theme=dark; {COOKIE}={a}; other=1");
    assert_eq!(id_in(Some(&header)), Some(a.as_str()));
    assert_eq!(id_in(Some("theme=dark")), None);
    assert_eq!(id_in(Some(&format!("{COOKIE}=short"))), None);
    assert_eq!(id_in(Some(&format!("x{COOKIE}={a}"))), None);
    assert_eq!(id_in(None), None);
    let cookie = set_cookie(&a);
    for attribute in ["Path=/", "Secure", "HttpOnly", "SameSite=Strict"] {
        assert!(cookie.contains(attribute), "{cookie}");
    }
    assert!(!cookie.contains("Domain"));
    assert!(clear_cookie().contains("Max-Age=0"));
}
