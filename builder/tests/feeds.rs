//! Feeds synced from the local open-data server (`opendata-sim`), which speaks the
//! Socrata and ArcGIS query protocols and replays cuts of the real shared-data
//! incidents on a simulated clock: after every sync the store equals what the
//! server serves, through weekly publications, late rows, revisions, deletions
//! and a wholesale replacement; every fault fails the sync naming the source and
//! loses nothing; a stopped pull resumes with nothing counted twice.

#![allow(clippy::disallowed_methods)]

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use chrono::NaiveDate;
use chrono_tz::Tz;
use hexrisk_builder::feeds::fields::{self, Point};
use hexrisk_builder::feeds::http::{HttpClient, Patience};
use hexrisk_builder::feeds::sync::{SyncError, SyncOptions, Synced, sync_source};
use hexrisk_builder::inputs::config::{self, CityConfig};
use hexrisk_builder::inputs::data;
use hexrisk_builder::inputs::feed_config::FeedConfig;
use hexrisk_builder::store::IncidentStore;
use hexrisk_builder::store::pulls::PullKind;
use hexrisk_builder::store::record::FeedRecord;
use opendata_sim::{City, CityFeed, Fault, Script, Server, World};
use serde_json::Value;

/// A cut of the real files: the first `rows` data rows of each, written in the
/// shared data's layout under `dir`.
fn cut(dir: &Path, files: &[&str], rows: usize) {
    let shared = data::workspace_data_dir();
    for file in files {
        let source = shared.join(file);
        let gzipped = Path::new(file).extension().is_some_and(|e| e == "gz");
        let reader: Box<dyn std::io::Read> = if gzipped {
            Box::new(flate2::read::GzDecoder::new(
                std::fs::File::open(&source).unwrap(),
            ))
        } else {
            Box::new(std::fs::File::open(&source).unwrap())
        };
        let lines: Vec<String> = BufReader::new(reader)
            .lines()
            .take(rows + 1)
            .map(Result::unwrap)
            .collect();
        let target = dir.join(file);
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        let mut out: Box<dyn Write> = if gzipped {
            Box::new(flate2::write::GzEncoder::new(
                std::fs::File::create(&target).unwrap(),
                flate2::Compression::fast(),
            ))
        } else {
            Box::new(std::fs::File::create(&target).unwrap())
        };
        for line in lines {
            writeln!(out, "{line}").unwrap();
        }
    }
}

/// A city's committed configuration.
fn city(code: &str) -> CityConfig {
    config::load(&config::default_config_dir().join(format!("{code}.toml"))).unwrap()
}

/// A running simulated service and the city's feed pointed at it.
struct Service {
    world: Arc<Mutex<World>>,
    // Serves until the test ends.
    _server: Server,
    feed: FeedConfig,
    source: &'static str,
    tz: Tz,
    _data: tempfile::TempDir,
}

impl Service {
    fn start(
        city_code: &str,
        source: &'static str,
        sim: City,
        start: NaiveDate,
        wholesale: Option<u32>,
    ) -> Self {
        let data = tempfile::tempdir().unwrap();
        match sim {
            City::Toronto => cut(
                data.path(),
                &["toronto/mci_train.csv.gz", "toronto/mci_test.csv.gz"],
                700,
            ),
            City::SanFrancisco => cut(
                data.path(),
                &["san_francisco/incidents_2012_sample.csv"],
                1200,
            ),
            City::Houston => cut(data.path(), &["houston/crime_2010.csv.gz"], 1200),
        }
        let feed_data = CityFeed::load(sim, data.path()).unwrap();
        let script = Script::new(feed_data, 7).with_wholesale_week(wholesale);
        let world = World::start_at(script, start).into_shared();
        let server = Server::start(Arc::clone(&world)).unwrap();
        let config = city(city_code);
        let mut feed = config.sources[source].feed.clone().unwrap();
        feed.url = format!("{}{}", server.base_url(), sim.path());
        feed.page_size = Some(250);
        feed.token_env = None;
        if sim == City::Houston {
            // The 2010 file has no incident number, so the server publishes no
            // `USER_Incident` (it invents no ids it need not).
            feed.fields.event = None;
        }
        Self {
            world,
            _server: server,
            feed,
            source,
            tz: config.timezone.parse().unwrap(),
            _data: data,
        }
    }

    fn dataset(&self) -> String {
        let world = self.world.lock().unwrap();
        world.datasets()[0].name().to_owned()
    }

    /// What the server serves now, mapped as the feed maps it, by id.
    fn served(&self) -> Vec<FeedRecord> {
        let world = self.world.lock().unwrap();
        let mut records: Vec<FeedRecord> = world.datasets()[0]
            .current_rows()
            .iter()
            .map(|row| {
                let (attributes, point) = match row.get("attributes") {
                    Some(attributes) => (
                        attributes.as_object().unwrap().clone(),
                        row.get("geometry").and_then(|g| {
                            Some(Point {
                                x: g.get("x")?.as_f64()?,
                                y: g.get("y")?.as_f64()?,
                            })
                        }),
                    ),
                    None => (row.as_object().unwrap().clone(), None),
                };
                fields::map_row(&attributes, point, &self.feed.fields, self.tz).unwrap()
            })
            .collect();
        records.sort_by(|a, b| a.id.cmp(&b.id));
        records
    }

    fn sync(&self, store: &mut IncidentStore, options: SyncOptions) -> Result<Synced, SyncError> {
        let client = HttpClient::new(Patience {
            attempts: 3,
            first_pause: Duration::from_millis(5),
            longest_pause: Duration::from_millis(20),
            timeout: Duration::from_secs(20),
        });
        let now = self.world.lock().unwrap().clock();
        sync_source(
            store,
            self.source,
            &self.feed,
            self.tz,
            &client,
            now,
            options,
        )
    }

    fn advance(&self) -> opendata_sim::WeekReport {
        self.world.lock().unwrap().advance_week()
    }

    fn inject(&self, fault: Fault) {
        let name = self.dataset();
        self.world.lock().unwrap().faults_mut().inject(&name, fault);
    }
}

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
            assert_eq!(
                synced.pull.counts.revised, 0,
                "a replacement is not a revision"
            );
        }
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
