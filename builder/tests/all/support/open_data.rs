//! A simulated open-data service for the feed tests: `opendata-sim` serving cuts of
//! the real shared data (or all of it), and the city's committed feed pointed at it.

// The cuts are fixtures written into a temporary folder, not outputs of the builder.
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
use hexrisk_builder::store::record::FeedRecord;
use opendata_sim::{City, CityFeed, Fault, Script, Server, World};
use serde_json::Value;

/// A cut of the real files: the first `rows` data rows of each, written in the
/// shared data's layout under `dir`.
pub(crate) fn cut(dir: &Path, files: &[&str], rows: usize) {
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
pub(crate) fn city(code: &str) -> CityConfig {
    config::load(&config::default_config_dir().join(format!("{code}.toml"))).unwrap()
}

/// A running simulated service and the city's feed pointed at it.
pub(crate) struct Service {
    pub(crate) world: Arc<Mutex<World>>,
    // Serves until the test ends.
    _server: Server,
    pub(crate) feed: FeedConfig,
    pub(crate) source: &'static str,
    pub(crate) tz: Tz,
    _data: tempfile::TempDir,
}

impl Service {
    /// The simulated service of `sim` at `start`, on a cut of the data, with its
    /// wholesale replacement in week `wholesale`.
    pub(crate) fn start(
        city_code: &str,
        source: &'static str,
        sim: City,
        start: NaiveDate,
        wholesale: Option<u32>,
    ) -> Self {
        Self::start_on(city_code, source, sim, start, wholesale, false, true)
    }

    /// The simulated service of `sim` at `start` on all of its data, without a
    /// wholesale replacement; with the script's late reports when `late`, else
    /// every incident published (and reported) when it occurs.
    pub(crate) fn start_full(
        city_code: &str,
        source: &'static str,
        sim: City,
        start: NaiveDate,
        late: bool,
    ) -> Self {
        Self::start_on(city_code, source, sim, start, None, true, late)
    }

    fn start_on(
        city_code: &str,
        source: &'static str,
        sim: City,
        start: NaiveDate,
        wholesale: Option<u32>,
        full: bool,
        late: bool,
    ) -> Self {
        let data = tempfile::tempdir().unwrap();
        match sim {
            _ if full => {}
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
        let source_dir = if full {
            data::workspace_data_dir()
        } else {
            data.path().to_path_buf()
        };
        let feed_data = CityFeed::load(sim, &source_dir).unwrap();
        let script = if late {
            Script::new(feed_data, 7)
        } else {
            Script::without_lateness(feed_data, 7)
        }
        .with_wholesale_week(wholesale);
        let world = World::start_at(script, start).into_shared();
        let server = Server::start(Arc::clone(&world)).unwrap();
        let config = city(city_code);
        let mut feed = config.sources[source].feed.clone().unwrap();
        feed.url = format!("{}{}", server.base_url(), sim.path());
        feed.page_size = Some(if full { 2000 } else { 250 });
        feed.token_env = None;
        if sim == City::Houston {
            // The 2010 file has no incident number, so the server publishes no
            // `USER_Incident` (it invents no ids it need not).
            feed.fields.event = None;
        }
        // The server publishes the files' offence vocabulary (its lib doc says
        // so), not the service's: the source's own classes map it.
        feed.classes = None;
        feed.vocabulary = None;
        feed.fold_case = false;
        Self {
            world,
            _server: server,
            feed,
            source,
            tz: config.timezone.parse().unwrap(),
            _data: data,
        }
    }

    pub(crate) fn dataset(&self) -> String {
        let world = self.world.lock().unwrap();
        world.datasets()[0].name().to_owned()
    }

    /// What the server serves now, mapped as the feed maps it, by id.
    pub(crate) fn served(&self) -> Vec<FeedRecord> {
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

    /// Each row the server serves now with its change mark (Socrata
    /// `:updated_at`), by id, as the store should hold them after a sync.
    pub(crate) fn served_marks(&self) -> std::collections::HashMap<String, Option<String>> {
        let world = self.world.lock().unwrap();
        world.datasets()[0]
            .current_rows()
            .iter()
            .map(|row| {
                let id = fields::text(row.get(&self.feed.fields.id)).unwrap();
                let mark = row
                    .get(":updated_at")
                    .and_then(Value::as_str)
                    .map(str::to_owned);
                (id, mark)
            })
            .collect()
    }

    pub(crate) fn sync(
        &self,
        store: &mut IncidentStore,
        options: SyncOptions,
    ) -> Result<Synced, SyncError> {
        let client = Self::client();
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

    /// A client that gives up after three quick tries.
    /// The feed as committed (its vocabulary kept), pointed at this server.
    pub(crate) fn committed_feed(&self, city_code: &str) -> FeedConfig {
        let mut feed = city(city_code).sources[self.source].feed.clone().unwrap();
        feed.url.clone_from(&self.feed.url);
        feed.page_size = self.feed.page_size;
        feed.token_env = None;
        feed.fields.event.clone_from(&self.feed.fields.event);
        feed
    }

    pub(crate) fn client() -> HttpClient {
        HttpClient::new(Patience {
            attempts: 3,
            first_pause: Duration::from_millis(5),
            longest_pause: Duration::from_millis(20),
            timeout: Duration::from_secs(20),
        })
    }

    pub(crate) fn advance(&self) -> opendata_sim::WeekReport {
        self.world.lock().unwrap().advance_week()
    }

    pub(crate) fn inject(&self, fault: Fault) {
        let name = self.dataset();
        self.world.lock().unwrap().faults_mut().inject(&name, fault);
    }
}
