//! Building one city: ingest, count, fit at each rolling origin, backtest against the
//! baselines, forecast beyond the data, and pack the artifact; on a real street
//! network, backtest the street-level layer too (`fit/streets/backtest.rs`).

use std::collections::BTreeMap;
use std::path::Path;

use chrono::NaiveDate;
use geo::{BoundingRect, Simplify};
use hexrisk_engine::artifact::{
    self, Bounds, CityArtifact, CityInfo, ForecastCalendar, ModelInfo, PrecinctRecord,
};
use hexrisk_engine::forecast::{
    ClassRates, Dispersion, OutcomeProbabilities, POISSON, outcome_distribution,
    outcome_distribution_with,
};
use hexrisk_engine::grid::MicroDegrees;
use hexrisk_engine::roads::RoadGraph;
use indicatif::ProgressBar;

pub use crate::fit::backtest::BacktestRow;
use crate::fit::backtest::{Metrics, Scoreboard, outcome};
use crate::fit::band_backtest::{self, BandBacktest};
use crate::fit::baselines;
use crate::fit::calibration::{self, LONGEST_WINDOW, LevelChoice, PastWeek};
use crate::fit::counts::{CLASSES, WeeklyCounts};
use crate::fit::leaks;
use crate::fit::model::{self, FeatureBuilder};
use crate::fit::profiles::{self, BandCounts, Profiles};
use crate::fit::streets::{
    self,
    backtest::{StreetBacktest, StreetError, StreetInputs},
    hours::{HourInputs, StreetHours},
};
use crate::inputs::config::CityConfig;
use crate::inputs::ingest::{self, IngestError, SourceReport};
use crate::inputs::intake::CityIntake;
use crate::places::place_index;
use crate::roads::lines::RoadError;
use crate::roads::osm::PointOfInterest;

/// Model version label written into every artifact.
pub const MODEL_VERSION: &str = "hexrisk-glm-1";

/// Weeks between refits in the rolling-origin backtest.
pub const REFIT_EVERY: usize = 13;

/// Precinct outlines are simplified to this tolerance in degrees (about 5 m).
pub const OUTLINE_TOLERANCE_DEG: f64 = 0.000_05;

/// Scores of the model and the baselines over the backtest.
#[derive(Debug, Clone, PartialEq)]
pub struct BacktestSummary {
    /// First and last backtest week.
    pub weeks: (NaiveDate, NaiveDate),
    /// Number of backtest weeks.
    pub week_count: usize,
    /// Figures per forecaster: `model`, `mean52`, `ewma`.
    pub metrics: BTreeMap<&'static str, Metrics>,
    /// How the time-of-day profiles were chosen.
    pub profile_choice: profiles::Choice,
    /// The band backtest of the profiles fitted before the backtest weeks.
    pub bands: BandBacktest,
    /// The recent-level factor of each backtest week (`fit/calibration.rs`).
    pub levels: Vec<f64>,
    /// The recent-level factor of the served forecasts.
    pub served_level: f64,
    /// The recent level's setting, chosen on the backtest's validation weeks.
    pub level_choice: LevelChoice,
    /// The run-in: the model's uncalibrated forecasts of the weeks just before the
    /// backtest (unscored; they feed the first weeks' factors), in week order.
    pub run_in: Vec<PastWeek>,
    /// The kernel density baseline's bandwidths (m) and their hit rates at 5 % of the
    /// area on the validation weeks; the highest is the one used.
    pub kde_validation: Vec<(f64, f64)>,
    /// Each source's default-hour weights from all rows and from those before the
    /// backtest.
    pub default_hour_leaks: Vec<leaks::DefaultHourLeak>,
    /// What a grid derived from incidents took from the backtest's weeks; `None`
    /// for a grid of precinct polygons.
    pub grid_leak: Option<leaks::GridLeak>,
}

/// What building one city produces.
#[derive(Debug, Clone)]
pub struct CityBuild {
    /// The artifact.
    pub artifact: CityArtifact,
    /// Per-source accounting.
    pub sources: BTreeMap<String, SourceReport>,
    /// The clean incidents (the sources' ledgers point into them), for the exports.
    pub incidents: Vec<ingest::Incident>,
    /// Backtest scores.
    pub backtest: BacktestSummary,
    /// Backtest export rows.
    pub rows: Vec<BacktestRow>,
    /// Cells in the grid.
    pub cells: usize,
    /// Modelled data weeks.
    pub data_weeks: (NaiveDate, usize),
    /// The street-level backtest; `None` without a street network (a city
    /// routed over the hex lattice).
    pub streets: Option<StreetBacktest>,
    /// The street hour profiles against the city-wide profile; `None` without a
    /// street network.
    pub street_hours: Option<StreetHours>,
}

/// Why a city cannot be built.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// Its configuration or incident data failed.
    #[error(transparent)]
    Ingest(#[from] IngestError),
    /// Its road file failed.
    #[error(transparent)]
    Roads(#[from] RoadError),
    /// The street-level backtest's inputs disagree.
    #[error(transparent)]
    Streets(#[from] StreetError),
    /// Its place index failed.
    #[error(transparent)]
    Places(#[from] crate::places::PlacesError),
}

fn precinct_records(grid: &crate::inputs::boundary::CityGrid) -> Vec<PrecinctRecord> {
    grid.precincts
        .iter()
        .map(|p| PrecinctRecord {
            id: p.id.clone(),
            name: p.name.clone(),
            polygons: p
                .outline
                .simplify(OUTLINE_TOLERANCE_DEG)
                .0
                .iter()
                .map(|polygon| {
                    std::iter::once(polygon.exterior())
                        .chain(polygon.interiors())
                        .map(|ring| {
                            ring.coords()
                                .map(|c| MicroDegrees::from_degrees(c.y, c.x))
                                .collect()
                        })
                        .collect()
                })
                .collect(),
        })
        .collect()
}

/// The three forecasters scored side by side.
#[derive(Debug, Default)]
struct Boards {
    model: Scoreboard,
    mean52: Scoreboard,
    ewma: Scoreboard,
}

impl Boards {
    /// The figures of each forecaster: `model`, `mean52`, `ewma`.
    fn metrics(&self) -> BTreeMap<&'static str, Metrics> {
        [
            ("model", self.model.metrics()),
            ("mean52", self.mean52.metrics()),
            ("ewma", self.ewma.metrics()),
        ]
        .into_iter()
        .collect()
    }
}

/// Forecasts of every week in the prediction range, with the backtest's scores.
struct Forecasts {
    rates: Vec<Vec<ClassRates>>,
    dispersion: Vec<Dispersion>,
    rows: Vec<BacktestRow>,
    boards: Boards,
    /// The recent-level factor of each backtest week.
    levels: Vec<f64>,
    /// The recent-level factor of the served forecasts.
    served_level: f64,
    /// The recent level's setting and how it was chosen.
    level_choice: LevelChoice,
    /// The unscored forecasts before the backtest.
    run_in: Vec<PastWeek>,
    /// The kernel density baseline's bandwidths and their validation hit rates at 5 %.
    kde_validation: Vec<(f64, f64)>,
}

fn with_probabilities(rates: Vec<ClassRates>) -> Vec<(ClassRates, OutcomeProbabilities)> {
    rates
        .into_iter()
        .map(|r| (r, outcome_distribution(&r)))
        .collect()
}

/// Whether each cell of a week's observed counts was quiet (no incident of any class).
fn quiet_cells(observed: &[[u16; CLASSES]]) -> Vec<bool> {
    observed.iter().map(|n| n.iter().all(|&c| c == 0)).collect()
}

/// Every cell's counts of week `t`.
fn observed_week(counts: &WeeklyCounts, t: usize) -> Vec<[u16; CLASSES]> {
    (0..counts.cells).map(|i| counts.cell_week(t, i)).collect()
}

/// The first week of the run-in: the [`LONGEST_WINDOW`] weeks before the backtest,
/// forecast (unscored) so that the first backtest week has a full window of the
/// model's past forecasts under every calibration setting, when a fit there has at
/// least [`REFIT_EVERY`] weeks to learn from; else no run-in.
fn run_in_start(start: usize, warmup: usize) -> usize {
    let first = start.saturating_sub(LONGEST_WINDOW);
    if first >= warmup + REFIT_EVERY {
        first
    } else {
        start
    }
}

/// How many of a backtest's `weeks` (its first) choose the recent level's setting;
/// the rest are held out.
#[must_use]
pub fn validation_weeks(weeks: usize) -> usize {
    weeks / 2
}

/// The model's uncalibrated forecasts of `weeks`, refitted every [`REFIT_EVERY`]
/// weeks from its start, each with its fit's sizes and which cells were quiet.
fn past_forecasts(
    (features, counts): (&FeatureBuilder<'_>, &WeeklyCounts),
    weeks: std::ops::Range<usize>,
    warmup: usize,
    on_fit: &mut dyn FnMut(usize),
) -> Vec<PastWeek> {
    let mut past = Vec::with_capacity(weeks.len());
    for origin in weeks.clone().step_by(REFIT_EVERY) {
        on_fit(origin);
        let coefficients = model::fit(features, origin, warmup);
        for t in origin..(origin + REFIT_EVERY).min(weeks.end) {
            past.push(PastWeek {
                rates: model::predict_week(features, &coefficients, t, t),
                dispersion: coefficients.size,
                quiet: quiet_cells(&observed_week(counts, t)),
            });
        }
    }
    past
}

/// The rolling-origin backtest over weeks `start..weeks`, then true forecasts for the
/// `horizon` weeks after the data. Every week's rates are calibrated to the recent
/// level (`fit/calibration.rs`) of the model's forecasts of the weeks before it, with
/// the setting chosen on the backtest's first [`validation_weeks`].
fn forecast_range(
    city: &CityConfig,
    ingested: &ingest::Ingested,
    features: &FeatureBuilder<'_>,
    counts: &WeeklyCounts,
    (start, warmup, horizon): (usize, usize, usize),
    progress: &ProgressBar,
) -> Forecasts {
    let weeks = counts.weeks;
    let run_in = run_in_start(start, warmup);
    let mut past = past_forecasts((features, counts), run_in..start, warmup, &mut |_| {});
    past.extend(past_forecasts(
        (features, counts),
        start..weeks,
        warmup,
        &mut |origin| {
            progress.set_message(format!(
                "{}: fit at week {}",
                city.name,
                ingested.weeks.start_of(origin)
            ));
            progress.inc(1);
        },
    ));
    let first_scored = start - run_in;
    progress.set_message(format!("{}: recent level", city.name));
    let level_choice = calibration::choose(&past, first_scored, validation_weeks(weeks - start));
    let setting = level_choice.setting;
    let validation = start..start + validation_weeks(weeks - start);
    let (kde, kde_validation) = baselines::choose_kde(&ingested.grid.cells, counts, validation);
    let mut out = Forecasts {
        rates: Vec::with_capacity(weeks - start + horizon),
        dispersion: Vec::with_capacity(weeks - start + horizon),
        rows: Vec::with_capacity((weeks - start) * counts.cells),
        boards: Boards::default(),
        levels: Vec::with_capacity(weeks - start),
        served_level: setting.level_after(&past, past.len()),
        level_choice,
        run_in: past[..first_scored].to_vec(),
        kde_validation,
    };
    for (t, index) in (start..weeks).zip(first_scored..) {
        let level = setting.level_after(&past, index);
        let week = &past[index];
        let predicted = calibration::scaled_week(&week.rates, level);
        let observed = observed_week(counts, t);
        let mean52: Vec<ClassRates> = (0..counts.cells)
            .map(|i| baselines::mean52(counts, i, t))
            .collect();
        let ewma: Vec<ClassRates> = (0..counts.cells)
            .map(|i| baselines::ewma(counts, i, t))
            .collect();
        let (last_week, density) = (
            baselines::last_week(counts, t),
            kde.density(&baselines::year_means(counts, t)),
        );
        let model_week: Vec<(ClassRates, OutcomeProbabilities)> = predicted
            .iter()
            .map(|r| (*r, outcome_distribution_with(r, &week.dispersion)))
            .collect();
        out.rows.extend(
            model_week
                .iter()
                .zip(&observed)
                .enumerate()
                .map(|(i, ((r, p), n))| BacktestRow {
                    week: ingested.weeks.start_of(t),
                    cell: ingested.grid.cells[i],
                    rates: *r,
                    probabilities: *p,
                    dispersion: week.dispersion,
                    level,
                    counts: *n,
                    baselines: [
                        mean52[i].iter().sum(),
                        ewma[i].iter().sum(),
                        last_week[i],
                        density[i],
                    ],
                    baseline_rates: [mean52[i], ewma[i]],
                }),
        );
        out.boards
            .model
            .add_week(&model_week, &week.dispersion, &observed);
        out.boards
            .mean52
            .add_week(&with_probabilities(mean52), &POISSON, &observed);
        out.boards
            .ewma
            .add_week(&with_probabilities(ewma), &POISSON, &observed);
        out.rates.push(predicted);
        out.dispersion.push(week.dispersion);
        out.levels.push(level);
    }
    progress.set_message(format!("{}: forecasting {horizon} weeks", city.name));
    let final_fit = model::fit(features, weeks, warmup);
    for t in weeks..weeks + horizon {
        let uncalibrated = model::predict_week(features, &final_fit, t, weeks);
        out.rates
            .push(calibration::scaled_week(&uncalibrated, out.served_level));
        out.dispersion.push(final_fit.size);
    }
    out
}

/// The UTC offsets of `timezone` from a week before `first` to two weeks after
/// `last`, found hour by hour (the covered zones change offset on the hour).
fn utc_offsets(
    timezone: &str,
    first: NaiveDate,
    last: NaiveDate,
) -> Result<Vec<(i64, i32)>, IngestError> {
    use chrono::{Offset, TimeZone};
    let tz: chrono_tz::Tz = timezone
        .parse()
        .map_err(|_| IngestError::Config(format!("unknown time zone {timezone}")))?;
    let start = (first - chrono::Days::new(7))
        .and_hms_opt(0, 0, 0)
        .map(|t| t.and_utc().timestamp());
    let end = (last + chrono::Days::new(14))
        .and_hms_opt(0, 0, 0)
        .map(|t| t.and_utc().timestamp());
    let (Some(start), Some(end)) = (start, end) else {
        return Err(IngestError::Config("forecast weeks out of range".into()));
    };
    let mut table: Vec<(i64, i32)> = Vec::new();
    for instant in (start..=end).step_by(3600) {
        let offset = tz.offset_from_utc_datetime(
            &chrono::DateTime::from_timestamp(instant, 0)
                .unwrap_or_default()
                .naive_utc(),
        );
        let seconds = offset.fix().local_minus_utc();
        if table
            .last()
            .is_none_or(|&(_, previous)| previous != seconds)
        {
            table.push((instant, seconds));
        }
    }
    Ok(table)
}

fn bounds_of(grid: &crate::inputs::boundary::CityGrid) -> Bounds {
    grid.outline.bounding_rect().map_or(
        Bounds {
            north: 0.0,
            south: 0.0,
            east: 0.0,
            west: 0.0,
        },
        |r| Bounds {
            north: r.max().y,
            south: r.min().y,
            east: r.max().x,
            west: r.min().x,
        },
    )
}

/// Resolution of the lattice routed over where a city has no road data: resolution-9
/// cells (centres about 350 m apart), seven per grid cell.
pub const LATTICE_RESOLUTION: h3o::Resolution = h3o::Resolution::Nine;

/// The lattice over the children of the grid `cells` (sorted).
fn hex_lattice(cells: &[h3o::CellIndex]) -> RoadGraph {
    let children: Vec<h3o::CellIndex> = cells
        .iter()
        .flat_map(|c| c.children(LATTICE_RESOLUTION))
        .collect();
    let grid: Vec<u64> = cells.iter().map(|&c| u64::from(c)).collect();
    hexrisk_engine::roads::hex_lattice(
        &children,
        &grid,
        "H3 resolution-9 lattice (no road data for this city)",
    )
}

/// The city's road graph (or, without road data, a hex lattice), with a line on
/// what was pruned, and its road file's points of interest.
fn road_graph(
    city: &CityConfig,
    data_dir: &Path,
    cells: &[h3o::CellIndex],
    progress: &ProgressBar,
) -> Result<(Option<RoadGraph>, Vec<PointOfInterest>), BuildError> {
    let Some(roads) = &city.roads else {
        progress.set_message(format!("{}: hex lattice", city.name));
        let graph = hex_lattice(cells);
        progress.suspend(|| {
            println!(
                "  roads: none; routing over the resolution-{} hex lattice: {} nodes, {} edges",
                u8::from(LATTICE_RESOLUTION),
                graph.node_count(),
                graph.edge_count()
            );
        });
        return Ok((Some(with_contraction_order(graph)), Vec::new()));
    };
    progress.set_message(format!("{}: road graph", city.name));
    let crate::roads::CityRoads {
        graph,
        pruned,
        points,
    } = crate::roads::city_roads(roads, data_dir, cells)?;
    let named = graph.way_name.iter().filter(|&&n| n != 0).count();
    progress.suspend(|| {
        println!(
            "  roads: {} nodes, {} edges, {} ways kept; dropped {} nodes and {} edges outside the largest strongly connected component; merged {} nodes that only continue a street; {named} ways ({:.1} %) named, {} distinct names",
            graph.node_count(),
            graph.edge_count(),
            graph.way_count(),
            pruned.nodes,
            pruned.edges,
            pruned.merged,
            100.0 * named as f64 / graph.way_count().max(1) as f64,
            graph.names.len()
        );
    });
    // Its nodes numbered in their contraction order (`crate::roads::locality`), so that what
    // a route reads through the hierarchy lies together in memory. (A hex lattice
    // keeps its numbering: it is routed by A* with landmarks, whose choice depends on
    // the numbering, and has no hierarchy to gain.)
    let graph = crate::roads::locality::in_contraction_order(&with_contraction_order(graph));
    Ok((Some(graph), points))
}

/// The graph with its contraction order for routing's hierarchy: it depends only on
/// the network, so it is computed here once rather than by every Worker and page
/// that loads the city.
fn with_contraction_order(mut graph: RoadGraph) -> RoadGraph {
    graph.contraction_order = hexrisk_engine::routing::cch::contraction_order(&graph);
    graph
}

/// Without a backtest week the model card and `mae` have nothing to report;
/// without a horizon week the artifact's calendar would be empty.
fn check_weeks(city: &CityConfig) -> Result<(), IngestError> {
    if city.backtest_weeks == 0 || city.horizon_weeks == 0 {
        return Err(IngestError::Config(format!(
            "{}: backtest_weeks and horizon_weeks must be at least 1",
            city.code
        )));
    }
    Ok(())
}

/// A mapping or time zone that rejects every row would otherwise ship a city
/// forecasting no crime anywhere: an error listing the rejections instead.
fn check_kept(city: &CityConfig, ingested: &ingest::Ingested) -> Result<(), IngestError> {
    if !ingested.incidents.is_empty() {
        return Ok(());
    }
    let reasons: Vec<String> = ingested
        .reports
        .iter()
        .flat_map(|(source, r)| {
            r.rejected
                .iter()
                .map(move |(k, n)| format!("{source}: {k}: {n}"))
        })
        .collect();
    Err(IngestError::Config(format!(
        "{}: no incident kept (rejected: {})",
        city.code,
        reasons.join(", ")
    )))
}

/// Builds one city from its configured files.
///
/// # Errors
/// [`BuildError`] when its data or road file cannot be read.
pub fn build_city(
    city: &CityConfig,
    data_dir: &Path,
    progress: &ProgressBar,
) -> Result<CityBuild, BuildError> {
    build_city_with(city, data_dir, &CityIntake::none(), progress)
}

/// Builds one city from its configured files and the files taken in, over the span
/// they cover together ([`CityIntake::span_end`]).
///
/// # Errors
/// [`BuildError`] when its data or road file cannot be read.
pub fn build_city_with(
    city: &CityConfig,
    data_dir: &Path,
    taken_in: &CityIntake,
    progress: &ProgressBar,
) -> Result<CityBuild, BuildError> {
    check_weeks(city)?;
    let city = &taken_in.extend(city);
    progress.set_message(format!("{}: reading", city.name));
    let ingested = ingest::ingest_with(city, data_dir, taken_in)?;
    check_kept(city, &ingested)?;
    let counts = WeeklyCounts::from_ingested(&ingested);
    let neighbours = model::neighbours(&ingested.grid.cells);
    let features = FeatureBuilder::new(&counts, &neighbours);
    let weeks = counts.weeks;
    let (backtest, start, warmup, horizon) = backtest_span(city, weeks)?;
    progress.inc_length(1 + backtest.div_ceil(REFIT_EVERY) as u64);
    progress.inc(1);

    let (road_graph, points) = road_graph(city, data_dir, &ingested.grid.cells, progress)?;
    let forecasts = forecast_range(
        city,
        &ingested,
        &features,
        &counts,
        (start, warmup, horizon),
        progress,
    );
    progress.set_message(format!("{}: time-of-day profiles", city.name));
    let (profile_choice, bands, served_profiles) =
        time_of_day(&ingested, &neighbours, &forecasts.rows, start, weeks);
    let metrics = forecasts.boards.metrics();
    let mut artifact = CityArtifact {
        city: CityInfo {
            code: city.code.clone(),
            name: city.name.clone(),
            country: city.country.clone(),
            timezone: city.timezone.clone(),
        },
        model: ModelInfo {
            version: MODEL_VERSION.to_owned(),
            mae: metrics["model"].mae,
            last_updated: ingested.weeks.start_of(weeks - 1) + chrono::Days::new(6),
            note: city.sample_note.clone(),
        },
        calendar: ForecastCalendar {
            first_week: ingested.weeks.start_of(start),
            weeks: u32::try_from(backtest + horizon).unwrap_or(u32::MAX),
            observed_weeks: u32::try_from(backtest).unwrap_or(u32::MAX),
        },
        bounds: bounds_of(&ingested.grid),
        cells: ingested.grid.cells.iter().map(|&c| u64::from(c)).collect(),
        precinct_of: ingested
            .grid
            .precinct_of
            .iter()
            .map(|p| p.unwrap_or(u16::MAX))
            .collect(),
        precincts: precinct_records(&ingested.grid),
        rates: stored_rates(&forecasts.rates),
        dispersion: forecasts.dispersion,
        profiles: profiles::stored(&served_profiles),
        places: place_index(city, data_dir, &ingested.grid, road_graph.as_ref(), points)?,
        road_graph,
        street_shares: None,
        utc_offsets: utc_offsets(
            &city.timezone,
            ingested.weeks.start_of(start),
            ingested.weeks.start_of(weeks - 1 + horizon),
        )?,
    };
    // The engine refuses an inconsistent artifact when it loads one (a road graph
    // reaching far beyond the city, say): refuse it here, before the street layer
    // reads its graph, and again with the layer's shares, before it is written.
    validated(&artifact)?;
    let (streets, street_hours) = streets_of(
        &mut artifact,
        &ingested,
        (&forecasts.rows, start, &neighbours, &profile_choice),
        progress,
    )?;
    validated(&artifact)?;
    let (default_hour_leaks, grid_leak) = leaks_of(city, &ingested, start);
    Ok(CityBuild {
        artifact,
        sources: ingested.reports,
        incidents: ingested.incidents,
        backtest: BacktestSummary {
            weeks: (
                ingested.weeks.start_of(start),
                ingested.weeks.start_of(weeks - 1),
            ),
            week_count: backtest,
            metrics,
            profile_choice,
            bands,
            levels: forecasts.levels,
            served_level: forecasts.served_level,
            level_choice: forecasts.level_choice,
            run_in: forecasts.run_in,
            kde_validation: forecasts.kde_validation,
            default_hour_leaks,
            grid_leak,
        },
        rows: forecasts.rows,
        cells: counts.cells,
        data_weeks: (ingested.weeks.first, weeks),
        streets,
        street_hours,
    })
}

/// What the backtest's inputs took from its own weeks (`fit/leaks.rs`): each
/// source's default-hour weights, and a grid derived from incidents.
fn leaks_of(
    city: &CityConfig,
    ingested: &ingest::Ingested,
    start: usize,
) -> (Vec<leaks::DefaultHourLeak>, Option<leaks::GridLeak>) {
    let first = ingested.weeks.start_of(start);
    let grid = if city.boundary.derived_from_incidents {
        leaks::derived_grid(&ingested.grid.cells, &ingested.incidents, first)
    } else {
        None
    };
    (leaks::default_hours(&ingested.reports, first), grid)
}

/// Every week's rates of every cell and class, quantised as the artifact stores them.
fn stored_rates(weeks: &[Vec<ClassRates>]) -> Vec<u16> {
    weeks
        .iter()
        .flatten()
        .flat_map(|rates| rates.iter().map(|&x| artifact::quantise_rate(x)))
        .collect()
}

/// Nothing when [`artifact::validate`] accepts the artifact; its reason as an
/// [`IngestError`] otherwise.
fn validated(artifact: &CityArtifact) -> Result<(), IngestError> {
    artifact::validate(artifact)
        .map_err(|e| IngestError::Config(format!("{}: {e}", artifact.city.code)))
}

/// The street-level backtest over the city's network (its streets, or the ways of
/// its hex lattice where it has no road data), the shares the artifact then
/// carries, and the street hour profiles scored against the city-wide profile
/// (`fit/streets/hours.rs`; the artifact carries none of them); `None` without a
/// network.
fn streets_of(
    artifact: &mut CityArtifact,
    ingested: &ingest::Ingested,
    (rows, start, neighbours, choice): (&[BacktestRow], usize, &[Vec<usize>], &profiles::Choice),
    progress: &ProgressBar,
) -> Result<(Option<StreetBacktest>, Option<StreetHours>), StreetError> {
    let cells = artifact.cells.len();
    let Some(graph) = artifact.road_graph.as_ref() else {
        return Ok((None, None));
    };
    progress.set_message(format!("{}: street-level backtest", artifact.city.name));
    let streets = streets::backtest::run(&StreetInputs {
        graph,
        cells,
        incidents: &ingested.incidents,
        weeks: &ingested.weeks,
        rows,
        start,
        refit_every: REFIT_EVERY,
    })?;
    artifact.street_shares = Some(streets.served_shares(graph, cells));
    progress.set_message(format!("{}: street hour profiles", artifact.city.name));
    let hours = streets::hours::run(&HourInputs {
        streets: &streets,
        graph,
        incidents: &ingested.incidents,
        weeks: &ingested.weeks,
        rows,
        start,
        refit_every: REFIT_EVERY,
        neighbours,
        bands: choice.bands,
        shrinkage: choice.shrinkage,
    });
    Ok((Some(streets), Some(hours)))
}

/// The most weeks of warm-up: the first weeks of the data, whose features lack a
/// history, are never training targets.
pub const WARMUP_WEEKS: usize = 52;

/// The warm-up of a city whose backtest starts at week `start`: [`WARMUP_WEEKS`], or
/// half the weeks before the backtest when that is fewer.
#[must_use]
pub fn warmup_weeks(start: usize) -> usize {
    (start / 2).min(WARMUP_WEEKS)
}

/// The backtest weeks, their first index, the warm-up weeks of the model's features
/// and the forecast horizon of a city with `weeks` weeks of data.
fn backtest_span(
    city: &CityConfig,
    weeks: usize,
) -> Result<(usize, usize, usize, usize), IngestError> {
    if weeks < 3 {
        return Err(IngestError::Config(format!(
            "{}: fewer than 3 full weeks of data",
            city.code
        )));
    }
    let backtest = (city.backtest_weeks as usize).min(weeks - 2);
    let start = weeks - backtest;
    Ok((
        backtest,
        start,
        warmup_weeks(start),
        city.horizon_weeks as usize,
    ))
}

/// The time-of-day profiles: the layout and shrinkage chosen before the backtest
/// weeks, the band backtest of profiles fitted before them, and the profiles fitted
/// on all `weeks` that the artifact serves.
fn time_of_day(
    ingested: &ingest::Ingested,
    neighbours: &[Vec<usize>],
    rows: &[BacktestRow],
    start: usize,
    weeks: usize,
) -> (profiles::Choice, BandBacktest, Profiles) {
    let choice = profiles::choose(&ingested.incidents, &ingested.weeks, neighbours, start);
    let fit = |fitted: std::ops::Range<usize>| {
        let counted = BandCounts::of(
            &ingested.incidents,
            &ingested.weeks,
            fitted,
            choice.bands,
            neighbours.len(),
        );
        Profiles::fit(&counted, neighbours, choice.shrinkage)
    };
    let bands = band_backtest::run(
        rows,
        start,
        &ingested.incidents,
        &ingested.weeks,
        &fit(0..start),
    );
    let served = fit(0..weeks);
    (choice, bands, served)
}

/// The observed outcome of a backtest row, for the export.
#[must_use]
pub fn row_outcome(row: &BacktestRow) -> hexrisk_engine::CrimeClass {
    outcome(&row.counts)
}
