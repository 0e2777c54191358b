//! `update` end to end on Houston, fed from the local open-data server with all of
//! its real 2010 incidents: the first update builds and publishes a version with the
//! city's freshness; one with nothing new rebuilds nothing; a week's publication
//! gives a new version byte-identical to a clean build from the same store; a
//! failing feed keeps that version and puts the failure, with since when, in the
//! manifest.

#![allow(clippy::disallowed_methods)]

use crate::support::open_data;

use std::path::Path;

use chrono::NaiveDate;
use hexrisk_builder::commands::build::{BuildPaths, build};
use hexrisk_builder::feeds::sync::SyncOptions;
use hexrisk_builder::inputs::data;
use hexrisk_builder::outputs::artifacts;
use hexrisk_builder::refit::Paths;
use hexrisk_builder::sync_refit::{CityUpdate, update_city};
use hexrisk_engine::artifact::Manifest;
use open_data::Service;
use opendata_sim::{City, Fault};

fn update(service: &Service, state: &Path) -> CityUpdate {
    update_in(service, state, "city_us_hou", "crime")
}

fn update_in(service: &Service, state: &Path, code: &str, source: &str) -> CityUpdate {
    let mut city = open_data::city(code);
    city.sources.get_mut(source).unwrap().feed = Some(service.feed.clone());
    update_of(&city, service, state)
}

/// `update` of `city` at the service's clock, its state under `state`.
fn update_of(
    city: &hexrisk_builder::inputs::config::CityConfig,
    service: &Service,
    state: &Path,
) -> CityUpdate {
    // The clock is read before the update: the server locks the world to answer.
    let now = service.world.lock().unwrap().clock();
    update_city(
        city,
        Paths {
            data_dir: &data::workspace_data_dir(),
            intake_dir: &state.join("intake"),
            out: &state.join("artifacts"),
            store_dir: Some(&state.join("store")),
        },
        &Service::client(),
        now,
        SyncOptions::default(),
    )
    .unwrap()
}

fn manifest(state: &Path) -> Manifest {
    artifacts::current_manifest(&state.join("artifacts")).unwrap()
}

#[test]
fn houston_updates_weekly_rebuilds_only_on_change_and_reports_a_failing_feed() {
    let service = Service::start_full(
        "city_us_hou",
        "crime",
        City::Houston,
        NaiveDate::from_ymd_opt(2010, 6, 7).unwrap(),
        true,
    );
    let state = tempfile::tempdir().unwrap();

    let first = update(&service, state.path());
    assert!(first.syncs[0].1.is_ok(), "{:?}", first.syncs);
    let published = first.refreshed.as_ref().unwrap().current.clone().unwrap();
    let entry = manifest(state.path()).city("city_us_hou").cloned().unwrap();
    assert_eq!(entry.version, published.version);
    let freshness = entry.freshness.unwrap();
    assert!(freshness.failing.is_empty());
    assert_eq!(freshness.stale_after_days, 22, "lag 1 + 21");
    assert!(freshness.last_sync.unwrap().starts_with("2010-06-0"));
    // The data runs to the Sunday before the simulated clock at most.
    assert!(entry.data_through <= NaiveDate::from_ymd_opt(2010, 6, 6).unwrap());

    // Nothing new: no rebuild; the freshness record moves with the sync time.
    let again = update(&service, state.path());
    let refreshed = again.refreshed.as_ref().unwrap();
    assert!(refreshed.build.is_none(), "rebuilt with nothing new");
    assert_eq!(
        manifest(state.path()).city("city_us_hou").unwrap().version,
        published.version
    );

    // A week's publication: a new version, byte-identical to a clean build.
    service.advance();
    let weekly = update(&service, state.path());
    let current = weekly.refreshed.as_ref().unwrap().current.clone().unwrap();
    assert_ne!(current.version, published.version);
    assert!(current.data_through > published.data_through);
    let clean = tempfile::tempdir().unwrap();
    build(
        &data::workspace_data_dir(),
        &BuildPaths {
            config_dir: &write_config(&service, clean.path()),
            out: &clean.path().join("artifacts"),
            backtest_dir: &clean.path().join("backtest"),
            card: Path::new(""),
            intake: &clean.path().join("intake"),
            store: &state.path().join("store"),
        },
        &[],
    )
    .unwrap();
    let clean_entry = manifest(clean.path()).city("city_us_hou").cloned().unwrap();
    assert_eq!(clean_entry.version, current.version);
    assert_eq!(
        std::fs::read(clean.path().join("artifacts").join(&clean_entry.file)).unwrap(),
        std::fs::read(state.path().join("artifacts").join(&current.file)).unwrap()
    );

    // The layer turns private: the version stays, health learns why and since when.
    service.advance();
    service.inject(Fault::Private);
    let failed = update(&service, state.path());
    assert!(failed.syncs[0].1.is_err());
    assert!(failed.refreshed.as_ref().unwrap().build.is_none());
    let entry = manifest(state.path()).city("city_us_hou").cloned().unwrap();
    assert_eq!(entry.version, current.version);
    let failing = &entry.freshness.unwrap().failing;
    assert_eq!(failing.len(), 1);
    assert_eq!(failing[0].source, "crime");
    assert!(
        failing[0].error.contains("not public any more"),
        "{failing:?}"
    );
    assert!(failing[0].since.starts_with("2010-06-2"), "{failing:?}");
}

/// A configuration folder holding Houston's committed config with the feed's
/// URL pointed at the simulated service.
fn write_config(service: &Service, dir: &Path) -> std::path::PathBuf {
    let committed = hexrisk_builder::inputs::config::default_config_dir().join("city_us_hou.toml");
    let text = std::fs::read_to_string(committed).unwrap();
    let folder = dir.join("config");
    std::fs::create_dir_all(&folder).unwrap();
    let text = text
        .replace(
            "https://mycity2.houstontx.gov/pubgis02/rest/services/HPD/NIBRS_Recent_Crime_Reports/MapServer/0",
            &service.feed.url,
        )
        // The server publishes the 2010 file's words, which the source's own
        // classes map.
        .replace("vocabulary = \"nibrs\"\n", "");
    std::fs::write(folder.join("city_us_hou.toml"), text).unwrap();
    folder
}

/// Houston's committed feed, with its NIBRS vocabulary, against a server that
/// publishes the 2010 file's words: what NIBRS names by its offence names maps
/// ("robbery", "rape", "aggravated assault"), the rest is unmapped, counted per
/// value by the build and listed in the manifest's freshness for health, with
/// the rows the store holds of each.
#[test]
fn values_a_vocabulary_does_not_name_are_counted_per_value_never_dropped() {
    let service = Service::start_full(
        "city_us_hou",
        "crime",
        City::Houston,
        NaiveDate::from_ymd_opt(2010, 4, 5).unwrap(),
        true,
    );
    let state = tempfile::tempdir().unwrap();
    let mut city = open_data::city("city_us_hou");
    city.sources.get_mut("crime").unwrap().feed = Some(service.committed_feed("city_us_hou"));
    let done = update_of(&city, &service, state.path());
    assert!(done.syncs[0].1.is_ok(), "{:?}", done.syncs);
    let build = done.refreshed.unwrap().build.unwrap();
    let report = &build.sources["crime"];
    let mut served: std::collections::BTreeMap<String, u64> = std::collections::BTreeMap::new();
    for record in service.served() {
        *served.entry(record.offence).or_default() += 1;
    }
    let expected: std::collections::BTreeMap<String, u64> = served
        .iter()
        .filter(|(value, _)| !["robbery", "rape", "aggravated assault"].contains(&value.as_str()))
        .map(|(value, rows)| (value.clone(), *rows))
        .collect();
    assert!(expected.contains_key("theft"), "{served:?}");
    assert_eq!(report.unmapped, expected);
    assert!(report.accepted_total() > 0);
    let listed = manifest(state.path())
        .city("city_us_hou")
        .unwrap()
        .freshness
        .clone()
        .unwrap()
        .unmapped;
    let in_health: std::collections::BTreeMap<String, u64> = listed
        .iter()
        .map(|u| {
            assert_eq!(u.source, "crime");
            (u.value.clone(), u.rows)
        })
        .collect();
    assert_eq!(in_health, expected);
    assert!(
        listed.windows(2).all(|w| w[0].rows >= w[1].rows),
        "most rows first"
    );
}

/// The TOML of `docs/ADD_A_CITY.md`'s city from its feed alone.
fn feed_alone_toml() -> String {
    let doc = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/ADD_A_CITY.md"),
    )
    .unwrap();
    let section = doc.split("## A city from its feed alone").nth(1).unwrap();
    let block = section.split("```toml\n").nth(1).unwrap();
    block.split("```").next().unwrap().to_owned()
}

/// The worked example of a city with no incident files, built by `update` from
/// its feed alone: the page's TOML as it stands, pointed at the simulator with the
/// substitutions the page names.
#[test]
fn a_city_from_its_feed_alone_builds_from_the_page_s_configuration() {
    let service = Service::start_full(
        "city_us_hou",
        "crime",
        City::Houston,
        NaiveDate::from_ymd_opt(2010, 4, 5).unwrap(),
        true,
    );
    let text = feed_alone_toml();
    let url = "https://mycity2.houstontx.gov/pubgis02/rest/services/HPD/NIBRS_Recent_Crime_Reports/MapServer/0";
    assert!(text.contains(url) && !text.contains("files ="), "{text}");
    let text = text
        .replace(url, &service.feed.url)
        .replace(
            "span = { start = \"2026-03-30\", end = \"2026-03-30\" }",
            "span = { start = \"2010-01-01\", end = \"2010-01-01\" }",
        )
        .replace("event = \"USER_Incident\"\n", "")
        + "[sources.crime.feed.classes]\n\"theft\" = \"THEFT_BURGLARY\"\n\"burglary\" = \"THEFT_BURGLARY\"\n\"auto theft\" = \"VEHICLE_DAMAGE\"\n\"murder\" = \"SERIOUS_VIOLENT\"\n";
    let state = tempfile::tempdir().unwrap();
    let config = state.path().join("config");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(config.join("city_us_hou.toml"), &text).unwrap();
    let city = hexrisk_builder::inputs::config::load(&config.join("city_us_hou.toml")).unwrap();
    assert!(city.sources["crime"].files.is_empty());
    let done = update_of(&city, &service, state.path());
    assert!(done.syncs[0].1.is_ok(), "{:?}", done.syncs);
    let build = done.refreshed.unwrap().build.unwrap();
    let report = &build.sources["crime"];
    assert!(report.unmapped.is_empty(), "{:?}", report.unmapped);
    assert_eq!(report.rows, service.served().len() as u64);
    let entry = manifest(state.path()).city("city_us_hou").cloned().unwrap();
    assert!(entry.data_through >= NaiveDate::from_ymd_opt(2010, 3, 28).unwrap());
    assert!(entry.freshness.unwrap().unmapped.is_empty());
}

/// San Francisco's 2012 sample, published with the script's report times, built
/// once the year is out: the backtest as known then.
fn san_francisco_built(late: bool) -> hexrisk_builder::fit::city_build::CityBuild {
    let service = Service::start_full(
        "city_us_sfo",
        "incidents",
        City::SanFrancisco,
        NaiveDate::from_ymd_opt(2013, 3, 4).unwrap(),
        late,
    );
    let state = tempfile::tempdir().unwrap();
    let done = update_in(&service, state.path(), "city_us_sfo", "incidents");
    assert!(done.syncs[0].1.is_ok(), "{:?}", done.syncs);
    done.refreshed.unwrap().build.unwrap()
}

#[test]
fn the_backtest_as_known_then_leaves_out_late_reports_and_equals_the_complete_one_without_them() {
    let on_time = san_francisco_built(false);
    let complete = on_time.backtest.metrics["model"];
    assert_eq!(
        on_time.backtest.known_then,
        Some(complete),
        "nothing late, nothing differs"
    );
    assert!(
        on_time.sources["incidents"]
            .report_lags
            .iter()
            .all(|&d| d == 0)
    );

    let late = san_francisco_built(true);
    let known = late.backtest.known_then.unwrap();
    assert_ne!(known, late.backtest.metrics["model"]);
    let lags = &late.sources["incidents"].report_lags;
    assert!(
        lags.iter().any(|&d| d >= 8),
        "the script reports some a week or more late"
    );
}
