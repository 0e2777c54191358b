//! The gate's decisions: counting, refusals, the daily reset, origins, and the
//! cache of key records.

use chrono::{DateTime, TimeDelta, Utc};

use super::{
    Admission, DEFAULT_RECORD_TTL_SECONDS, GateLogs, GateRequest, KEEP_DAYS, RecordCache, UsageLog,
    record_ttl,
};
use crate::api::access::keys::{AccountQuota, KeyApi, KeyKind, KeyRecord, KeyRefusal, Tier};

/// The one browser origin the test key lists.
pub(crate) const ORIGIN: &str = "https://maps.example.org";

/// A time from its RFC 3339 text.
pub(crate) fn at(text: &str) -> DateTime<Utc> {
    text.parse().unwrap()
}

/// A live key allowing both APIs from [`ORIGIN`], with a daily `limit`.
pub(crate) fn key(limit: u32) -> KeyRecord {
    KeyRecord {
        id: "key-1".into(),
        kind: KeyKind::Live,
        tier: Tier::Partner,
        daily_limit: limit,
        issued_at: at("2026-11-01T00:00:00Z"),
        expires_at: None,
        revoked_at: None,
        origins: vec![ORIGIN.into()],
        apis: KeyApi::ALL.to_vec(),
        suspended: false,
        ip_ranges: Vec::new(),
        account: AccountQuota::of_key("key-1", KeyKind::Live, limit, None),
    }
}

/// The digest of the test requests' key.
fn digest() -> String {
    "ab".repeat(32)
}

/// The test key's own log in `logs`.
fn of_key(logs: &GateLogs) -> &UsageLog {
    &logs.keys[&digest()]
}

fn request(now: &str, origin: Option<&str>) -> GateRequest {
    GateRequest {
        digest: digest(),
        now: at(now),
        origin: origin.map(Into::into),
        address: None,
        api: KeyApi::Router,
        returned: Vec::new(),
        want_block: false,
        record: None,
    }
}

/// [`super::admit`] by a gate whose record is a minute fresh.
fn admit(
    record: Option<&KeyRecord>,
    log: &mut GateLogs,
    request: &GateRequest,
) -> (Admission, bool) {
    super::admit(record, log, request, request.now + TimeDelta::seconds(60))
}

fn used(admission: &Admission) -> Option<(bool, u32)> {
    match admission {
        Admission::Counted { quota, .. } => Some((quota.allowed, quota.used)),
        _ => None,
    }
}

#[test]
fn exactly_the_limit_is_admitted_each_day_and_the_count_starts_again_at_midnight_utc() {
    let record = key(3);
    let mut count = GateLogs::default();
    let answers: Vec<_> = (0..5)
        .map(|_| {
            admit(
                Some(&record),
                &mut count,
                &request("2026-11-23T23:59:00Z", None),
            )
        })
        .collect();
    let decided: Vec<_> = answers
        .iter()
        .map(|(a, stored)| (used(a), *stored))
        .collect();
    assert_eq!(
        decided,
        [
            (Some((true, 1)), true),
            (Some((true, 2)), true),
            (Some((true, 3)), true),
            // Refused over the limit, and counted as refused.
            (Some((false, 3)), true),
            (Some((false, 3)), true),
        ]
    );
    let day = of_key(&count)
        .on("2026-11-23".parse().unwrap())
        .copied()
        .unwrap();
    assert_eq!((day.used, day.refused_quota), (3, 2));
    let (next_day, stored) = admit(
        Some(&record),
        &mut count,
        &request("2026-11-24T00:00:00Z", None),
    );
    assert_eq!((used(&next_day), stored), (Some((true, 1)), true));
    assert_eq!(
        of_key(&count)
            .days
            .iter()
            .map(|d| d.used)
            .collect::<Vec<_>>(),
        [3, 1]
    );
}

#[test]
fn unknown_revoked_and_expired_keys_and_unlisted_origins_are_refused_and_counted_by_reason() {
    let now = "2026-11-23T12:00:00Z";
    let mut count = GateLogs::default();
    let revoked = KeyRecord {
        revoked_at: Some(at("2026-11-23T11:00:00Z")),
        ..key(10)
    };
    // Expiry is checked against the request's time, so it needs no reread.
    let expired = KeyRecord {
        expires_at: Some(at(now)),
        ..key(10)
    };
    let suspended = KeyRecord {
        suspended: true,
        ..key(10)
    };
    // A digest that is no key leaves nothing in the log.
    let (answer, stored) = admit(None, &mut count, &request(now, None));
    assert_eq!((answer, stored), (Admission::UnknownKey, false));
    assert_eq!(count, GateLogs::default());
    // A known key refused says why.
    for (record, reason) in [
        (&revoked, KeyRefusal::Revoked),
        (&expired, KeyRefusal::Expired),
        (&suspended, KeyRefusal::AccountSuspended),
    ] {
        let (answer, stored) = admit(Some(record), &mut count, &request(now, None));
        assert_eq!((answer, stored), (Admission::KeyRefused { reason }, true));
    }
    // A key for the prediction API only, asked about the router API.
    let prediction_only = KeyRecord {
        apis: vec![KeyApi::Prediction],
        ..key(10)
    };
    let (answer, stored) = admit(Some(&prediction_only), &mut count, &request(now, None));
    assert_eq!((answer, stored), (Admission::ApiRefused, true));
    let (answer, stored) = admit(
        Some(&key(10)),
        &mut count,
        &request(now, Some("https://other.example")),
    );
    assert_eq!((answer, stored), (Admission::OriginRefused, true));
    let day = of_key(&count).on(at(now).date_naive()).copied().unwrap();
    assert_eq!(
        (
            day.used,
            day.refused_key,
            day.refused_api,
            day.refused_origin
        ),
        (0, 3, 1, 1),
        "refused, not used"
    );
    // A listed origin (the list's rule: no trailing slash, any case) is counted.
    let (answer, _) = admit(
        Some(&key(10)),
        &mut count,
        &request(now, Some("https://MAPS.example.org/")),
    );
    assert_eq!(used(&answer), Some((true, 1)));
}

#[test]
fn a_record_is_read_again_once_its_time_to_live_has_passed() {
    let mut cache = RecordCache::new(TimeDelta::seconds(60));
    let read = at("2026-11-23T12:00:00Z");
    assert_eq!(cache.current(read), None, "nothing read yet");
    cache.store(Some(key(10)), read);
    assert_eq!(
        cache.current(read + TimeDelta::seconds(59)),
        Some(Some(&key(10)))
    );
    assert_eq!(cache.current(read + TimeDelta::seconds(60)), None);
    assert_eq!(
        cache.current(read - TimeDelta::seconds(1)),
        None,
        "a read from the future"
    );
    // An absent key is remembered as absent for the same time.
    cache.store(None, read);
    assert_eq!(cache.current(read + TimeDelta::seconds(1)), Some(None));
    // A time to live of zero reads the store on every request.
    let mut every_time = RecordCache::new(record_ttl(Some("0")));
    every_time.store(Some(key(10)), read);
    assert_eq!(every_time.current(read), None);
}

#[test]
fn the_time_to_live_comes_from_its_variable_within_bounds() {
    let default = TimeDelta::seconds(i64::from(DEFAULT_RECORD_TTL_SECONDS));
    assert_eq!(record_ttl(None), default);
    assert_eq!(record_ttl(Some(" 5 ")), TimeDelta::seconds(5));
    assert_eq!(record_ttl(Some("3601")), TimeDelta::seconds(3600));
    for unreadable in ["", "-1", "1.5", "soon"] {
        assert_eq!(record_ttl(Some(unreadable)), default, "{unreadable:?}");
    }
}

#[test]
fn answers_cross_the_object_boundary_as_json_unchanged() {
    let mut count = GateLogs::default();
    let (answer, _) = admit(
        Some(&key(10)),
        &mut count,
        &request("2026-11-23T12:00:00Z", None),
    );
    for answer in [answer, Admission::UnknownKey, Admission::OriginRefused] {
        let text = serde_json::to_string(&answer).unwrap();
        assert_eq!(serde_json::from_str::<Admission>(&text).unwrap(), answer);
    }
    let asked = request("2026-11-23T12:00:00Z", Some(ORIGIN));
    let text = serde_json::to_string(&asked).unwrap();
    assert_eq!(serde_json::from_str::<GateRequest>(&text).unwrap(), asked);
}

#[test]
fn the_log_keeps_its_days_in_order_and_drops_those_past_its_length() {
    let record = key(1_000);
    let mut logs = GateLogs::default();
    let at_day = |d: u64| {
        let day = at("2026-01-01T12:00:00Z") + chrono::Days::new(d);
        request(&day.to_rfc3339(), None)
    };
    for d in 0..KEEP_DAYS as u64 + 10 {
        admit(Some(&record), &mut logs, &at_day(d));
    }
    let log = of_key(&logs);
    assert_eq!(log.days.len(), KEEP_DAYS);
    assert_eq!(log.days[0].day, at_day(10).now.date_naive());
    // A request stamped a day behind counts on its own day, not a new one.
    admit(Some(&record), &mut logs, &at_day(KEEP_DAYS as u64 + 8));
    let log = of_key(&logs);
    assert_eq!(log.days.len(), KEEP_DAYS);
    assert_eq!(
        log.on(at_day(KEEP_DAYS as u64 + 8).now.date_naive())
            .unwrap()
            .used,
        2
    );
    assert!(log.days.windows(2).all(|w| w[0].day < w[1].day));
}
