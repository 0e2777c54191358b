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
mod tests {
    use super::*;

    /// The inputs chrono's format strings take, and their answers, agree with these.
    #[test]
    fn these_accept_and_refuse_what_chrono_s_format_strings_do() {
        for text in [
            "2022-01-03",
            "2022-1-3",
            "2022-01-3x",
            "22-01-03",
            "+2022-01-03",
            "2022-02-30",
            "2022-01-03T10:00",
            "2022-01-03T10:00:00",
            "2022-01-03T10:00:00.250",
            "2022-01-03T7:5",
            "2022-01-03T10:00:60",
            "2022-01-03 10:00",
            "",
            "x",
        ] {
            assert_eq!(
                parse_date(text),
                NaiveDate::parse_from_str(text, "%Y-%m-%d").ok(),
                "{text:?}"
            );
            let by_chrono = ["%Y-%m-%dT%H:%M:%S%.f", "%Y-%m-%dT%H:%M"]
                .into_iter()
                .find_map(|f| NaiveDateTime::parse_from_str(text, f).ok());
            assert_eq!(parse_local(text), by_chrono, "{text:?}");
        }
        let at =
            NaiveDateTime::parse_from_str("0987-01-03T04:05:06.7", "%Y-%m-%dT%H:%M:%S%.f").unwrap();
        assert_eq!(local_text(at), at.format("%Y-%m-%dT%H:%M:%S").to_string());
        assert_eq!(hours_minutes(at.time()), at.format("%H:%M").to_string());
    }
}
