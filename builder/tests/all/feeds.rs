//! Feeds synced from the local open-data server (`opendata-sim`), which speaks the
//! Socrata and ArcGIS query protocols and replays cuts of the real shared-data
//! incidents on a simulated clock: after every sync the store equals what the
//! server serves, through weekly publications, late rows, revisions, deletions
//! and a wholesale replacement; every fault fails the sync naming the source and
//! loses nothing; a stopped pull resumes with nothing counted twice.

#![allow(clippy::disallowed_methods)]

use crate::support::open_data;

use chrono::NaiveDate;
use hexrisk_builder::feeds::sync::SyncOptions;
use hexrisk_builder::store::IncidentStore;
use hexrisk_builder::store::pulls::PullKind;
use hexrisk_builder::store::record::FeedRecord;
use open_data::Service;
use opendata_sim::{City, Fault};
use serde_json::Value;

fn stored(store: &IncidentStore, source: &str) -> Vec<FeedRecord> {
    store.live_records(source).unwrap()
}

fn date(y: i32, m: u32, d: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(y, m, d).unwrap()
}

#[test]
fn toronto_weekly_syncs_equal_the_layer_through_revisions_deletions_and_a_renumbering() {
    let service = Service::start(
        "city_ca_tor",
        "mci",
        City::Toronto,
        date(2021, 3, 1),
        Some(3),
    );
    let mut store = IncidentStore::in_memory().unwrap();
    let first = service.sync(&mut store, SyncOptions::default()).unwrap();
    assert_eq!(first.pull.kind, PullKind::Full);
    assert!(first.pull.counts.added > 500, "{:?}", first.pull.counts);
    assert_eq!(stored(&store, "mci"), service.served());
    let (mut revised, mut deleted, mut renumbered) = (0, 0, false);
    for _ in 0..5 {
        let week = service.advance();
        let synced = service.sync(&mut store, SyncOptions::default()).unwrap();
        assert_eq!(
            stored(&store, "mci"),
            service.served(),
            "after week {}",
            week.week
        );
        revised += synced.pull.counts.revised;
        deleted += synced.pull.counts.deleted;
        if week.wholesale {
            // New OBJECTIDs for every row: matched back by content, history kept.
            assert!(synced.pull.replacement, "{:?}", synced.pull);
            assert!(synced.pull.counts.rekeyed > 500, "{:?}", synced.pull.counts);
            renumbered = true;
        }
    }
    assert!(
        renumbered && revised > 0 && deleted > 0,
        "{revised} {deleted}"
    );
    // Nothing duplicated by the renumbering: one record a row ever served.
    let all = store.all_records("mci").unwrap();
    let live = all.iter().filter(|(_, gone)| !gone).count();
    assert_eq!(live, service.served().len());
}

#[test]
fn san_francisco_syncs_changed_since_and_equals_the_data_set() {
    let service = Service::start(
        "city_us_sfo",
        "incidents",
        City::SanFrancisco,
        date(2012, 6, 1),
        Some(2),
    );
    let mut store = IncidentStore::in_memory().unwrap();
    service.sync(&mut store, SyncOptions::default()).unwrap();
    assert_eq!(stored(&store, "incidents"), service.served());
    for _ in 0..4 {
        let week = service.advance();
        let synced = service.sync(&mut store, SyncOptions::default()).unwrap();
        assert_eq!(synced.pull.kind, PullKind::Changed);
        assert_eq!(
            stored(&store, "incidents"),
            service.served(),
            "week {}",
            week.week
        );
        if week.wholesale {
            assert!(synced.pull.replacement);
            assert!(
                synced.pull.counts.revised <= (week.revised + week.late_revised) as u64,
                "a replacement is not a revision: {:?} {week:?}",
                synced.pull.counts
            );
        }
    }
}

/// A long Socrata run with the orders real services produce: each week a batch of
/// revisions stamped up to 21 days in the past (below the last pull's mark), rows
/// re-stamped with no change, and `:created_at` apart from `:updated_at`. After
/// every sync the store holds every row the service serves, with its content and
/// its change mark; the lookback catches the batches within its window and the
/// reconciliation the older ones, and says how many it repaired.
#[test]
fn no_revision_is_lost_whatever_order_the_stamps_arrive_in() {
    for lookback_days in [7, 0] {
        let mut service = Service::start(
            "city_us_sfo",
            "incidents",
            City::SanFrancisco,
            date(2012, 3, 1),
            None,
        );
        service.feed.lookback_days = lookback_days;
        let mut store = IncidentStore::in_memory().unwrap();
        service.sync(&mut store, SyncOptions::default()).unwrap();
        let (mut late, mut repaired) = (0, 0);
        for _ in 0..12 {
            let week = service.advance();
            late += week.late_revised;
            let synced = service.sync(&mut store, SyncOptions::default()).unwrap();
            repaired += synced.pull.counts.reconciled;
            let context = format!("lookback {lookback_days}, week {}", week.week);
            let (held, served) = (stored(&store, "incidents"), service.served());
            let differing: Vec<&str> = served
                .iter()
                .filter(|row| !held.contains(row))
                .map(|row| row.id.as_str())
                .collect();
            assert!(
                differing.is_empty() && held.len() == served.len(),
                "{context}: {} stored, {} served, differing {differing:?}",
                held.len(),
                served.len()
            );
            let marks = store.live_marks("incidents").unwrap();
            assert!(
                marks == service.served_marks(),
                "{context}: change marks differ"
            );
        }
        assert!(late >= 12, "{late} late revisions");
        // Without a lookback every late batch is the reconciliation's; with a
        // week's, only those stamped further back than it.
        assert!(repaired > 0, "lookback {lookback_days}: nothing repaired");
        if lookback_days == 0 {
            assert!(repaired as usize * 2 >= late, "{repaired} of {late}");
        }
        let divergence = store.divergence("incidents").unwrap();
        assert_eq!(divergence.pulls, 8);
        assert!(divergence.pulls_repairing > 0, "{divergence:?}");
    }
}

#[test]
fn houston_rows_that_age_out_of_the_rolling_window_are_kept() {
    let service = Service::start(
        "city_us_hou",
        "crime",
        City::Houston,
        date(2010, 3, 1),
        None,
    );
    let mut store = IncidentStore::in_memory().unwrap();
    service.sync(&mut store, SyncOptions::default()).unwrap();
    let before = stored(&store, "crime");
    // The layer withdraws its oldest row: it aged out of the 30 days.
    let oldest = before
        .iter()
        .min_by_key(|r| r.occurred_date)
        .unwrap()
        .clone();
    {
        let name = service.dataset();
        let mut world = service.world.lock().unwrap();
        let dataset = world.dataset_mut(&name).unwrap();
        let key = dataset
            .rows()
            .find(|r| r.objectid().to_string() == oldest.id)
            .map(|r| r.key().to_owned())
            .unwrap();
        assert!(dataset.delete(&key));
    }
    service.sync(&mut store, SyncOptions::default()).unwrap();
    assert!(stored(&store, "crime").contains(&oldest));
}

/// A sync under `fault` fails naming the source, and the store is as before.
fn fails_and_keeps(service: &Service, store: &mut IncidentStore, fault: &Fault, expect: &str) {
    let before = stored(store, service.source);
    service.inject(fault.clone());
    let error = service.sync(store, SyncOptions::default()).unwrap_err();
    let text = error.to_string();
    assert!(
        text.starts_with(&format!("source {}: ", service.source)),
        "{text}"
    );
    assert!(text.contains(expect), "{fault:?}: {text}");
    assert_eq!(
        stored(store, service.source),
        before,
        "{fault:?} lost or added rows"
    );
    let name = service.dataset();
    service.world.lock().unwrap().faults_mut().clear(&name);
}

#[test]
fn every_fault_fails_the_sync_naming_the_source_and_loses_nothing() {
    let service = Service::start("city_ca_tor", "mci", City::Toronto, date(2021, 3, 1), None);
    let mut store = IncidentStore::in_memory().unwrap();
    service.sync(&mut store, SyncOptions::default()).unwrap();
    service.advance();
    let faults = [
        (Fault::Down { requests: 50 }, "unavailable"),
        (
            Fault::TooManyRequests {
                requests: 50,
                retry_after_secs: 0,
                hits_app_token: true,
            },
            "rate limited",
        ),
        (Fault::TruncatedPage, "unreadable answer"),
        (
            Fault::RepeatedRows,
            "again, unchanged since an earlier page",
        ),
        // A page that starts late leaves a gap and then overlaps the next page:
        // either is caught first, whichever the offsets meet.
        (Fault::SkippedRows, "page"),
        (Fault::Private, "not public any more"),
    ];
    for (fault, expect) in faults {
        fails_and_keeps(&service, &mut store, &fault, expect);
    }
    // A 429 storm shorter than the client's patience is waited out.
    service.inject(Fault::TooManyRequests {
        requests: 2,
        retry_after_secs: 0,
        hits_app_token: true,
    });
    service.sync(&mut store, SyncOptions::default()).unwrap();
    assert_eq!(stored(&store, "mci"), service.served());
}

#[test]
fn a_renamed_field_is_read_under_its_new_spelling_or_named_when_unknown() {
    let service = Service::start("city_ca_tor", "mci", City::Toronto, date(2021, 3, 1), None);
    let mut store = IncidentStore::in_memory().unwrap();
    service.sync(&mut store, SyncOptions::default()).unwrap();
    let rename = |from: &str, to: &str| {
        let name = service.dataset();
        let mut world = service.world.lock().unwrap();
        assert!(world.dataset_mut(&name).unwrap().rename_field(from, to));
    };
    // Toronto's real 2026 rename: both spellings are configured.
    rename("MCI_CATEGORY", "CSI_CATEGORY");
    let synced = service.sync(&mut store, SyncOptions::default()).unwrap();
    assert_eq!(synced.pull.counts.revised, 0);
    assert_eq!(stored(&store, "mci"), service.served());
    rename("CSI_CATEGORY", "OFFENCE_GROUP");
    let before = stored(&store, "mci");
    let error = service
        .sync(&mut store, SyncOptions::default())
        .unwrap_err();
    assert!(
        error
            .to_string()
            .contains("field CSI_CATEGORY or MCI_CATEGORY is not published"),
        "{error}"
    );
    assert_eq!(stored(&store, "mci"), before);
}

/// Socrata leaves a null out of the row: a row without its offence is stored with
/// an empty one (the build counts it as unmapped), while a page with none at all
/// is a field no longer published and fails the pull.
#[test]
fn a_socrata_row_without_its_offence_is_kept_and_a_renamed_field_named() {
    let service = Service::start(
        "city_us_sfo",
        "incidents",
        City::SanFrancisco,
        date(2012, 6, 1),
        None,
    );
    let mut store = IncidentStore::in_memory().unwrap();
    service.sync(&mut store, SyncOptions::default()).unwrap();
    let field = service.feed.fields.offence[0].clone();
    let keys: Vec<String> = {
        let name = service.dataset();
        let mut world = service.world.lock().unwrap();
        let clock = world.clock();
        let dataset = world.dataset_mut(&name).unwrap();
        let keys: Vec<String> = dataset.rows().take(3).map(|r| r.key().to_owned()).collect();
        let mut nulled = serde_json::Map::new();
        nulled.insert(field.clone(), Value::Null);
        // The first stamped a month back: only the reconciliation fetches it,
        // alone.
        for (n, key) in keys.iter().enumerate() {
            let at = if n == 0 {
                clock - chrono::Duration::days(30)
            } else {
                clock
            };
            assert!(dataset.revise(key, &nulled, None, at));
        }
        keys
    };
    let synced = service.sync(&mut store, SyncOptions::default()).unwrap();
    assert_eq!(synced.pull.counts.revised, 3, "{:?}", synced.pull.counts);
    assert_eq!(stored(&store, "incidents"), service.served());
    let empty = stored(&store, "incidents")
        .iter()
        .filter(|r| r.offence.is_empty())
        .count();
    assert_eq!(empty, keys.len());
    {
        let name = service.dataset();
        let mut world = service.world.lock().unwrap();
        assert!(
            world
                .dataset_mut(&name)
                .unwrap()
                .rename_field(&field, "category")
        );
    }
    let before = stored(&store, "incidents");
    let error = service
        .sync(&mut store, SyncOptions::default())
        .unwrap_err();
    assert!(
        error.to_string().contains(&format!("has no {field}")),
        "{error}"
    );
    assert_eq!(stored(&store, "incidents"), before);
}

#[test]
fn a_row_with_impossible_coordinates_is_stored_and_warned_about() {
    let service = Service::start("city_ca_tor", "mci", City::Toronto, date(2021, 3, 1), None);
    let mut store = IncidentStore::in_memory().unwrap();
    service.sync(&mut store, SyncOptions::default()).unwrap();
    let id = service.served()[0].id.clone();
    {
        let name = service.dataset();
        let mut world = service.world.lock().unwrap();
        let clock = world.clock();
        let changes: serde_json::Map<String, Value> = [("LAT_WGS84".to_owned(), Value::from(95.0))]
            .into_iter()
            .collect();
        let dataset = world.dataset_mut(&name).unwrap();
        let key = dataset
            .rows()
            .find(|r| r.objectid().to_string() == id)
            .map(|r| r.key().to_owned())
            .unwrap();
        assert!(dataset.revise(&key, &changes, None, clock));
    }
    let synced = service.sync(&mut store, SyncOptions::default()).unwrap();
    assert_eq!(synced.warnings.len(), 1, "{:?}", synced.warnings);
    assert!(
        synced.warnings[0].contains(&format!("row {id}")),
        "{:?}",
        synced.warnings
    );
    assert_eq!(stored(&store, "mci"), service.served());
}

#[test]
fn a_pull_stopped_after_some_pages_resumes_with_nothing_counted_twice() {
    let service = Service::start("city_ca_tor", "mci", City::Toronto, date(2021, 3, 1), None);
    let folder = tempfile::tempdir().unwrap();
    {
        let mut store = IncidentStore::open(folder.path(), "city_ca_tor").unwrap();
        let stopped = SyncOptions {
            stop_after_pages: Some(2),
            ..SyncOptions::default()
        };
        let error = service.sync(&mut store, stopped).unwrap_err();
        assert!(error.resumable(), "{error}");
    }
    let mut store = IncidentStore::open(folder.path(), "city_ca_tor").unwrap();
    assert_eq!(store.running_pull("mci").unwrap().unwrap().next_offset, 500);
    let synced = service.sync(&mut store, SyncOptions::default()).unwrap();
    let served = service.served();
    assert_eq!(synced.pull.counts.fetched, served.len() as u64);
    assert_eq!(synced.pull.counts.added, served.len() as u64);
    assert_eq!(stored(&store, "mci"), served);
}
