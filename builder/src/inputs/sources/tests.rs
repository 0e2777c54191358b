use super::*;
use std::io::Write;

#[test]
fn numbers_come_out_of_both_geometry_spellings() {
    assert_eq!(
        first_two_numbers(
            "{'type': 'MultiPoint', 'coordinates': [[-79.3928283609999, 43.685026441]]}"
        ),
        Some((-79.392_828_360_999_9, 43.685_026_441))
    );
    assert_eq!(
        first_two_numbers("c(-79.538218382, 43.7337424510001)"),
        Some((-79.538_218_382, 43.733_742_451_000_1))
    );
    assert_eq!(
        first_two_numbers("c(5.68e-14, 5.08e-14)"),
        Some((5.68e-14, 5.08e-14))
    );
    assert_eq!(first_two_numbers("NA"), None);
}

#[test]
fn epoch_milliseconds_become_the_local_date() {
    let tz: Tz = "America/Toronto".parse().unwrap();
    // 2004-01-03T05:00:00Z is midnight in Toronto.
    assert_eq!(
        local_date_of_epoch_ms("1073106000000", tz),
        NaiveDate::from_ymd_opt(2004, 1, 3)
    );
    // One second earlier is still the 2nd locally.
    assert_eq!(
        local_date_of_epoch_ms("1073105999000", tz),
        NaiveDate::from_ymd_opt(2004, 1, 2)
    );
}

#[test]
fn utc_instants_become_the_local_date_and_hour() {
    let tz: Tz = "America/Chicago".parse().unwrap();
    let local = |text| local_time_of_instant(text, tz).map(|t| (t.date(), t.hour()));
    assert_eq!(
        local("2010-01-01T06:00:00Z"),
        NaiveDate::from_ymd_opt(2010, 1, 1).map(|d| (d, 0))
    );
    assert_eq!(
        local("2010-01-01T05:59:00Z"),
        NaiveDate::from_ymd_opt(2009, 12, 31).map(|d| (d, 23))
    );
    assert_eq!(local("garbage"), None);
}

#[test]
fn hours_are_read_as_each_source_writes_them() {
    assert_eq!(parse_hour("7"), Some(7));
    assert_eq!(parse_hour(" 23 "), Some(23));
    assert_eq!(parse_hour("24"), None);
    assert_eq!(parse_hour("NA"), None);
    assert_eq!(hour_of_clock("00:01"), Some(0));
    assert_eq!(hour_of_clock("18:45"), Some(18));
    assert_eq!(hour_of_clock("18:75"), None);
    assert_eq!(hour_of_clock("1845"), None);
}

#[test]
fn mci_rows_keep_bad_fields_as_missing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mci.csv");
    let mut file = File::create(&path).unwrap();
    writeln!(file, "occurrencedate,MCI,Lat,Long,occurrencehour").unwrap();
    writeln!(file, "2014/03/02 05:00:00+00,Assault,43.7,-79.5,17").unwrap();
    writeln!(file, "not a date,Robbery,,-79.5,NA").unwrap();
    drop(file);
    let rows = read(
        SourceFormat::TorontoMci,
        &path,
        "MCI",
        chrono_tz::America::Toronto,
    )
    .unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0].date, NaiveDate::from_ymd_opt(2014, 3, 2));
    assert_eq!(rows[0].offence, "Assault");
    assert_eq!((rows[0].hour, rows[1].hour), (Some(17), None));
    assert_eq!(rows[1].date, None);
    assert_eq!(rows[1].lat, None);
}

#[test]
fn premises_are_read_only_from_a_named_column() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mci.csv");
    std::fs::write(
        &path,
        "occurrencedate,MCI,Lat,Long,occurrencehour,premises_type\n\
         2014/03/02 05:00:00+00,Assault,43.7,-79.5,17, Outside \n",
    )
    .unwrap();
    let tz = chrono_tz::America::Toronto;
    let with = read_with_premises(
        SourceFormat::TorontoMci,
        &path,
        "MCI",
        Some("premises_type"),
        tz,
    )
    .unwrap();
    assert_eq!(with[0].premises.as_deref(), Some("Outside"));
    let without = read(SourceFormat::TorontoMci, &path, "MCI", tz).unwrap();
    assert_eq!(without[0].premises, None);
    assert_eq!(
        RawRow {
            premises: None,
            ..with[0].clone()
        },
        without[0]
    );
    let missing = read_with_premises(SourceFormat::TorontoMci, &path, "MCI", Some("premise"), tz);
    assert!(matches!(missing, Err(SourceError::MissingColumn { .. })));
}

#[test]
fn a_missing_column_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.csv");
    std::fs::write(&path, "a,b\n1,2\n").unwrap();
    let err = read(
        SourceFormat::SfpdIncidents,
        &path,
        "Category",
        chrono_tz::UTC,
    )
    .unwrap_err();
    assert!(matches!(err, SourceError::MissingColumn { .. }), "{err}");
}
