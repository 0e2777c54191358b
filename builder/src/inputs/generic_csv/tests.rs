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
