//! A new city from configuration alone (`docs/ADD_A_CITY.md`): the Toronto MCI
//! incidents inside the University of Toronto St George campus, converted to the
//! generic CSV, with a boundary GeoJSON, a city TOML and the campus OpenStreetMap XML
//! for roads, built by the `hexrisk-build` binary as an operator would run it, then
//! loaded from the manifest it wrote and asked for a prediction and a route through
//! `hexrisk_engine::operations`, the operations the Worker and the npm package call.
//!
//! The campus area is the OSM file's `<bounds>` element (the box the extract was cut
//! to, Bloor to College, Spadina to Queen's Park), not its node extent, which reaches
//! several kilometres out along the ways that leave the box.
//!
//! Everything is written to a temporary folder, or to `HEXRISK_NEW_CITY_DIR` when set
//! (kept, for the Node tests of the package and the Worker to reuse: the artifacts
//! are in `$HEXRISK_NEW_CITY_DIR/artifacts`).

// Fixtures are written straight into temporary folders.
#![allow(clippy::disallowed_methods)]

use std::fmt::Write as _;
use std::fs::File;
use std::io::{BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::Command;

use chrono::{DateTime, Days, FixedOffset, NaiveDate, TimeZone, Timelike};
use chrono_tz::Tz;
use hexrisk_builder::inputs::cleaning::Weeks;
use hexrisk_builder::inputs::config::{BoundingBox, CityConfig, RoadFormat, RoadsConfig};
use hexrisk_builder::inputs::data;
use hexrisk_builder::inputs::generic_csv;
use hexrisk_builder::pipeline;
use hexrisk_builder::references::samples;
use hexrisk_engine::artifact::Manifest;
use hexrisk_engine::city::{Atlas, CityModel};
use hexrisk_engine::routing::MAX_SNAP_DISTANCE_M;
use indicatif::ProgressBar;
use serde_json::{Map, Value, json};

const CODE: &str = "city_ca_uoft";
const TIMEZONE: Tz = chrono_tz::America::Toronto;
const SPAN: (&str, &str) = ("2014-01-01", "2021-12-31");
const ROADS_SOURCE: &str = "OpenStreetMap contributors (ODbL), UofT campus extract";

fn osm_file() -> PathBuf {
    data::workspace_data_dir().join("toronto/uoft_campus.osm")
}

/// The `<bounds minlat=… minlon=… maxlat=… maxlon=…/>` element of an OSM XML file.
fn osm_bounds(path: &Path) -> BoundingBox {
    let mut head = String::new();
    File::open(path)
        .unwrap()
        .take(4096)
        .read_to_string(&mut head)
        .unwrap();
    let element = &head[head.find("<bounds").expect("an OSM <bounds> element")..];
    let element = &element[..element.find("/>").unwrap()];
    let attribute = |name: &str| -> f64 {
        let start = element.find(&format!("{name}=\"")).unwrap() + name.len() + 2;
        let end = start + element[start..].find('"').unwrap();
        element[start..end].parse().unwrap()
    };
    BoundingBox {
        south: attribute("minlat"),
        north: attribute("maxlat"),
        west: attribute("minlon"),
        east: attribute("maxlon"),
    }
}

/// The instant of a local wall-clock hour in Toronto, with its offset. The hour
/// that the spring change skips is read as the hour after it; the repeated autumn
/// hour as its first occurrence.
fn local_instant(date: NaiveDate, hour: u32) -> Option<DateTime<FixedOffset>> {
    let local = date.and_hms_opt(hour, 0, 0)?;
    let at = TIMEZONE
        .from_local_datetime(&local)
        .earliest()
        .or_else(|| {
            TIMEZONE
                .from_local_datetime(&(local + chrono::Duration::hours(1)))
                .earliest()
        })?;
    Some(at.fixed_offset())
}

/// One MCI row inside the campus, as the test knows it independently of the build.
struct CampusRow {
    date: Option<NaiveDate>,
    lat: f64,
    lng: f64,
}

/// Converts the MCI rows inside `area` of one file to the generic CSV at `out`
/// (gzipped when its name ends in `.gz`); returns them.
fn convert(mci: &Path, area: &BoundingBox, out: &Path) -> Vec<CampusRow> {
    let mut reader = csv::Reader::from_reader(flate2::read::GzDecoder::new(BufReader::new(
        File::open(mci).unwrap(),
    )));
    let headers = reader.headers().unwrap().clone();
    let column = |name: &str| headers.iter().position(|h| h == name).unwrap();
    let (date, hour, offence, premises, hood, lat, lng) = (
        column("occurrencedate"),
        column("occurrencehour"),
        column("MCI"),
        column("premises_type"),
        column("Neighbourhood"),
        column("Lat"),
        column("Long"),
    );
    let sink: Box<dyn Write> = if out.extension().is_some_and(|e| e == "gz") {
        Box::new(flate2::write::GzEncoder::new(
            File::create(out).unwrap(),
            flate2::Compression::fast(),
        ))
    } else {
        Box::new(File::create(out).unwrap())
    };
    let mut writer = csv::Writer::from_writer(sink);
    // Columns in an order of their own, with one the format does not know.
    writer
        .write_record([
            "id",
            "offence",
            "occurred_at",
            "latitude",
            "longitude",
            "description",
            "neighbourhood",
        ])
        .unwrap();
    let stem = out.file_name().unwrap().to_string_lossy().into_owned();
    let mut rows = Vec::new();
    for (number, record) in reader.records().enumerate() {
        let record = record.unwrap();
        let (Ok(y), Ok(x)) = (record[lat].parse::<f64>(), record[lng].parse::<f64>()) else {
            continue;
        };
        if !area.contains(y, x) {
            continue;
        }
        // `2014/03/02 05:00:00+00`: the date part is the Toronto date, the time part
        // means nothing; `occurrencehour` is the local hour.
        let local_date = record[date]
            .get(..10)
            .and_then(|d| NaiveDate::parse_from_str(d, "%Y/%m/%d").ok());
        let instant = local_date
            .zip(record[hour].trim().parse::<u32>().ok())
            .and_then(|(d, h)| local_instant(d, h));
        // A row whose time cannot be written goes out blank: the build rejects it as
        // a bad date, which is what the format promises.
        let occurred_at = instant.map(|t| t.to_rfc3339()).unwrap_or_default();
        writer
            .write_record([
                format!("{stem}-{number}").as_str(),
                &record[offence],
                &occurred_at,
                &record[lat],
                &record[lng],
                &record[premises],
                &record[hood],
            ])
            .unwrap();
        if let (Some(d), Some(t)) = (local_date, instant) {
            // The written instant reads back as the same local date and hour.
            assert_eq!(generic_csv::local_date(&occurred_at, TIMEZONE), Some(d));
            let hour: u32 = record[hour].trim().parse().unwrap();
            let back = t.with_timezone(&TIMEZONE);
            assert!(
                back.hour() == hour || back.hour() == hour + 1,
                "{occurred_at}"
            );
        }
        rows.push(CampusRow {
            date: instant.and(local_date),
            lat: y,
            lng: x,
        });
    }
    writer.flush().unwrap();
    drop(writer.into_inner().map_err(|e| e.to_string()).unwrap());
    rows
}

/// The campus box as one precinct polygon.
fn boundary_geojson(area: &BoundingBox) -> Value {
    let ring = [
        [area.west, area.south],
        [area.east, area.south],
        [area.east, area.north],
        [area.west, area.north],
        [area.west, area.south],
    ];
    json!({
        "type": "FeatureCollection",
        "features": [{
            "type": "Feature",
            "properties": {"campus": "UTSG", "campus_name": "St George campus"},
            "geometry": {"type": "Polygon", "coordinates": [ring]},
        }],
    })
}

/// The city TOML: data paths relative to the data directory, except the roads,
/// which point at the shared data by absolute path.
fn city_toml(roads: &Path) -> String {
    let roads = toml::Value::String(roads.to_string_lossy().into_owned());
    format!(
        r#"# The University of Toronto St George campus: Toronto Police MCI incidents in
# the generic CSV, written by builder/tests/all/new_city.rs.
code = "{CODE}"
name = "UofT St George"
country = "Canada"
timezone = "America/Toronto"
span = {{ start = "{}", end = "{}" }}
backtest_weeks = 52
horizon_weeks = 12
sample_note = "Toronto MCI incidents inside the University of Toronto St George campus only."

[boundary]
file = "campus/boundary.geojson"
precinct_id = "campus"
precinct_name = "campus_name"

[sources.mci]
format = "generic"
files = ["campus/incidents_train.csv.gz", "campus/incidents_test.csv"]
field = "offence"
[sources.mci.classes]
"Assault" = "BATTERY_ASSAULT"
"Break and Enter" = "THEFT_BURGLARY"
"Auto Theft" = "VEHICLE_DAMAGE"
"Robbery" = "SERIOUS_VIOLENT"
"Theft Over" = "THEFT_BURGLARY"

[roads]
format = "osm_xml"
file = {roads}
source = "{ROADS_SOURCE}"
"#,
        SPAN.0, SPAN.1
    )
}

/// What the test writes in the city's folder.
const WRITTEN: [&str; 6] = [
    "data",
    "config",
    "artifacts",
    "artifacts-again",
    "backtest",
    "MODEL.md",
];

/// The folder the city is written to: `HEXRISK_NEW_CITY_DIR` (what an earlier run
/// wrote there removed first, nothing else), or a temporary one removed when the
/// guard drops.
fn city_dir() -> (PathBuf, Option<tempfile::TempDir>) {
    if let Some(dir) = std::env::var_os("HEXRISK_NEW_CITY_DIR") {
        let dir = PathBuf::from(dir);
        for name in WRITTEN {
            let path = dir.join(name);
            if path.is_dir() {
                std::fs::remove_dir_all(&path).unwrap();
            } else if path.exists() {
                std::fs::remove_file(&path).unwrap();
            }
        }
        std::fs::create_dir_all(&dir).unwrap();
        (dir, None)
    } else {
        let temp = tempfile::tempdir().unwrap();
        (temp.path().to_owned(), Some(temp))
    }
}

fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("not an object: {other}"),
    }
}

fn number(value: &Value) -> f64 {
    value
        .as_f64()
        .unwrap_or_else(|| panic!("not a number: {value}"))
}

fn distance_m(a: (f64, f64), b: (f64, f64)) -> f64 {
    let point = |(lat, lng): (f64, f64)| h3o::LatLng::new(lat, lng).unwrap();
    hexrisk_engine::grid::distance_m(point(a), point(b))
}

/// The city's folder layout: data files under `data/` (the `--data-dir`), its TOML
/// under `config/`, the build's outputs beside them.
struct CityFiles {
    dir: PathBuf,
    area: BoundingBox,
}

impl CityFiles {
    fn data(&self) -> PathBuf {
        self.dir.join("data")
    }

    fn config(&self) -> PathBuf {
        self.dir.join("config")
    }

    fn artifacts(&self) -> PathBuf {
        self.dir.join("artifacts")
    }

    /// Writes the incidents in the generic CSV (one file gzipped, one plain), the
    /// boundary and the TOML; the roads stay in the shared data. Returns the rows.
    fn write(&self) -> Vec<CampusRow> {
        std::fs::create_dir_all(self.data().join("campus")).unwrap();
        std::fs::create_dir_all(self.config()).unwrap();
        let mci = data::workspace_data_dir().join("toronto");
        let mut rows = convert(
            &mci.join("mci_train.csv.gz"),
            &self.area,
            &self.data().join("campus/incidents_train.csv.gz"),
        );
        rows.extend(convert(
            &mci.join("mci_test.csv.gz"),
            &self.area,
            &self.data().join("campus/incidents_test.csv"),
        ));
        std::fs::write(
            self.data().join("campus/boundary.geojson"),
            boundary_geojson(&self.area).to_string(),
        )
        .unwrap();
        std::fs::write(
            self.config().join(format!("{CODE}.toml")),
            city_toml(&osm_file()),
        )
        .unwrap();
        rows
    }

    /// Runs `hexrisk-build build` on the folder, exactly as `docs/ADD_A_CITY.md` says,
    /// into `out` with the model card at `card` (none when empty); returns its log.
    fn build(&self, out: &Path, card: &str) -> String {
        let output = Command::new(env!("CARGO_BIN_EXE_hexrisk-build"))
            .arg("--data-dir")
            .arg(self.data())
            .arg("build")
            .arg("--config-dir")
            .arg(self.config())
            .arg("--out")
            .arg(out)
            .arg("--backtest-dir")
            .arg(self.dir.join("backtest"))
            .args(["--model-card", card])
            .args(["--city", CODE])
            .output()
            .unwrap();
        let log = String::from_utf8_lossy(&output.stdout).into_owned();
        assert!(
            output.status.success(),
            "build failed:\n{log}\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
        log
    }

    /// The middle of the campus.
    fn centre(&self) -> (f64, f64) {
        (
            f64::midpoint(self.area.south, self.area.north),
            f64::midpoint(self.area.west, self.area.east),
        )
    }
}

/// The manifest names the one city, its artifact loads, and the model card accounts
/// for every campus row: kept are exactly the rows with a date in the span's weeks
/// and a cell in the grid, as the test works them out itself.
fn check_build(files: &CityFiles, rows: &[CampusRow]) -> Atlas {
    let manifest: Manifest = serde_json::from_slice(
        &std::fs::read(files.artifacts().join(Manifest::FILE_NAME)).unwrap(),
    )
    .unwrap();
    let codes: Vec<&str> = manifest.cities.iter().map(|c| c.code.as_str()).collect();
    assert_eq!(codes, [CODE]);
    let atlas = samples::load_atlas(&files.artifacts()).unwrap();
    let artifact = atlas.cities()[0].artifact();
    assert_eq!(artifact.city.code, CODE);
    assert_eq!(artifact.precincts.len(), 1);
    assert_eq!(artifact.precincts[0].name, "St George campus");
    assert!(artifact.precinct_of.iter().all(|&p| p == 0));
    let graph = artifact.road_graph.as_ref().unwrap();
    assert!(graph.edge_count() > 0);
    assert_eq!(graph.source, ROADS_SOURCE);
    let weeks = Weeks::within(SPAN.0.parse().unwrap(), SPAN.1.parse().unwrap());
    let kept = rows
        .iter()
        .filter(|r| r.date.and_then(|d| weeks.index_of(d)).is_some())
        .filter(|r| {
            let cell = hexrisk_engine::grid::cell_at(r.lat, r.lng).unwrap();
            artifact.cells.contains(&u64::from(cell))
        })
        .count();
    assert!(kept > 0);
    let card = std::fs::read_to_string(files.dir.join("MODEL.md")).unwrap();
    assert!(
        card.contains(&format!("### UofT St George (`{CODE}`)")),
        "{card}"
    );
    let accounting = format!("| mci | {} | {kept} |", rows.len());
    assert!(card.contains(&accounting), "{accounting} not in\n{card}");
    atlas
}

/// `api::predict` for the middle of the campus at `now`: the city, the week of
/// `monday`, a covered cell, six probabilities summing to 1.
fn check_prediction(atlas: &Atlas, point: (f64, f64), now: i64, monday: NaiveDate) {
    let answer = serde_json::to_value(
        hexrisk_engine::operations::predict(
            atlas,
            &object(json!({"latitude": point.0, "longitude": point.1})),
            now,
        )
        .unwrap(),
    )
    .unwrap();
    assert_eq!(answer["city"]["code"], CODE);
    assert_eq!(answer["prediction"]["week_of"], monday.to_string());
    let cell: h3o::CellIndex = answer["location"]["cell_id"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(atlas.cities()[0].position(cell).is_some());
    let probabilities = answer["prediction"]["probabilities"].as_object().unwrap();
    assert_eq!(probabilities.len(), 6);
    assert!(
        probabilities
            .values()
            .all(|p| (0.0..=1.0).contains(&number(p)))
    );
    let total: f64 = probabilities.values().map(number).sum();
    assert!((total - 1.0).abs() < 1e-9, "probabilities sum to {total}");
    let dominant = answer["prediction"]["dominant_type"].as_str().unwrap();
    assert_eq!(answer["prediction"]["confidence"], probabilities[dominant]);
}

/// `api::route` for a walk from `origin` to `destination` at `now`: on the city's
/// OSM roads, starting near the origin and ending near the destination, at least as
/// long as the straight line between its ends. Returns its length.
fn check_route(atlas: &Atlas, origin: (f64, f64), destination: (f64, f64), now: i64) -> f64 {
    let answer = hexrisk_engine::operations::route(
        atlas,
        &object(json!({
            "origin": {"lat": origin.0, "lng": origin.1},
            "destination": {"lat": destination.0, "lng": destination.1},
            "intent": "walking",
            "alternatives": 1,
        })),
        now,
    )
    .map(|answer| serde_json::to_value(answer).unwrap())
    .unwrap();
    assert_eq!(answer["city"], CODE);
    assert_eq!(answer["network"], "roads");
    assert_eq!(answer["source"], ROADS_SOURCE);
    let best = &answer["best"];
    let line = best["geometry"]["coordinates"].as_array().unwrap();
    let end = |p: &Value| (number(&p[1]), number(&p[0]));
    let (first, last) = (end(&line[0]), end(line.last().unwrap()));
    assert!(distance_m(first, origin) < MAX_SNAP_DISTANCE_M, "{first:?}");
    assert!(distance_m(first, origin) < distance_m(first, destination));
    assert!(
        distance_m(last, destination) < MAX_SNAP_DISTANCE_M,
        "{last:?}"
    );
    assert!(distance_m(last, destination) < distance_m(last, origin));
    let length = number(&best["metrics"]["distanceM"]);
    assert!(
        length > 0.0 && length >= distance_m(first, last) - 1.0,
        "a {length} m route between points {} m apart",
        distance_m(first, last)
    );
    assert!(!best["hexPath"].as_array().unwrap().is_empty());
    length
}

/// Place search in the campus city: its OpenStreetMap streets by their own names, and
/// its named points of interest (a library, a station) near where the file puts them.
fn check_places(atlas: &Atlas) {
    let answer = |q: &str| {
        let params = object(json!({"q": q, "city": CODE, "limit": 3}));
        hexrisk_engine::operations::search_places(atlas, &params)
            .unwrap()
            .places
    };
    let corner = &answer("Saint George Street & Harbord Street")[0];
    assert_eq!(corner.kind, "intersection");
    assert_eq!(corner.name, "St George Street & Harbord Street");
    let osm = hexrisk_builder::roads::osm::read_xml(&osm_file()).unwrap();
    for name in ["Robarts Library", "Hart House"] {
        let found = &answer(name)[0];
        assert_eq!(
            (found.kind, found.name.as_str(), found.matched),
            ("pointOfInterest", name, "exact")
        );
        let point = osm
            .points_of_interest()
            .into_iter()
            .find(|p| p.name == name)
            .unwrap();
        assert!(
            distance_m((found.lat, found.lng), point.position) < 1.0,
            "{name}"
        );
    }
}

#[test]
fn a_city_made_of_configuration_and_data_files_builds_predicts_and_routes() {
    let started = std::time::Instant::now();
    let (dir, _guard) = city_dir();
    let files = CityFiles {
        dir,
        area: osm_bounds(&osm_file()),
    };
    let rows = files.write();
    assert!(rows.len() > 100, "{} campus rows", rows.len());
    let card = files.dir.join("MODEL.md");
    let log = files.build(&files.artifacts(), card.to_str().unwrap());
    eprintln!("{log}built in {:.1?}", started.elapsed());
    let atlas = check_build(&files, &rows);
    // Built again without a model card (`--model-card ''`), into a fresh folder: the
    // same artifact and manifest, and no card written.
    std::fs::remove_file(&card).unwrap();
    let again = files.dir.join("artifacts-again");
    files.build(&again, "");
    assert!(!card.exists());
    let manifest = |dir: &Path| std::fs::read(dir.join(Manifest::FILE_NAME)).unwrap();
    assert_eq!(manifest(&again), manifest(&files.artifacts()));

    // The clock: a Wednesday in the first week beyond the data.
    let calendar = atlas.cities()[0].artifact().calendar;
    let monday = calendar.first_week + Days::new(7 * u64::from(calendar.observed_weeks));
    let now = (monday + Days::new(2))
        .and_hms_opt(17, 0, 0)
        .unwrap()
        .and_utc()
        .timestamp();
    let centre = files.centre();
    check_prediction(&atlas, centre, now, monday);
    check_places(&atlas);
    // A walk across the campus, 250 m either side of its middle.
    let offset = 250.0 / (111_320.0 * centre.0.to_radians().cos());
    let length = check_route(
        &atlas,
        (centre.0, centre.1 - offset),
        (centre.0, centre.1 + offset),
        now,
    );
    eprintln!(
        "{CODE}: {} cells, {} campus rows; route {length:.0} m; {:.1?} in all",
        atlas.cities()[0].cell_count(),
        rows.len(),
        started.elapsed()
    );
}

/// A one-source generic city over `area` in `dir`, without roads: five assaults a
/// day for `days` days from 2021-01-04, spread over the area; `settings` are its
/// backtest and horizon lines.
fn small_city(dir: &Path, area: &BoundingBox, days: u64, settings: &str) -> CityConfig {
    let mut csv = String::from("latitude,longitude,occurred_at,offence\n");
    let first = NaiveDate::from_ymd_opt(2021, 1, 4).unwrap();
    for day in 0..days {
        for k in 0..5_u32 {
            let (u, v) = (f64::from(k) / 5.0 + 0.1, f64::from((k * 3) % 5) / 5.0 + 0.1);
            let lat = area.south + u * (area.north - area.south);
            let lng = area.west + v * (area.east - area.west);
            let at = local_instant(first + Days::new(day), 12)
                .unwrap()
                .to_rfc3339();
            writeln!(csv, "{lat},{lng},{at},Assault").unwrap();
        }
    }
    std::fs::write(dir.join("incidents.csv"), csv).unwrap();
    std::fs::write(
        dir.join("boundary.geojson"),
        boundary_geojson(area).to_string(),
    )
    .unwrap();
    toml::from_str(&format!(
        r#"
        code = "city_xx_tst"
        name = "Test"
        country = "Nowhere"
        timezone = "America/Toronto"
        span = {{ start = "2021-01-01", end = "2021-12-31" }}
        {settings}
        [boundary]
        file = "boundary.geojson"
        precinct_id = "campus"
        [sources.incidents]
        format = "generic"
        files = ["incidents.csv"]
        field = "offence"
        [sources.incidents.classes]
        "Assault" = "BATTERY_ASSAULT"
        "#
    ))
    .unwrap()
}

/// Builds a small city through the library (the CLI's code path) and decodes its
/// artifact as the engine would. The error text when either fails, prefixed
/// `build: ` when the build refused (a refusal must come before anything is
/// written, not when a server loads the artifact).
fn build_small(dir: &Path, city: &CityConfig) -> Result<usize, String> {
    let build = pipeline::build_city(city, dir, &ProgressBar::hidden())
        .map_err(|e| format!("build: {e}"))?;
    let bytes = hexrisk_engine::artifact::encode(&build.artifact).map_err(|e| e.to_string())?;
    CityModel::from_bytes(&bytes).map_err(|e| format!("load: {e}"))?;
    Ok(build.cells)
}

/// The build's refusal of a city, with the reason it gave.
fn refusal(dir: &Path, city: &CityConfig) -> String {
    let err = build_small(dir, city).unwrap_err();
    assert!(err.starts_with("build: "), "{err}");
    err
}

#[test]
fn small_or_empty_cities_build_or_fail_with_a_reason() {
    let campus = osm_bounds(&osm_file());
    let dir = tempfile::tempdir().unwrap();
    let settings = "backtest_weeks = 8\nhorizon_weeks = 4";
    // A month of data in a one-cell city: the span's 52 weeks are modelled, mostly
    // empty, and the artifact loads.
    let city = small_city(dir.path(), &campus, 30, settings);
    assert_eq!(build_small(dir.path(), &city), Ok(1));
    // The same over the hex lattice, without roads, and with roads from the campus.
    let city = CityConfig {
        roads: Some(RoadsConfig {
            format: RoadFormat::OsmXml,
            file: osm_file(),
            source: ROADS_SOURCE.into(),
        }),
        ..city
    };
    assert_eq!(build_small(dir.path(), &city), Ok(1));

    // A boundary too small to hold a cell centre.
    let speck = BoundingBox {
        south: 43.6630,
        north: 43.6632,
        west: -79.3940,
        east: -79.3938,
    };
    let city = small_city(dir.path(), &speck, 30, settings);
    let err = refusal(dir.path(), &city);
    assert!(err.contains("no H3 resolution-8 cell centre"), "{err}");
    // No incident kept (none written): an error giving the rejections, not a city
    // forecasting no crime.
    let city = small_city(dir.path(), &campus, 0, settings);
    let err = refusal(dir.path(), &city);
    assert!(err.contains("no incident kept"), "{err}");
    // Neither a backtest nor a forecast week.
    for settings in [
        "backtest_weeks = 0\nhorizon_weeks = 4",
        "backtest_weeks = 8\nhorizon_weeks = 0",
    ] {
        let city = small_city(dir.path(), &campus, 30, settings);
        let err = refusal(dir.path(), &city);
        assert!(err.contains("must be at least 1"), "{settings}: {err}");
    }
    // The build's refusal of the small city with the OpenStreetMap roads `osm`.
    let refusal_with_roads = |name: &str, osm: &str| {
        let file = dir.path().join(name);
        std::fs::write(&file, osm).unwrap();
        let city = CityConfig {
            roads: Some(RoadsConfig {
                format: RoadFormat::OsmXml,
                file,
                source: name.into(),
            }),
            ..small_city(dir.path(), &campus, 30, settings)
        };
        refusal(dir.path(), &city)
    };
    // A road file of somewhere else: no road near enough is an error, not a city
    // whose routes all fail.
    let err = refusal_with_roads(
        "elsewhere.osm",
        r#"<osm><node id="1" lat="43.0" lon="-79.0"/><node id="2" lat="43.001" lon="-79.0"/>
<way id="3"><nd ref="1"/><nd ref="2"/><tag k="building" v="yes"/></way></osm>"#,
    );
    assert!(err.contains("no routable roads"), "{err}");
    // A street running from the campus to a degree north of it: the engine would
    // refuse the artifact, so the build does.
    let err = refusal_with_roads(
        "reaching.osm",
        r#"<osm><node id="1" lat="43.663" lon="-79.394"/><node id="2" lat="44.663" lon="-79.394"/>
<way id="3"><nd ref="1"/><nd ref="2"/><tag k="highway" v="residential"/></way></osm>"#,
    );
    assert!(err.contains("far outside the city"), "{err}");
}
