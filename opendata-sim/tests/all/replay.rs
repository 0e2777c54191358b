//! The city feeds, on small hand-made files in the real formats (and, when the shared
//! data folder is present, on the first rows of the real files).
#![allow(clippy::disallowed_methods)] // test fixtures written into a temporary folder

use std::collections::HashSet;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use crate::support::cities::{fixture, gz};
use chrono::NaiveDate;
use opendata_sim::{City, CityFeed, Script, World};
use serde_json::{Value, json};

fn ms(s: &str) -> i64 {
    chrono::DateTime::parse_from_rfc3339(s)
        .expect("instant")
        .timestamp_millis()
}

#[test]
fn toronto_rows_follow_the_real_layer() {
    let dir = fixture();
    let feed = CityFeed::load(City::Toronto, dir.path()).expect("loads");
    assert_eq!((feed.incidents.len(), feed.skipped), (4, 0));
    let world = World::start_at(
        Script::without_lateness(feed, 1),
        NaiveDate::from_ymd_opt(2015, 1, 1).expect("date"),
    );
    let rows = world
        .dataset("Major_Crime_Indicators_Open_Data")
        .expect("dataset")
        .current_rows();
    let a = &rows[0]["attributes"];
    assert_eq!(
        a["OCC_DATE"],
        json!(ms("2014-03-02T05:00:00Z")),
        "midnight Toronto time (EST)"
    );
    assert_eq!(
        rows[1]["attributes"]["OCC_DATE"],
        json!(ms("2014-07-01T04:00:00Z")),
        "midnight EDT"
    );
    assert_eq!(a["OCC_HOUR"], json!("8"));
    assert_eq!(a["MCI_CATEGORY"], json!("Assault"));
    assert_eq!(a["PREMISES_TYPE"], json!("House"));
    assert_eq!(a["NEIGHBOURHOOD_140"], json!("West Humber-Clairville"));
    assert_eq!(a["LAT_WGS84"], json!(43.734_012_77));
    assert_eq!(
        rows[0]["geometry"],
        json!({"x": -79.590_331_64, "y": 43.734_012_77})
    );
    assert_eq!(
        a["REPORT_DATE"], a["OCC_DATE"],
        "without lateness the report day is the occurrence day"
    );
    let ids: HashSet<&str> = rows
        .iter()
        .filter_map(|r| r["attributes"]["EVENT_UNIQUE_ID"].as_str())
        .collect();
    assert_eq!(ids.len(), 4);
    assert!(ids.contains("GO-20140000001"), "{ids:?}");
    assert_eq!(
        rows[3]["attributes"]["MCI_CATEGORY"],
        json!("Break and Enter"),
        "test file follows train"
    );
}

#[test]
fn houston_and_san_francisco_rows_follow_the_real_services() {
    let dir = fixture();
    let feed = CityFeed::load(City::Houston, dir.path()).expect("loads");
    let world = World::start_at(
        Script::without_lateness(feed, 1),
        NaiveDate::from_ymd_opt(2010, 3, 1).expect("date"),
    );
    let rows = world
        .dataset("NIBRS_Recent_Crime_Reports")
        .expect("dataset")
        .current_rows();
    assert_eq!(rows.len(), 3);
    let a = &rows[0]["attributes"];
    assert_eq!(
        a["USER_RMSOccurrenceDate"],
        json!(ms("2010-01-01T00:00:00Z")),
        "00:00 UTC of the local date"
    );
    assert_eq!(a["USER_RMSOccurrenceHour"], json!("00"));
    assert_eq!(a["USER_NIBRSClass"], json!("murder"));
    assert_eq!(a["USER_Premise"], json!("18A"));
    assert_eq!(a["USER_Beat"], json!("15E30"));
    assert!(a.get("REPORT_DATE").is_none());
    let b = &rows[1]["attributes"];
    assert_eq!(
        b["USER_RMSOccurrenceDate"],
        json!(ms("2010-01-01T00:00:00Z")),
        "21:00 local is still Jan 1"
    );
    assert_eq!(b["USER_RMSOccurrenceHour"], json!("21"));
    assert!(
        rows[2].get("geometry").is_none(),
        "no coordinates, no geometry"
    );

    let feed = CityFeed::load(City::SanFrancisco, dir.path()).expect("loads");
    let world = World::start_at(
        Script::new(feed, 9),
        NaiveDate::from_ymd_opt(2013, 1, 1).expect("date"),
    );
    let rows = world.dataset("wg3w-h783").expect("dataset").current_rows();
    let row = rows
        .iter()
        .find(|r| r["row_id"] == json!("12062111400001"))
        .expect("row");
    assert_eq!(row["incident_datetime"], json!("2012-07-21T00:01:00.000"));
    assert_eq!(row["incident_category"], json!("ASSAULT"));
    assert_eq!(row["incident_description"], json!("STALKING"));
    assert_eq!(row["police_district"], json!("PARK"));
    assert_eq!(row["latitude"], json!("37.7775861616294"));
    assert_eq!(row["longitude"], json!("-122.440030415903"));
    let report = row["report_datetime"].as_str().expect("report");
    assert!(
        report >= "2012-07-21T00:01:00.000" && report.len() == 23,
        "{report}"
    );
    assert!(rows.iter().any(|r| r["row_id"] == json!("12062111400002")));
}

/// The shared data folder, when this checkout sits beside one.
fn shared_data() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/data");
    dir.join("README.md").exists().then_some(dir)
}

fn cut(from: &Path, to: &Path, lines: usize) {
    let gzipped = from.extension().is_some_and(|e| e == "gz");
    let file = std::fs::File::open(from).expect("open");
    let reader: Box<dyn std::io::Read> = if gzipped {
        Box::new(flate2::read::GzDecoder::new(file))
    } else {
        Box::new(file)
    };
    let text: Vec<String> = BufReader::new(reader)
        .lines()
        .take(lines + 1)
        .map(|l| l.expect("line"))
        .collect();
    let text = text.join("\n") + "\n";
    if gzipped {
        gz(to, &text);
    } else {
        std::fs::write(to, text).expect("write");
    }
}

#[test]
fn first_rows_of_the_real_files_load_whole() {
    let Some(data) = shared_data() else {
        eprintln!("shared data folder not found: skipped");
        return;
    };
    let dir = tempfile::tempdir().expect("temp dir");
    for file in [
        "toronto/mci_train.csv.gz",
        "toronto/mci_test.csv.gz",
        "san_francisco/incidents_2012_sample.csv",
        "houston/crime_2010.csv.gz",
    ] {
        std::fs::create_dir_all(dir.path().join(file).parent().expect("parent")).expect("mkdir");
        cut(&data.join(file), &dir.path().join(file), 200);
    }
    for (city, expect) in [
        (City::Toronto, 400),
        (City::SanFrancisco, 200),
        (City::Houston, 200),
    ] {
        let feed = CityFeed::load(city, dir.path()).expect("loads");
        assert_eq!(
            (feed.incidents.len(), feed.skipped),
            (expect, 0),
            "{city:?}"
        );
        let world = World::start_at(
            Script::new(feed, 1),
            NaiveDate::from_ymd_opt(2030, 1, 1).expect("date"),
        );
        let rows: Vec<Value> = world.datasets()[0].current_rows();
        assert_eq!(rows.len(), expect);
    }
}
