//! Building one city, in order: ingest, count, assemble its network
//! (`roads/assembly.rs`), forecast and backtest (`fit/forecasting.rs`), pack and
//! validate the artifact, and on its network backtest the street-level layer
//! (`fit/streets/backtest.rs`); what it produces is a [`CityBuild`].

use std::path::Path;

use chrono::NaiveDate;
use geo::{BoundingRect, Simplify};
use hexrisk_engine::artifact::{
    self, Bounds, CityArtifact, CityInfo, ForecastCalendar, ModelInfo, PrecinctRecord,
};
use hexrisk_engine::forecast::ClassRates;
use hexrisk_engine::grid::MicroDegrees;
use indicatif::ProgressBar;

use crate::fit::backtest::BacktestRow;
use crate::fit::city_build::{BacktestSummary, CityBuild, MODEL_VERSION};
use crate::fit::counts::WeeklyCounts;
use crate::fit::forecasting::{REFIT_EVERY, backtest_span, forecast_range, time_of_day};
use crate::fit::known_then;
use crate::fit::leaks;
use crate::fit::model::{self, FeatureBuilder};
use crate::fit::profiles;
use crate::fit::streets::{
    self,
    backtest::{StreetBacktest, StreetError, StreetInputs},
    hours::{HourInputs, StreetHours},
};
use crate::inputs::cleaning::{self, IngestError};
use crate::inputs::config::CityConfig;
use crate::inputs::intake::CityIntake;
use crate::places::place_index;
use crate::roads::assembly::road_graph;
use crate::roads::lines::RoadError;

/// Precinct outlines are simplified to this tolerance in degrees (about 5 m).
pub const OUTLINE_TOLERANCE_DEG: f64 = 0.000_05;

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
fn check_kept(city: &CityConfig, ingested: &cleaning::Ingested) -> Result<(), IngestError> {
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
    let ingested = cleaning::ingest_with(city, data_dir, taken_in)?;
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
    let known_then = known_then::known_then(
        &ingested,
        &neighbours,
        &counts,
        (start, warmup, REFIT_EVERY),
        &forecasts.levels,
    );
    let mut artifact = CityArtifact {
        city: city_info(city),
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
        precinct_of: precinct_slots(&ingested.grid),
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
        attribution: city.attribution.clone(),
        sources: ingested.reports,
        incidents: ingested.incidents,
        backtest: BacktestSummary {
            weeks: (
                ingested.weeks.start_of(start),
                ingested.weeks.start_of(weeks - 1),
            ),
            week_count: backtest,
            metrics,
            known_then,
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

/// The artifact's description of the city.
fn city_info(city: &CityConfig) -> CityInfo {
    CityInfo {
        code: city.code.clone(),
        name: city.name.clone(),
        country: city.country.clone(),
        timezone: city.timezone.clone(),
    }
}

/// Each cell's precinct as the artifact stores it (`u16::MAX` for none).
fn precinct_slots(grid: &crate::inputs::boundary::CityGrid) -> Vec<u16> {
    grid.precinct_of
        .iter()
        .map(|p| p.unwrap_or(u16::MAX))
        .collect()
}

/// What the backtest's inputs took from its own weeks (`fit/leaks.rs`): each
/// source's default-hour weights, and a grid derived from incidents.
fn leaks_of(
    city: &CityConfig,
    ingested: &cleaning::Ingested,
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
    ingested: &cleaning::Ingested,
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
