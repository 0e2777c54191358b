//! Street-level routing judged on incidents the model never saw.
//!
//! A city is fitted through the builder's own pipeline on its incidents up to a cut
//! date only (the configured span ends at the cut; ingest rejects every later row as
//! outside the span, so the forecasts, the profiles and the street shares learn
//! nothing after it), and its incidents after the cut are read with the same ingest
//! code. Random origin–destination pairs are then routed, all costed for the first
//! forecast week after the fitted data:
//!
//! - the **shortest** route;
//! - **today's costing** (each way's metre-weighted `1 − safety / 100` of the cells it
//!   crosses, [`cell_rank_risks`]): its safest route (`α` = 4) and its trade-off set;
//! - the **street-level costing** ([`StreetRisk`]: each way's expected incidents per
//!   metre over the city's mean): its safest route and its trade-off set.
//!
//! Every route counts the held-out incidents within [`BUFFER_M`] of its line
//! ([`near`]), per kilometre, against the shortest route of the same pair
//! ([`report`]); the table in `docs/ROUTING.md` is written from the report alone
//! ([`markdown`]). Nothing here is tuned to the figures: the costs are the engine's,
//! the stretches and aims were fixed beforehand.
//!
//! `hexrisk-build holdout-routes` runs it; `make bench-holdout` with the defaults.

pub mod markdown;
pub mod near;
pub mod report;

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Instant;

use anyhow::Context as _;
use chrono::{Days, NaiveDate};
use hexrisk_engine::city::{CityModel, week_start};
use hexrisk_engine::roads::RoadGraph;
use hexrisk_engine::routing::{CostModel, Path as Route, RouteIndex, Snap, way_risks_from_cells};
use hexrisk_engine::scoring::{CityScores, ScoringParams, StreetRisk};
use indicatif::ProgressBar;
use rayon::prelude::*;

use self::near::{NearIndex, Projection};
use self::report::{
    Conditions, CostingRoutes, HeldOut, Measured, PairResult, Rejected, Report, STRETCHES_PCT,
    Seconds,
};
use crate::fit::city_build::CityBuild;
use crate::inputs::cleaning;
use crate::inputs::config::{CityConfig, Span};
use crate::pipeline;
use crate::references::samples::SplitMix;

/// An incident counts for a route within this many metres of its line.
pub const BUFFER_M: f64 = 30.0;

/// Straight-line distance between a pair's ends, metres.
pub const DISTANCE_M: [f64; 2] = [2_000.0, 10_000.0];

/// The risk weight of the "safest" method (`RouteMethod::Safest`).
pub const SAFEST_ALPHA: f64 = 4.0;

/// Risk of metres outside the city grid in today's costing: the city median, as it
/// was before street-level risk (the engine now charges its mean, 1, there).
pub const CELL_RANK_OUTSIDE_RISK: f64 = 0.5;

/// Width of the buckets the held-out incidents are indexed in, metres.
const BUCKET_M: f64 = 50.0;

/// Most points drawn for one pair's end before giving up (a city whose cells cannot
/// hold such pairs).
const MAX_DRAWS: usize = 1_000_000;

/// Candidates routed together (in parallel); accepted in the order drawn, so the
/// pairs do not depend on the number of threads.
const BATCH: usize = 32;

/// What a run needs.
#[derive(Debug, Clone)]
pub struct Options<'a> {
    /// The city as configured.
    pub city: &'a CityConfig,
    /// The data folder.
    pub data_dir: &'a Path,
    /// The fit may use incidents up to this date.
    pub cut: NaiveDate,
    /// The held-out incidents run from the day after the cut to this date.
    pub until: NaiveDate,
    /// Pairs to measure.
    pub pairs: usize,
    /// Seed of the pair generator.
    pub seed: u64,
    /// The command line, for the report.
    pub command: String,
}

/// Today's costing of each way: the metre-weighted mean over the cells it crosses of
/// `safety_risk` (`1 − safety / 100`), [`CELL_RANK_OUTSIDE_RISK`] for metres outside
/// the grid and for a way of no metres.
#[must_use]
pub fn cell_rank_risks(graph: &RoadGraph, safety_risk: impl Fn(u32) -> f64) -> Vec<f64> {
    way_risks_from_cells(graph, safety_risk, CELL_RANK_OUTSIDE_RISK)
}

/// A cell's risk in today's costing: `1 − safety / 100`, 0.5 without a score.
#[must_use]
pub fn risk_of_safety(safety: f64) -> f64 {
    if safety.is_nan() {
        CELL_RANK_OUTSIDE_RISK
    } else {
        1.0 - safety / 100.0
    }
}

/// Everything a pair is routed and counted with.
struct Context<'a> {
    graph: &'a RoadGraph,
    index: &'a RouteIndex,
    near: NearIndex,
    /// Held-out incidents at each position of `near`: all, street premises.
    weights: Vec<(u32, u32)>,
    old: Costing,
    new: Costing,
}

/// One costing's per-way risks and its safest cost model.
struct Costing {
    risks: Vec<f64>,
    safest: CostModel,
}

impl Costing {
    fn new(risks: Vec<f64>) -> Self {
        let safest = CostModel::from_risks(&risks, SAFEST_ALPHA);
        Self { risks, safest }
    }
}

/// A pair drawn, its ends snapped.
struct Candidate {
    from: h3o::LatLng,
    to: h3o::LatLng,
    snaps: (Snap, Snap),
}

impl Context<'_> {
    fn measure(&self, path: &Route) -> Measured {
        let line: Vec<(f64, f64)> = self
            .index
            .line(self.graph, path)
            .points
            .iter()
            .map(|p| (p.lat(), p.lng()))
            .collect();
        let (mut all, mut street) = (0, 0);
        for i in self.near.within(&line, BUFFER_M) {
            all += self.weights[i].0;
            street += self.weights[i].1;
        }
        Measured {
            length_m: path.length_m(),
            all,
            street,
        }
    }

    fn costing(
        &self,
        costing: &Costing,
        (from, to): &(Snap, Snap),
        shortest_m: f64,
    ) -> Option<CostingRoutes> {
        let safest = self.index.search(self.graph, &costing.safest, from, to)?;
        let set = self.index.tradeoff(self.graph, &costing.risks, from, to)?;
        let within = STRETCHES_PCT
            .iter()
            .map(|&pct| {
                let limit = shortest_m * (1.0 + f64::from(pct) / 100.0);
                set.routes
                    .iter()
                    .rfind(|r| r.length_m <= limit)
                    .or(set.routes.first())
                    .map(|r| self.measure(&r.path))
            })
            .collect::<Option<Vec<Measured>>>()?;
        Some(CostingRoutes {
            safest: self.measure(&safest),
            within,
            corners: set.routes.len(),
            complete: set.complete,
        })
    }

    fn evaluate(&self, candidate: &Candidate) -> Option<PairResult> {
        let (from, to) = &candidate.snaps;
        let shortest = self
            .index
            .search(self.graph, &CostModel::lengths(), from, to)?;
        let shortest_m = shortest.length_m();
        Some(PairResult {
            from: [candidate.from.lat(), candidate.from.lng()],
            to: [candidate.to.lat(), candidate.to.lng()],
            crow_m: candidate.from.distance_m(candidate.to),
            shortest: self.measure(&shortest),
            old: self.costing(&self.old, &candidate.snaps, shortest_m)?,
            new: self.costing(&self.new, &candidate.snaps, shortest_m)?,
        })
    }
}

/// Draws pairs uniformly over the city's bounding box until one has both ends in the
/// city's cells, [`DISTANCE_M`] apart and within snapping distance of the network.
fn draw(
    model: &CityModel,
    (graph, index): (&RoadGraph, &RouteIndex),
    random: &mut SplitMix,
    rejected: &mut Rejected,
) -> anyhow::Result<Candidate> {
    let bounds = model.artifact().bounds;
    let unit = |r: &mut SplitMix| (r.next_u64() >> 11) as f64 / (1_u64 << 53) as f64;
    for _ in 0..MAX_DRAWS {
        let mut point = || {
            let lat = bounds.south + unit(random) * (bounds.north - bounds.south);
            let lng = bounds.west + unit(random) * (bounds.east - bounds.west);
            let inside = hexrisk_engine::grid::cell_at(lat, lng)
                .ok()
                .and_then(|cell| model.position(cell))
                .is_some();
            inside.then(|| h3o::LatLng::new(lat, lng).ok()).flatten()
        };
        let (Some(from), Some(to)) = (point(), point()) else {
            rejected.outside_cells += 1;
            continue;
        };
        if !(DISTANCE_M[0]..=DISTANCE_M[1]).contains(&from.distance_m(to)) {
            rejected.distance += 1;
            continue;
        }
        let (Ok(a), Ok(b)) = (index.snap(graph, from), index.snap(graph, to)) else {
            rejected.not_snapped += 1;
            continue;
        };
        return Ok(Candidate {
            from,
            to,
            snaps: (a, b),
        });
    }
    anyhow::bail!("no pair found in {MAX_DRAWS} draws")
}

/// The last day of the fitted data, from its first Monday and its number of weeks.
fn last_day(first: NaiveDate, weeks: usize) -> NaiveDate {
    first + Days::new(7 * weeks as u64) - Days::new(1)
}

/// CPU, cores, memory and system, as far as `/proc` and `/etc/os-release` tell.
fn machine() -> String {
    let read = |path: &str| std::fs::read_to_string(path).unwrap_or_default();
    let cpuinfo = read("/proc/cpuinfo");
    let cpu = cpuinfo
        .lines()
        .find_map(|l| {
            l.strip_prefix("model name")
                .and_then(|r| r.split(':').nth(1))
        })
        .map_or("unknown CPU", str::trim)
        .to_owned();
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    let meminfo = read("/proc/meminfo");
    let memory_gib = meminfo
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))
        .and_then(|r| r.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or_else(String::new, |kb| {
            format!(", {:.0} GiB RAM", kb / 1_048_576.0)
        });
    let release = read("/etc/os-release");
    let system = release
        .lines()
        .find_map(|l| l.strip_prefix("PRETTY_NAME="))
        .map_or(std::env::consts::OS, |n| n.trim_matches('"'))
        .to_owned();
    format!("{cores} × {cpu}{memory_gib}, {system}")
}

/// Today's UTC date.
fn today() -> String {
    let seconds = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    chrono::DateTime::from_timestamp(i64::try_from(seconds).unwrap_or(0), 0)
        .map_or_else(String::new, |t| t.date_naive().to_string())
}

/// The city fitted on its incidents up to the cut only, and the last day of the
/// weeks it modelled.
fn fit(options: &Options<'_>) -> anyhow::Result<(CityBuild, NaiveDate)> {
    let city = options.city;
    let fitted_city = CityConfig {
        span: Span {
            start: city.span.start,
            end: options.cut,
        },
        ..city.clone()
    };
    let build = pipeline::build_city(&fitted_city, options.data_dir, &ProgressBar::hidden())
        .with_context(|| format!("building {} up to {}", city.code, options.cut))?;
    let fit_through = last_day(build.data_weeks.0, build.data_weeks.1);
    anyhow::ensure!(fit_through <= options.cut, "fitted data runs past the cut");
    anyhow::ensure!(
        build.artifact.street_shares.is_some(),
        "{}: the artifact carries no street shares (no street network?)",
        city.code
    );
    Ok((build, fit_through))
}

/// Held-out incidents at each distinct position (bits of latitude and longitude):
/// all, on street premises.
type Positions = BTreeMap<(u64, u64), (u32, u32)>;

/// The incidents from the day after the cut to `options.until`: the full weeks
/// around those dates read like any span, then cut to the dates. `cells` is the
/// fitted city's grid, which the reading must share.
fn held_out(options: &Options<'_>, cells: &[u64]) -> anyhow::Result<(HeldOut, Positions)> {
    let first = options.cut + Days::new(1);
    let held_city = CityConfig {
        span: Span {
            start: week_start(first),
            end: week_start(options.until) + Days::new(6),
        },
        ..options.city.clone()
    };
    let ingested = cleaning::ingest(&held_city, options.data_dir)?;
    anyhow::ensure!(
        ingested
            .grid
            .cells
            .iter()
            .map(|&c| u64::from(c))
            .eq(cells.iter().copied()),
        "the held-out incidents' grid differs from the fitted city's"
    );
    let mut at = Positions::new();
    let mut held_out = HeldOut {
        all: 0,
        street: 0,
        positions: 0,
    };
    for incident in ingested
        .incidents
        .iter()
        .filter(|i| (first..=options.until).contains(&i.date))
    {
        let street = incident.street == Some(true);
        let entry = at
            .entry((incident.lat.to_bits(), incident.lng.to_bits()))
            .or_default();
        entry.0 += 1;
        entry.1 += u32::from(street);
        held_out.all += 1;
        held_out.street += u64::from(street);
    }
    held_out.positions = at.len();
    Ok((held_out, at))
}

/// `options.pairs` pairs, drawn in order and routed a batch at a time.
fn route_pairs(
    model: &CityModel,
    context: &Context<'_>,
    options: &Options<'_>,
    log: &dyn Fn(&str),
) -> anyhow::Result<(Vec<PairResult>, Rejected)> {
    let mut random = SplitMix::new(options.seed);
    let mut rejected = Rejected::default();
    let mut pairs: Vec<PairResult> = Vec::with_capacity(options.pairs);
    while pairs.len() < options.pairs {
        let wanted = (options.pairs - pairs.len()).min(BATCH);
        let candidates = (0..wanted)
            .map(|_| {
                draw(
                    model,
                    (context.graph, context.index),
                    &mut random,
                    &mut rejected,
                )
            })
            .collect::<anyhow::Result<Vec<Candidate>>>()?;
        let routed: Vec<Option<PairResult>> =
            candidates.par_iter().map(|c| context.evaluate(c)).collect();
        for result in routed {
            match result {
                Some(pair) => pairs.push(pair),
                None => rejected.no_route += 1,
            }
        }
        log(&format!(
            "{} of {} pairs routed",
            pairs.len(),
            options.pairs
        ));
    }
    Ok((pairs, rejected))
}

/// Fits the city up to the cut, reads the held-out incidents, routes the pairs and
/// works out the figures; `log` hears of each step.
///
/// # Errors
/// When the city cannot be built or read, has no street network or street shares,
/// or its cells hold no pairs.
pub fn run(options: &Options<'_>, log: &dyn Fn(&str)) -> anyhow::Result<Report> {
    let started = Instant::now();
    let city = options.city;
    anyhow::ensure!(
        city.span.start < options.cut && options.cut < options.until,
        "the cut {} must lie after the span's start {} and before the held-out end {}",
        options.cut,
        city.span.start,
        options.until
    );
    log(&format!("fitting {} up to {}", city.code, options.cut));
    let (build, fit_through) = fit(options)?;
    let fit_seconds = started.elapsed().as_secs_f64();

    let held_started = Instant::now();
    let first = options.cut + Days::new(1);
    log(&format!("reading incidents {first} to {}", options.until));
    let (held_out, at) = held_out(options, &build.artifact.cells)?;
    let held_seconds = held_started.elapsed().as_secs_f64();

    // The costings, for the first forecast week after the fitted data.
    let routes_started = Instant::now();
    let fit_from = build.data_weeks.0;
    let model = CityModel::from_artifact(build.artifact);
    let network = model
        .road_network()
        .context("the fitted city has no road network")?;
    let week = model.artifact().calendar.observed_weeks as usize;
    anyhow::ensure!(week < model.week_count(), "no forecast week after the data");
    let scores = CityScores::compute(&model, week, &ScoringParams::default());
    let bounds = model.artifact().bounds;
    let points: Vec<(f64, f64)> = at
        .keys()
        .map(|&(lat, lng)| (f64::from_bits(lat), f64::from_bits(lng)))
        .collect();
    let projection = Projection::new(
        f64::midpoint(bounds.north, bounds.south),
        f64::midpoint(bounds.east, bounds.west),
    );
    let context = Context {
        graph: network.graph,
        index: network.index,
        near: NearIndex::new(projection, &points, BUCKET_M),
        weights: at.into_values().collect(),
        old: Costing::new(cell_rank_risks(network.graph, |p| {
            risk_of_safety(scores.safety(p as usize))
        })),
        new: Costing::new(StreetRisk::of(&model, &scores, &network).risks().to_vec()),
    };
    let (pairs, rejected) = route_pairs(&model, &context, options, log)?;
    let routes_seconds = routes_started.elapsed().as_secs_f64();

    let kinds = report::kinds(&pairs);
    Ok(Report {
        conditions: Conditions {
            date: today(),
            machine: machine(),
            command: options.command.clone(),
            city: city.code.clone(),
            city_name: city.name.clone(),
            cut: options.cut.to_string(),
            fit_from: fit_from.to_string(),
            fit_through: fit_through.to_string(),
            scoring_week: model.week_monday(week).to_string(),
            held_out_from: first.to_string(),
            held_out_through: options.until.to_string(),
            pairs: pairs.len(),
            seed: options.seed,
            distance_m: DISTANCE_M,
            buffer_m: BUFFER_M,
            rejected,
            seconds: Seconds {
                fit: fit_seconds,
                held_out: held_seconds,
                routes: routes_seconds,
                total: started.elapsed().as_secs_f64(),
            },
        },
        held_out,
        shortest: report::shortest(&pairs),
        aims: report::aims(&kinds),
        kinds,
        pairs,
    })
}

#[cfg(test)]
mod tests;
