use super::*;

fn record() -> FeedRecord {
    FeedRecord {
        id: "1".into(),
        event: Some("GO-1".into()),
        occurred_date: NaiveDate::from_ymd_opt(2021, 3, 4),
        occurred_hour: Some(5),
        reported: None,
        offence: "Assault".into(),
        description: None,
        premises: Some("Outside".into()),
        lat: Some(43.7),
        lng: Some(-79.4),
    }
}

#[test]
fn the_digest_ignores_the_id_and_sees_every_other_field() {
    let base = record();
    let rekeyed = FeedRecord {
        id: "99".into(),
        ..base.clone()
    };
    assert_eq!(base.digest(), rekeyed.digest());
    let changes: [fn(&mut FeedRecord); 9] = [
        |r| r.event = None,
        |r| r.occurred_date = NaiveDate::from_ymd_opt(2021, 3, 5),
        |r| r.occurred_hour = None,
        |r| r.reported = Some("2021-03-05T00:00:00Z".into()),
        |r| r.offence = "Robbery".into(),
        |r| r.description = Some(String::new()),
        |r| r.premises = None,
        |r| r.lat = Some(43.7001),
        |r| r.lng = None,
    ];
    for change in changes {
        let mut other = base.clone();
        change(&mut other);
        assert_ne!(base.digest(), other.digest(), "{other:?}");
    }
}

#[test]
fn adjacent_fields_do_not_run_together() {
    let a = FeedRecord {
        offence: "ab".into(),
        description: Some("c".into()),
        ..record()
    };
    let b = FeedRecord {
        offence: "a".into(),
        description: Some("bc".into()),
        ..record()
    };
    assert_ne!(a.digest(), b.digest());
}
