//! The forecasting clock: real UTC time, pinned by configuration for replay, or
//! following the published data (`follow-data`) for replays that publish week
//! after week.

use chrono::{DateTime, NaiveDate, Utc};

/// Name of the Worker variable that pins the clock.
pub const CLOCK_VAR: &str = "HEXRISK_CLOCK";

/// The pin that makes the clock follow the data.
pub const FOLLOW_DATA: &str = "follow-data";

/// Whether the pin makes the clock follow the data.
#[must_use]
pub fn follows_data(pin: Option<&str>) -> bool {
    pin.is_some_and(|p| p.trim() == FOLLOW_DATA)
}

/// "Now" for data through `newest` (a Sunday): noon UTC of the next day, the
/// Monday that starts the first week after the data.
#[must_use]
pub fn after_data(newest: NaiveDate) -> DateTime<Utc> {
    (newest + chrono::Days::new(1))
        .and_hms_opt(12, 0, 0)
        .map_or(DateTime::<Utc>::MIN_UTC, |t| t.and_utc())
}

/// Parses a pin: an RFC 3339 instant, or a date (taken at 12:00 UTC, which is the
/// same calendar date in every covered city).
#[must_use]
pub fn parse_pin(text: &str) -> Option<DateTime<Utc>> {
    let text = text.trim();
    if let Ok(instant) = DateTime::parse_from_rfc3339(text) {
        return Some(instant.with_timezone(&Utc));
    }
    NaiveDate::parse_from_str(text, "%Y-%m-%d")
        .ok()?
        .and_hms_opt(12, 0, 0)
        .map(|t| t.and_utc())
}

/// The forecasting "now": the pin when one is configured and valid, else `now`.
#[must_use]
pub fn forecast_now(pin: Option<&str>, now: DateTime<Utc>) -> DateTime<Utc> {
    pin.filter(|p| !p.trim().is_empty())
        .and_then(parse_pin)
        .unwrap_or(now)
}

#[cfg(test)]
mod tests {
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
}
