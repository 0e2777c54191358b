//! The forecasting clock: real UTC time, or pinned by configuration for replay.

use chrono::{DateTime, NaiveDate, Utc};

/// Name of the Worker variable that pins the clock.
pub const CLOCK_VAR: &str = "HEXRISK_CLOCK";

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
        assert_eq!(
            forecast_now(Some("2022-01-03T01:00:00-05:00"), now),
            "2022-01-03T06:00:00Z".parse::<DateTime<Utc>>().unwrap()
        );
        assert_eq!(forecast_now(None, now), now);
        assert_eq!(forecast_now(Some(""), now), now);
        assert_eq!(forecast_now(Some("not a date"), now), now);
    }
}
