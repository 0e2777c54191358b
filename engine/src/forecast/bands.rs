//! Time bands of the week: the slices of local time over which a cell's weekly
//! expected count is spread by its time-of-day profile.
//!
//! A band day runs from [`TimeBands::day_start_hour`] on the evening before a date
//! to the same hour on that date, so that a night is never cut at midnight: with
//! the day starting at 22:00 and 4-hour bands, Friday 23:30 lies in the first band
//! (22:00-02:00) of Saturday's band day. Band days on Saturday and Sunday are the
//! weekend (Friday night to Sunday 22:00); the others are weekdays.

use chrono::{Datelike, NaiveDate, NaiveDateTime, Timelike, Weekday};
use serde::{Deserialize, Serialize};

/// Hours in a week.
pub const WEEK_HOURS: u32 = 168;

/// The night of the `night` intent: the bands that start from this local hour ...
pub const NIGHT_FROM_HOUR: u8 = 22;
/// ... up to (not including) this one.
pub const NIGHT_UNTIL_HOUR: u8 = 4;

/// The hours of the week a score counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TimeWindow {
    /// The whole week.
    #[default]
    Week,
    /// One band of one band day.
    Band(Band),
    /// Every night of the week: the bands starting from [`NIGHT_FROM_HOUR`] up to
    /// [`NIGHT_UNTIL_HOUR`], on weekdays and at weekends.
    Nights,
}

/// How a city's week is cut into bands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TimeBands {
    /// Length of every band in hours: a divisor of 24.
    pub band_hours: u8,
    /// Local hour (0-23) at which a band day starts, the evening before its date.
    pub day_start_hour: u8,
}

/// Weekday or weekend.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DayKind {
    /// Monday to Friday band days.
    Weekday,
    /// Saturday and Sunday band days.
    Weekend,
}

impl DayKind {
    /// Band days of this kind in a week.
    #[must_use]
    pub const fn days_per_week(self) -> u32 {
        match self {
            Self::Weekday => 5,
            Self::Weekend => 2,
        }
    }

    /// The kind of a band day's date.
    #[must_use]
    pub fn of(date: NaiveDate) -> Self {
        match date.weekday() {
            Weekday::Sat | Weekday::Sun => Self::Weekend,
            _ => Self::Weekday,
        }
    }

    /// `weekday` or `weekend`.
    #[must_use]
    pub const fn code(self) -> &'static str {
        match self {
            Self::Weekday => "weekday",
            Self::Weekend => "weekend",
        }
    }
}

/// One band of a band day: its kind and position.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Band {
    /// Weekday or weekend.
    pub kind: DayKind,
    /// Position in the band day, 0 for the band starting at `day_start_hour`.
    pub position: u8,
}

/// A band at a given local time: the band and the date of its band day.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BandInstance {
    /// The band.
    pub band: Band,
    /// The date of its band day.
    pub day: NaiveDate,
    /// Local start, inclusive.
    pub start: NaiveDateTime,
    /// Local end, exclusive.
    pub end: NaiveDateTime,
}

/// Why a band layout cannot be used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error(
    "time bands of {band_hours} h starting at {day_start_hour} h are not a division of the day"
)]
pub struct InvalidBands {
    /// The band length.
    pub band_hours: u8,
    /// The start hour.
    pub day_start_hour: u8,
}

impl TimeBands {
    /// Checks that the bands cut the day evenly.
    ///
    /// # Errors
    /// [`InvalidBands`] unless `band_hours` divides 24 and `day_start_hour < 24`.
    pub const fn check(self) -> Result<Self, InvalidBands> {
        if self.band_hours == 0 || 24 % self.band_hours != 0 || self.day_start_hour >= 24 {
            return Err(InvalidBands {
                band_hours: self.band_hours,
                day_start_hour: self.day_start_hour,
            });
        }
        Ok(self)
    }

    /// Bands in one band day.
    #[must_use]
    pub const fn per_day(self) -> usize {
        (24 / self.band_hours) as usize
    }

    /// Distinct bands of the week: every position, on weekdays and at weekends.
    #[must_use]
    pub const fn count(self) -> usize {
        2 * self.per_day()
    }

    /// A band's position in tables of [`TimeBands::count`] entries (weekday bands
    /// first).
    #[must_use]
    pub const fn index(self, band: Band) -> usize {
        match band.kind {
            DayKind::Weekday => band.position as usize,
            DayKind::Weekend => self.per_day() + band.position as usize,
        }
    }

    /// The band at a table position.
    #[must_use]
    pub fn band(self, index: usize) -> Band {
        let per_day = self.per_day();
        let kind = if index < per_day {
            DayKind::Weekday
        } else {
            DayKind::Weekend
        };
        Band {
            kind,
            position: u8::try_from(index % per_day).unwrap_or(0),
        }
    }

    /// The share of a week's hours that a band takes: the flat profile.
    #[must_use]
    pub fn flat_share(self, band: Band) -> f64 {
        f64::from(band.kind.days_per_week() * u32::from(self.band_hours)) / f64::from(WEEK_HOURS)
    }

    /// The local hour at which bands at `position` start.
    #[must_use]
    pub const fn start_hour(self, position: u8) -> u8 {
        ((self.day_start_hour as u32 + position as u32 * self.band_hours as u32) % 24) as u8
    }

    /// Whether bands at `position` are night bands ([`TimeWindow::Nights`]).
    #[must_use]
    pub const fn is_night(self, position: u8) -> bool {
        let hour = self.start_hour(position);
        hour >= NIGHT_FROM_HOUR || hour < NIGHT_UNTIL_HOUR
    }

    /// The band at an hour of the week, counted from Monday 00:00 local time
    /// (`0..168`; larger values wrap).
    #[must_use]
    pub fn at_hour_of_week(self, hour_of_week: u32) -> Band {
        let hour_of_week = hour_of_week % WEEK_HOURS;
        let (day, hour) = (hour_of_week / 24, hour_of_week % 24);
        // Past the day's start hour the band day is the next date's.
        let band_day = if self.day_start_hour > 0 && hour >= u32::from(self.day_start_hour) {
            (day + 1) % 7
        } else {
            day
        };
        let shifted = (hour + 24 - u32::from(self.day_start_hour)) % 24;
        Band {
            // Monday is 0: band days 5 and 6 are Saturday and Sunday.
            kind: if band_day >= 5 {
                DayKind::Weekend
            } else {
                DayKind::Weekday
            },
            position: u8::try_from(shifted / u32::from(self.band_hours)).unwrap_or(0),
        }
    }

    /// The band holding a local date and hour.
    #[must_use]
    pub fn at(self, date: NaiveDate, hour: u8) -> (Band, NaiveDate) {
        let shifted = (u32::from(hour) + 24 - u32::from(self.day_start_hour)) % 24;
        let day = if self.day_start_hour > 0 && hour >= self.day_start_hour {
            date.succ_opt().unwrap_or(date)
        } else {
            date
        };
        let band = Band {
            kind: DayKind::of(day),
            position: u8::try_from(shifted / u32::from(self.band_hours)).unwrap_or(0),
        };
        (band, day)
    }

    /// The band holding a local date-time, with its local start and end.
    #[must_use]
    pub fn instance(self, local: NaiveDateTime) -> BandInstance {
        let hour = u8::try_from(local.hour()).unwrap_or(0);
        let (band, day) = self.at(local.date(), hour);
        let day_start = day.and_hms_opt(0, 0, 0).unwrap_or(local)
            - chrono::Duration::hours(i64::from((24 - u32::from(self.day_start_hour)) % 24));
        let start = day_start
            + chrono::Duration::hours(i64::from(band.position) * i64::from(self.band_hours));
        BandInstance {
            band,
            day,
            start,
            end: start + chrono::Duration::hours(i64::from(self.band_hours)),
        }
    }
}

#[cfg(test)]
mod tests;
