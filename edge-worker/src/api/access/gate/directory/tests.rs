use super::*;
use crate::api::access::gate::tests::key;

#[test]
fn a_digest_is_asked_about_once_and_a_made_up_one_once_a_minute() {
    let now: DateTime<Utc> = "2026-11-27T10:00:00Z".parse().unwrap();
    let mut directory = GateDirectory::default();
    assert_eq!(directory.lookup("a", now), Lookup::Ask);
    let record = key(10);
    directory.learn("a", Some(&record), now);
    let much_later = now + TimeDelta::days(30);
    assert_eq!(
        directory.lookup("a", much_later),
        Lookup::Gate(&record.account.gate)
    );
    directory.learn("b", None, now);
    assert_eq!(
        directory.lookup("b", now + TimeDelta::seconds(59)),
        Lookup::NoKey
    );
    assert_eq!(
        directory.lookup("b", now + TimeDelta::seconds(60)),
        Lookup::Ask
    );
}

#[test]
fn a_full_directory_starts_afresh() {
    let now: DateTime<Utc> = "2026-11-27T10:00:00Z".parse().unwrap();
    let mut directory = GateDirectory::default();
    for i in 0..MAX_DIGESTS {
        directory.learn(&i.to_string(), None, now);
    }
    assert_eq!(directory.lookup("0", now), Lookup::NoKey);
    directory.learn("new", None, now);
    assert_eq!(
        directory.lookup("0", now),
        Lookup::Ask,
        "the old entries went"
    );
    assert_eq!(directory.lookup("new", now), Lookup::NoKey);
}
