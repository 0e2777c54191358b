use super::*;

#[test]
fn every_takes_days_hours_minutes_or_seconds() {
    assert_eq!(parse_every("7d"), Ok(Duration::from_hours(7 * 24)));
    assert_eq!(parse_every("12h"), Ok(Duration::from_hours(12)));
    assert_eq!(parse_every("30m"), Ok(Duration::from_mins(30)));
    assert_eq!(parse_every("5s"), Ok(Duration::from_secs(5)));
    for bad in [
        "",
        "7",
        "d",
        "0d",
        "-1d",
        "7w",
        "1.5d",
        "99999999999999999d",
    ] {
        assert!(parse_every(bad).is_err(), "{bad}");
    }
}
