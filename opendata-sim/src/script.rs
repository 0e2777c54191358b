//! The simulated timeline: a seeded [`Script`] of publications, revisions, deletions and
//! one wholesale replacement, and the [`World`] that holds the clock, datasets and faults.
//!
//! Everything here is simulated and deterministic from the seed: publication lags (90%
//! of incidents within four days of occurrence, 10% late by one to eight weeks), which
//! rows are revised each week (category changed to another of the feed's own values, or
//! point moved about 50 m), which are deleted (as sealed reports are), and the week of the
//! wholesale replacement (week 3 to 10 unless configured). The incidents themselves are
//! the real ones of the shared data, never altered except by these documented revisions.
//!
//! It also writes the orders real Socrata services produce, which the samples cannot show
//! (`:updated_at` is stamped when a publisher's batch is written, not when it becomes
//! visible): each week a late-visible batch of revisions stamped one to 21 days in the
//! past, rows re-stamped with no change, and one new row in 16 with its `:created_at` up
//! to three hours either side of its `:updated_at` (a writer's clock apart).

use std::sync::{Arc, Mutex};

use chrono::{DateTime, Duration, NaiveDate, Utc};
use serde_json::{Map, Value, json};

use crate::dataset::Dataset;
use crate::faults::Faults;
use crate::replay::{City, CityFeed, Incident, local_to_utc};
use crate::rng::Rng;
use crate::schema::{Point, compare_values};

/// A seeded script replaying one city's feed.
#[derive(Clone, Debug)]
pub struct Script {
    feed: CityFeed,
    /// Incident indexes in publication order; `next` is the first not yet published.
    order: Vec<usize>,
    next: usize,
    seed: u64,
    wholesale_week: Option<u32>,
    categories: Vec<Value>,
    published_keys: Vec<String>,
}

/// What one simulated week did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WeekReport {
    /// The week number (1 for the first advance).
    pub week: u32,
    /// The clock at the end of the week.
    pub clock: DateTime<Utc>,
    /// Rows newly published.
    pub published: usize,
    /// Rows revised.
    pub revised: usize,
    /// Rows deleted.
    pub deleted: usize,
    /// Whether the dataset was replaced wholesale this week.
    pub wholesale: bool,
    /// Rows revised in a late-visible batch, stamped one to 21 days before the
    /// week's end.
    pub late_revised: usize,
    /// Rows re-stamped with no change.
    pub restamped: usize,
}

/// What a week's churn did.
#[derive(Clone, Copy, Debug, Default)]
struct Churn {
    revised: usize,
    deleted: usize,
    late_revised: usize,
    restamped: usize,
}

impl Script {
    /// A script with seeded publication lags.
    #[must_use]
    pub fn new(feed: CityFeed, seed: u64) -> Script {
        Script::build(feed, seed, true)
    }

    /// A script where every incident is published the instant it occurs (for comparing a
    /// client's store against an offline backtest).
    #[must_use]
    pub fn without_lateness(feed: CityFeed, seed: u64) -> Script {
        Script::build(feed, seed, false)
    }

    fn build(mut feed: CityFeed, seed: u64, lateness: bool) -> Script {
        for i in 0..feed.incidents.len() {
            let occurred = feed.incidents[i].occurred;
            let lag_minutes = if lateness {
                let mut rng = Rng::derive(seed, i as u64);
                if rng.unit() < 0.1 {
                    7 * 24 * 60 + rng.below(7 * 7 * 24 * 60)
                } else {
                    rng.below(4 * 24 * 60)
                }
            } else {
                0
            };
            feed.set_published(i, occurred + Duration::minutes(lag_minutes.cast_signed()));
        }
        let mut order: Vec<usize> = (0..feed.incidents.len()).collect();
        order.sort_by_key(|&i| (feed.incidents[i].published, i));
        let cat = feed.category_field();
        let mut categories: Vec<Value> = feed
            .incidents
            .iter()
            .map(|x| x.values[cat].clone())
            .filter(|v| !v.is_null())
            .collect();
        categories.sort_by(compare_values);
        categories.dedup();
        let wholesale_week = Some(3 + Rng::derive(seed, u64::MAX).below(8) as u32);
        Script {
            feed,
            order,
            next: 0,
            seed,
            wholesale_week,
            categories,
            published_keys: Vec::new(),
        }
    }

    /// Sets the week of the wholesale replacement (`None`: never).
    #[must_use]
    pub fn with_wholesale_week(mut self, week: Option<u32>) -> Script {
        self.wholesale_week = week;
        self
    }

    /// The week of the wholesale replacement.
    #[must_use]
    pub fn wholesale_week(&self) -> Option<u32> {
        self.wholesale_week
    }

    /// The city replayed.
    #[must_use]
    pub fn city(&self) -> City {
        self.feed.city
    }

    /// The feed with each incident's simulated publication instant. Once an incident is
    /// published its field values live in the dataset only (`values` is emptied here, to
    /// halve the memory a whole city takes).
    #[must_use]
    pub fn feed(&self) -> &CityFeed {
        &self.feed
    }

    /// Publishes every incident due at or before `until` into `ds`, each at its own
    /// publication instant. Returns how many.
    fn publish_until(&mut self, ds: &mut Dataset, until: DateTime<Utc>) -> usize {
        let start = self.next;
        while let Some(&i) = self.order.get(self.next) {
            let incident: &Incident = &self.feed.incidents[i];
            if incident.published > until {
                break;
            }
            let row = self.feed.new_row(incident);
            let key = row.key.clone();
            ds.publish([row], incident.published);
            // One row in 16 is written by a clock apart from the one stamping
            // `:updated_at`: its `:created_at` lies up to three hours either side.
            let mut rng = Rng::derive(self.seed ^ 0x5CE3, i as u64);
            if rng.below(16) == 0 {
                let skew = rng.below(6 * 60 * 60 * 1000).cast_signed() - 3 * 60 * 60 * 1000;
                ds.set_created_at(&key, incident.published.timestamp_millis() + skew);
            }
            self.published_keys.push(key);
            // The published copy lives in the dataset now; free the script's.
            self.feed.incidents[i].values = Vec::new();
            self.next += 1;
        }
        self.next - start
    }

    /// Revises and deletes a seeded few rows of `ds` at `at`, and writes the orders
    /// real services produce: a late-visible batch of revisions stamped one to 21
    /// days before `at` (below an earlier pull's high-water mark, as a publisher's
    /// slow ETL batch becomes visible after a faster one with later stamps), and rows
    /// re-stamped at `at` with no change.
    fn churn(&mut self, ds: &mut Dataset, week: u32, published: usize, at: DateTime<Utc>) -> Churn {
        let mut rng = Rng::derive(self.seed ^ 0x5EED, u64::from(week));
        let n_revise = rng.below(3) as usize + published / 500;
        let n_delete = rng.below(2) as usize + published / 2000;
        let mut churn = Churn::default();
        for _ in 0..n_revise {
            if self.revise_one(ds, &mut rng, at) {
                churn.revised += 1;
            }
        }
        let mut deleted = 0;
        for _ in 0..n_delete {
            let Some(key) = self.pick(&mut rng) else {
                break;
            };
            if ds.delete(&key) {
                deleted += 1;
            }
        }
        churn.deleted = deleted;
        // The orders: drawn from their own stream, so the week's revisions and
        // deletions above stay those of a script without them.
        let mut rng = Rng::derive(self.seed ^ 0x01D3, u64::from(week));
        let n_late = 1 + rng.below(3) as usize + published / 400;
        for _ in 0..n_late {
            let lag = Duration::minutes(24 * 60 + rng.below(20 * 24 * 60).cast_signed());
            if self.revise_one(ds, &mut rng, at - lag) {
                churn.late_revised += 1;
            }
        }
        let n_restamp = 1 + rng.below(3) as usize + published / 1000;
        for _ in 0..n_restamp {
            if let Some(key) = self.pick(&mut rng)
                && ds.restamp(&key, at)
            {
                churn.restamped += 1;
            }
        }
        churn
    }

    /// Revises one seeded row at `at`: its category changed to another of the
    /// feed's own values, or its point moved about 50 m. Returns whether a row was
    /// revised.
    fn revise_one(&self, ds: &mut Dataset, rng: &mut Rng, at: DateTime<Utc>) -> bool {
        let cat = self.feed.category_field();
        let coords = self.feed.coordinate_fields();
        let Some(key) = self.pick(rng) else {
            return false;
        };
        let Some(row) = ds.get(&key) else {
            return false;
        };
        let mut changes = Map::new();
        let mut point = None;
        if rng.below(2) == 0 && self.categories.len() > 1 {
            let current = row.value(cat).clone();
            let others: Vec<&Value> = self.categories.iter().filter(|v| **v != current).collect();
            let pick = others[rng.below(others.len() as u64) as usize].clone();
            changes.insert(ds.fields()[cat].name.clone(), pick);
        } else {
            let here = row.point().or_else(|| {
                let (x, y) = coords?;
                Some(Point {
                    x: row.value(x).as_f64()?,
                    y: row.value(y).as_f64()?,
                })
            });
            let Some(here) = here.filter(|p| p.x != 0.0 || p.y != 0.0) else {
                return false;
            };
            let bearing = rng.unit() * std::f64::consts::TAU;
            let dy = 50.0 * bearing.cos() / 111_320.0;
            let dx = 50.0 * bearing.sin() / (111_320.0 * here.y.to_radians().cos().max(0.01));
            let round = |v: f64| (v * 1e7).round() / 1e7;
            let moved = Point {
                x: round(here.x + dx),
                y: round(here.y + dy),
            };
            if let Some((x, y)) = coords {
                changes.insert(ds.fields()[x].name.clone(), json!(moved.x));
                changes.insert(ds.fields()[y].name.clone(), json!(moved.y));
            }
            point = row.point().map(|_| moved);
        }
        ds.revise(&key, &changes, point, at)
    }

    fn pick(&self, rng: &mut Rng) -> Option<String> {
        if self.published_keys.is_empty() {
            return None;
        }
        Some(self.published_keys[rng.below(self.published_keys.len() as u64) as usize].clone())
    }
}

/// The simulated world: a clock, datasets, faults, and optionally a script.
#[derive(Debug)]
pub struct World {
    pub(crate) datasets: Vec<Dataset>,
    pub(crate) faults: Faults,
    pub(crate) seed: u64,
    pub(crate) requests: u64,
    clock: DateTime<Utc>,
    week: u32,
    script: Option<Script>,
}

impl World {
    /// An empty world at `clock`, for hand-made datasets.
    #[must_use]
    pub fn new(clock: DateTime<Utc>, seed: u64) -> World {
        World {
            datasets: Vec::new(),
            faults: Faults::default(),
            seed,
            requests: 0,
            clock,
            week: 0,
            script: None,
        }
    }

    /// A world replaying `script`, its clock at midnight (city time) of `date`, with
    /// everything due by then published.
    #[must_use]
    pub fn start_at(mut script: Script, date: NaiveDate) -> World {
        let clock = local_to_utc(script.city().tz(), date.and_time(chrono::NaiveTime::MIN));
        let mut ds = script.feed.empty_dataset();
        script.publish_until(&mut ds, clock);
        let mut world = World::new(clock, script.seed);
        world.datasets.push(ds);
        world.script = Some(script);
        world
    }

    /// Shares the world with a server.
    #[must_use]
    pub fn into_shared(self) -> Arc<Mutex<World>> {
        Arc::new(Mutex::new(self))
    }

    /// Adds a dataset (replacing one of the same name).
    pub fn add_dataset(&mut self, ds: Dataset) {
        self.datasets.retain(|d| d.name() != ds.name());
        self.datasets.push(ds);
    }
    /// The datasets.
    #[must_use]
    pub fn datasets(&self) -> &[Dataset] {
        &self.datasets
    }
    /// The dataset called `name`.
    #[must_use]
    pub fn dataset(&self, name: &str) -> Option<&Dataset> {
        self.datasets.iter().find(|d| d.name() == name)
    }
    /// The dataset called `name`, to mutate.
    pub fn dataset_mut(&mut self, name: &str) -> Option<&mut Dataset> {
        self.datasets.iter_mut().find(|d| d.name() == name)
    }
    /// The faults and the request log.
    #[must_use]
    pub fn faults(&self) -> &Faults {
        &self.faults
    }
    /// The faults, to inject or clear.
    pub fn faults_mut(&mut self) -> &mut Faults {
        &mut self.faults
    }
    /// The simulated clock.
    #[must_use]
    pub fn clock(&self) -> DateTime<Utc> {
        self.clock
    }
    /// Weeks advanced so far.
    #[must_use]
    pub fn week(&self) -> u32 {
        self.week
    }
    /// The script, if the world replays one.
    #[must_use]
    pub fn script(&self) -> Option<&Script> {
        self.script.as_ref()
    }

    /// Moves the clock 7 days; the script publishes what fell due, revises and deletes a
    /// seeded few rows at the week's end, and replaces the dataset wholesale in its week.
    pub fn advance_week(&mut self) -> WeekReport {
        self.week += 1;
        self.clock += Duration::days(7);
        let mut report = WeekReport {
            week: self.week,
            clock: self.clock,
            published: 0,
            revised: 0,
            deleted: 0,
            wholesale: false,
            late_revised: 0,
            restamped: 0,
        };
        let Some(script) = self.script.as_mut() else {
            return report;
        };
        let name = script.city().dataset_name();
        let Some(ds) = self.datasets.iter_mut().find(|d| d.name() == name) else {
            return report;
        };
        report.published = script.publish_until(ds, self.clock);
        let churn = script.churn(ds, self.week, report.published, self.clock);
        report.revised = churn.revised;
        report.deleted = churn.deleted;
        report.late_revised = churn.late_revised;
        report.restamped = churn.restamped;
        if script.wholesale_week == Some(self.week) {
            ds.replace_wholesale(self.clock);
            report.wholesale = true;
        }
        report
    }
}
