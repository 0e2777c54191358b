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
mod tests {
    use std::collections::BTreeMap;
    use std::path::Path;

    use chrono_tz::America::Toronto;

    use super::*;
    use crate::inputs::cleaning::{self, Rejection};
    use crate::inputs::config::{self, SourceFormat};
    use crate::inputs::sources::{self, SourceError};

    fn date(y: i32, m: u32, d: u32) -> Option<NaiveDate> {
        NaiveDate::from_ymd_opt(y, m, d)
    }

    #[test]
    fn the_local_date_is_taken_in_the_city_time_zone_whatever_the_offset() {
        for (text, expected) in [
            // The same instant written three ways is 2021-06-30 in Toronto.
            ("2021-06-30T23:30:00-04:00", date(2021, 6, 30)),
            ("2021-07-01T03:30:00Z", date(2021, 6, 30)),
            ("2021-07-01T05:30:00+02:00", date(2021, 6, 30)),
            // Half an hour later it is July locally.
            ("2021-07-01T04:00:00Z", date(2021, 7, 1)),
            // Winter: Toronto is UTC-5.
            ("2021-01-01T04:59:59Z", date(2020, 12, 31)),
            (" 2021-01-01T05:00:00.5Z ", date(2021, 1, 1)),
            // No offset, a date alone or garbage: no date.
            ("2021-06-30T23:30:00", None),
            ("2021-06-30", None),
            ("2021-06-31T10:00:00Z", None),
            ("", None),
        ] {
            assert_eq!(local_date(text, Toronto), expected, "{text:?}");
        }
    }

    fn write(dir: &Path, name: &str, text: &str) -> std::path::PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path
    }

    #[test]
    fn rows_keep_bad_fields_as_missing_and_ignore_unknown_columns() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(
            dir.path(),
            "incidents.csv",
            "ward,id,occurred_at,longitude,latitude,offence,description\n\
             W1,a-1,2021-06-30T23:30:00-04:00,-79.39,43.66,Assault,with a knife\n\
             W1,,2021-06-30T23:30:00,-79.39,43.66, Assault ,\n\
             W2,a-3,2021-06-30T23:30:00Z,x,43.66,Robbery\n",
        );
        let rows = sources::read(SourceFormat::Generic, &path, "offence", Toronto).unwrap();
        assert_eq!(rows.len(), 3);
        assert_eq!(rows[0].event_id.as_deref(), Some("a-1"));
        assert_eq!(rows[0].date, date(2021, 6, 30));
        assert_eq!((rows[0].lat, rows[0].lng), (Some(43.66), Some(-79.39)));
        assert_eq!(rows[0].offence, "Assault");
        assert_eq!(rows[0].description.as_deref(), Some("with a knife"));
        assert_eq!(rows[1].event_id, None, "a blank id is no id");
        assert_eq!(rows[1].offence, "Assault");
        assert_eq!(rows[1].date, None, "no offset, no date");
        assert_eq!(rows[2].lng, None);
        assert_eq!(rows[2].description.as_deref(), Some(""), "short row");
    }

    #[test]
    fn a_missing_required_column_is_an_error_naming_file_and_column() {
        let dir = tempfile::tempdir().unwrap();
        for (header, missing) in [
            ("longitude,occurred_at,offence", "latitude"),
            ("latitude,occurred_at,offence", "longitude"),
            ("latitude,longitude,offence", "occurred_at"),
            ("latitude,longitude,occurred_at", "offence"),
        ] {
            let path = write(dir.path(), "bad.csv", &format!("{header}\n1,2,3\n"));
            match sources::read(SourceFormat::Generic, &path, "offence", Toronto) {
                Err(SourceError::MissingColumn { path: p, column }) => {
                    assert_eq!((p.as_path(), column.as_str()), (path.as_path(), missing));
                }
                other => panic!("{header}: {other:?}"),
            }
        }
        // With `field = "*"` the offence column is not needed.
        let path = write(dir.path(), "any.csv", "latitude,longitude,occurred_at\n");
        assert!(sources::read(SourceFormat::Generic, &path, "*", Toronto).is_ok());
    }

    #[test]
    fn gzipped_files_and_a_byte_order_mark_are_read() {
        use std::io::Write;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("incidents.csv.gz");
        let mut gz = flate2::write::GzEncoder::new(
            std::fs::File::create(&path).unwrap(),
            flate2::Compression::default(),
        );
        gz.write_all(
            "\u{feff}latitude,longitude,occurred_at,offence\n43.66,-79.39,2021-07-01T03:30:00Z,Robbery\n"
                .as_bytes(),
        )
        .unwrap();
        gz.finish().unwrap();
        let rows = sources::read(SourceFormat::Generic, &path, "offence", Toronto).unwrap();
        assert_eq!(rows.len(), 1);
        assert_eq!(
            (rows[0].date, rows[0].lat),
            (date(2021, 6, 30), Some(43.66))
        );
    }

    /// A one-source city over a box around (43.66, -79.39), built by `ingest`, so
    /// every row ends accepted or rejected for the reason the model card shows.
    #[test]
    fn bad_rows_are_rejected_with_reasons_not_errors() {
        let dir = tempfile::tempdir().unwrap();
        write(
            dir.path(),
            "area.geojson",
            r#"{"type":"FeatureCollection","features":[{"type":"Feature",
                "properties":{"code":"A","label":"Area A"},
                "geometry":{"type":"Polygon","coordinates":[[[-79.42,43.64],[-79.36,43.64],
                [-79.36,43.68],[-79.42,43.68],[-79.42,43.64]]]}}]}"#,
        );
        write(
            dir.path(),
            "incidents.csv",
            "id,latitude,longitude,occurred_at,offence,description\n\
             1,43.66,-79.39,2021-06-30T23:30:00-04:00,Assault,\n\
             2,43.66,-79.39,2021-07-01T03:30:00Z,Theft,from a car\n\
             3,43.66,-79.39,2021-06-30T23:30:00,Assault,\n\
             4,43.66,-79.39,yesterday,Assault,\n\
             5,,-79.39,2021-06-30T12:00:00Z,Assault,\n\
             6,0,0,2021-06-30T12:00:00Z,Assault,\n\
             7,43.66,-79.39,2021-06-30T12:00:00Z,Jaywalking,\n\
             8,43.66,-79.39,2021-06-30T12:00:00Z,Lost property,\n\
             9,43.66,-79.39,2019-06-30T12:00:00Z,Assault,\n\
             10,43.80,-79.39,2021-06-30T12:00:00Z,Assault,\n",
        );
        let city: config::CityConfig = toml::from_str(
            r#"
            code = "city_xx_tst"
            name = "Test"
            country = "Nowhere"
            timezone = "America/Toronto"
            span = { start = "2021-01-01", end = "2021-12-31" }
            backtest_weeks = 4
            horizon_weeks = 2
            [boundary]
            file = "area.geojson"
            precinct_id = "code"
            precinct_name = "label"
            [sources.incidents]
            format = "generic"
            files = ["incidents.csv"]
            field = "offence"
            [sources.incidents.classes]
            "Assault" = "BATTERY_ASSAULT"
            "Theft" = "THEFT_BURGLARY"
            "Lost property" = "NOT_AN_OFFENCE"
            [[sources.incidents.overrides]]
            category = "Theft"
            contains = ["from a car"]
            class = "VEHICLE_DAMAGE"
            "#,
        )
        .unwrap();
        let ingested = cleaning::ingest(&city, dir.path()).unwrap();
        let report = &ingested.reports["incidents"];
        assert_eq!(report.rows, 10);
        let accepted: Vec<_> = report
            .accepted
            .iter()
            .map(|(c, n)| (c.code(), *n))
            .collect();
        assert_eq!(accepted, [("BATTERY_ASSAULT", 1), ("VEHICLE_DAMAGE", 1)]);
        let expected: BTreeMap<Rejection, u64> = [
            (Rejection::BadDate, 2),
            (Rejection::BadCoordinates, 2),
            (Rejection::Unmapped, 1),
            (Rejection::NotAnOffence, 1),
            (Rejection::OutsideSpan, 1),
            (Rejection::OutsideCity, 1),
        ]
        .into_iter()
        .collect();
        assert_eq!(report.rejected, expected);
        // Both kept rows fall on 2021-06-30, local, in the one week holding it.
        assert!(
            ingested
                .incidents
                .iter()
                .all(|i| i.date == date(2021, 6, 30).unwrap())
        );
        assert_eq!(ingested.grid.precincts[0].name, "Area A");
    }
}
