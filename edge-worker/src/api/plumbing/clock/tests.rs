use super::*;

#[test]
fn pins_parse_as_dates_or_instants() {
    let now: DateTime<Utc> = "2026-11-22T08:00:00Z".parse().unwrap();
    assert_eq!(
        forecast_now(Some("2022-01-03"), now),
        "2022-01-03T12:00:00Z".parse::<DateTime<Utc>>().unwrap()
    );
    assert!(follows_data(Some("follow-data")));
    assert!(!follows_data(Some("2022-01-03")) && !follows_data(None));
    assert_eq!(
        after_data(NaiveDate::from_ymd_opt(2021, 12, 26).unwrap()),
        "2021-12-27T12:00:00Z".parse::<DateTime<Utc>>().unwrap()
    );
    assert_eq!(
        forecast_now(Some("2022-01-03T01:00:00-05:00"), now),
        "2022-01-03T06:00:00Z".parse::<DateTime<Utc>>().unwrap()
    );
    assert_eq!(forecast_now(None, now), now);
    assert_eq!(forecast_now(Some(""), now), now);
    assert_eq!(forecast_now(Some("not a date"), now), now);
}
