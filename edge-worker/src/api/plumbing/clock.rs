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
mod tests;
