//! The generic incident CSV (`format = "generic"`): the layout a new city's data is
//! converted to, so that adding a city needs a TOML file and data files, no code.
//! `docs/ADD_A_CITY.md` is its specification; in short, a header row and
//!
//! | column | | content |
//! |---|---|---|
//! | `latitude`, `longitude` | required | WGS84 degrees |
//! | `occurred_at` | required | RFC 3339 date-time with its UTC offset (`2021-06-30T22:15:00-04:00` or `…Z`) |
//! | the source's `field` (`offence` by convention) | required unless `field = "*"` | free text, mapped to a class by the TOML |
//! | `id` | optional | the incident's id, unique per incident |
//! | `description` | optional | free text, matched by the TOML's `overrides` |
//!
//! Column names are exact and other columns are ignored; spaces around a name, an
//! id or an offence are ignored.
//! The local date of an incident is the date of `occurred_at` in the city's time
//! zone, whatever offset the file wrote: the offset only fixes the instant.
//!
//! This module knows nothing of [`super::sources`]: `sources::read` finds the
//! columns' positions here and turns [`GenericRow`]s into its own rows, so neither
//! module imports the other's types.

use chrono::{DateTime, NaiveDate};
use chrono_tz::Tz;

/// Column holding the latitude.
pub const LATITUDE: &str = "latitude";
/// Column holding the longitude.
pub const LONGITUDE: &str = "longitude";
/// Column holding the RFC 3339 date-time with offset.
pub const OCCURRED_AT: &str = "occurred_at";
/// Optional column holding the incident id.
pub const ID: &str = "id";
/// Optional column holding a free-text description.
pub const DESCRIPTION: &str = "description";

/// Positions of the generic columns in a file's header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GenericColumns {
    latitude: usize,
    longitude: usize,
    occurred_at: usize,
    offence: Option<usize>,
    id: Option<usize>,
    description: Option<usize>,
}

/// One generic row; `None` fields are missing or unreadable (the build rejects the
/// row with a reason, it is not an error).
#[derive(Debug, Clone, PartialEq)]
pub struct GenericRow {
    /// The `id` column, when present and not blank.
    pub id: Option<String>,
    /// Local calendar date of `occurred_at` in the city's time zone.
    pub date: Option<NaiveDate>,
    /// Local hour of `occurred_at` in the city's time zone.
    pub hour: Option<u8>,
    /// Latitude.
    pub latitude: Option<f64>,
    /// Longitude.
    pub longitude: Option<f64>,
    /// The offence text (empty when every row is the same offence, `field = "*"`).
    pub offence: String,
    /// The `description` column, when present.
    pub description: Option<String>,
}

fn position(headers: &csv::StringRecord, name: &str) -> Option<usize> {
    headers.iter().position(|h| h.trim() == name)
}

impl GenericColumns {
    /// Finds the columns in a header row. `offence` is the position of the source's
    /// offence column, already looked up by the caller (`None` for `field = "*"`).
    ///
    /// # Errors
    /// The name of the first required column the header lacks.
    pub fn locate(
        headers: &csv::StringRecord,
        offence: Option<usize>,
    ) -> Result<Self, &'static str> {
        let required = |name: &'static str| position(headers, name).ok_or(name);
        Ok(Self {
            latitude: required(LATITUDE)?,
            longitude: required(LONGITUDE)?,
            occurred_at: required(OCCURRED_AT)?,
            offence,
            id: position(headers, ID),
            description: position(headers, DESCRIPTION),
        })
    }

    /// Reads one record; a short record's missing fields read as blank.
    #[must_use]
    pub fn row(&self, record: &csv::StringRecord, tz: Tz) -> GenericRow {
        let text = |i: usize| record.get(i).unwrap_or("");
        let local = local_time(text(self.occurred_at), tz);
        GenericRow {
            id: self
                .id
                .map(|i| text(i).trim().to_owned())
                .filter(|s| !s.is_empty()),
            date: local.map(|t| t.date()),
            hour: local.and_then(|t| u8::try_from(chrono::Timelike::hour(&t)).ok()),
            latitude: degrees(text(self.latitude)),
            longitude: degrees(text(self.longitude)),
            // Trimmed so that `"Assault "` finds the mapping's `"Assault"`.
            offence: self
                .offence
                .map(|i| text(i).trim().to_owned())
                .unwrap_or_default(),
            description: self.description.map(|i| text(i).to_owned()),
        }
    }
}

fn degrees(text: &str) -> Option<f64> {
    text.trim().parse::<f64>().ok().filter(|v| v.is_finite())
}

/// The local date in `tz` of an RFC 3339 date-time with offset. A date-time without
/// an offset (or with a bad one) gives `None`: its instant, and so possibly its
/// date, would be a guess.
#[must_use]
pub fn local_date(text: &str, tz: Tz) -> Option<NaiveDate> {
    local_time(text, tz).map(|t| t.date())
}

/// The local date and time in `tz` of an RFC 3339 date-time with offset (`None`
/// without an offset, as [`local_date`]).
#[must_use]
pub fn local_time(text: &str, tz: Tz) -> Option<chrono::NaiveDateTime> {
    let instant = DateTime::parse_from_rfc3339(text.trim()).ok()?;
    Some(instant.with_timezone(&tz).naive_local())
}

#[cfg(test)]
mod tests;
