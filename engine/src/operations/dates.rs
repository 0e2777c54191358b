//! Dates and local times as the APIs read and write them (ISO 8601), through
//! chrono's parser with the items of `%Y-%m-%d` and friends written out once, and
//! formatting written by hand: the same inputs are accepted as by chrono's
//! `parse_from_str` with those format strings, and the npm package's wasm carries
//! neither chrono's format-string reader nor its formatter.

use alloc::format;
use alloc::string::String;

use chrono::format::{Fixed, Item, Numeric, Pad, Parsed, parse};
use chrono::{Datelike, NaiveDate, NaiveDateTime, NaiveTime, Timelike};

const DATE: [Item<'static>; 5] = [
    Item::Numeric(Numeric::Year, Pad::Zero),
    Item::Literal("-"),
    Item::Numeric(Numeric::Month, Pad::Zero),
    Item::Literal("-"),
    Item::Numeric(Numeric::Day, Pad::Zero),
];

/// `%Y-%m-%dT%H:%M`, and with `:%S%.f` after it.
const DATE_TIME: [Item<'static>; 12] = [
    Item::Numeric(Numeric::Year, Pad::Zero),
    Item::Literal("-"),
    Item::Numeric(Numeric::Month, Pad::Zero),
    Item::Literal("-"),
    Item::Numeric(Numeric::Day, Pad::Zero),
    Item::Literal("T"),
    Item::Numeric(Numeric::Hour, Pad::Zero),
    Item::Literal(":"),
    Item::Numeric(Numeric::Minute, Pad::Zero),
    Item::Literal(":"),
    Item::Numeric(Numeric::Second, Pad::Zero),
    Item::Fixed(Fixed::Nanosecond),
];

/// A date written `%Y-%m-%d`.
#[must_use]
pub fn parse_date(text: &str) -> Option<NaiveDate> {
    let mut parsed = Parsed::new();
    parse(&mut parsed, text, DATE.iter()).ok()?;
    parsed.to_naive_date().ok()
}

/// A local time written `%Y-%m-%dT%H:%M:%S%.f` or `%Y-%m-%dT%H:%M`.
#[must_use]
pub fn parse_local(text: &str) -> Option<NaiveDateTime> {
    [&DATE_TIME[..], &DATE_TIME[..9]]
        .into_iter()
        .find_map(|items| {
            let mut parsed = Parsed::new();
            parse(&mut parsed, text, items.iter()).ok()?;
            parsed.to_naive_datetime_with_offset(0).ok()
        })
}

/// `%Y-%m-%dT%H:%M:%S` (whole seconds).
#[must_use]
pub fn local_text(at: NaiveDateTime) -> String {
    format!(
        "{:04}-{:02}-{:02}T{}:{:02}",
        at.year(),
        at.month(),
        at.day(),
        hours_minutes(at.time()),
        at.second()
    )
}

/// `%H:%M`.
#[must_use]
pub fn hours_minutes(at: NaiveTime) -> String {
    format!("{:02}:{:02}", at.hour(), at.minute())
}

#[cfg(test)]
mod tests;
