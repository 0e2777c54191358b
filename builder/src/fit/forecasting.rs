//! Forecasting a city's weeks: the rolling-origin backtest (the model refitted every
//! [`REFIT_EVERY`] weeks, calibrated to the recent level of its own past forecasts,
//! scored beside the baselines), the forecasts beyond the data, the span of weeks each
//! takes, and the time-of-day profiles fitted before the backtest and on all weeks.

use std::collections::BTreeMap;

use hexrisk_engine::forecast::{
    ClassRates, Dispersion, OutcomeProbabilities, POISSON, outcome_distribution,
    outcome_distribution_with,
};
use indicatif::ProgressBar;

use super::backtest::{BacktestRow, Metrics, Scoreboard, outcome};
use super::band_backtest::{self, BandBacktest};
use super::baselines;
use super::calibration::{self, LONGEST_WINDOW, LevelChoice, PastWeek};
use super::counts::{CLASSES, WeeklyCounts};
use super::model::{self, FeatureBuilder};
use super::profiles::{self, BandCounts, Profiles};
use crate::inputs::cleaning::{self, IngestError};
use crate::inputs::config::CityConfig;

/// Weeks between refits in the rolling-origin backtest.
pub const REFIT_EVERY: usize = 13;

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
pub(crate) fn backtest_span(
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

/// The three forecasters scored side by side.
#[derive(Debug, Default)]
pub(crate) struct Boards {
    pub(crate) model: Scoreboard,
    pub(crate) mean52: Scoreboard,
    pub(crate) ewma: Scoreboard,
}

impl Boards {
    /// The figures of each forecaster: `model`, `mean52`, `ewma`.
    pub(crate) fn metrics(&self) -> BTreeMap<&'static str, Metrics> {
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
pub(crate) struct Forecasts {
    pub(crate) rates: Vec<Vec<ClassRates>>,
    pub(crate) dispersion: Vec<Dispersion>,
    pub(crate) rows: Vec<BacktestRow>,
    pub(crate) boards: Boards,
    /// The recent-level factor of each backtest week.
    pub(crate) levels: Vec<f64>,
    /// The recent-level factor of the served forecasts.
    pub(crate) served_level: f64,
    /// The recent level's setting and how it was chosen.
    pub(crate) level_choice: LevelChoice,
    /// The unscored forecasts before the backtest.
    pub(crate) run_in: Vec<PastWeek>,
    /// The kernel density baseline's bandwidths and their validation hit rates at 5 %.
    pub(crate) kde_validation: Vec<(f64, f64)>,
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
pub(crate) fn forecast_range(
    city: &CityConfig,
    ingested: &cleaning::Ingested,
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
    let levels = level_choice.levels_from(&past, first_scored, weeks - start);
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
    for ((t, index), &level) in (start..weeks).zip(first_scored..).zip(&levels) {
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

/// The time-of-day profiles: the layout and shrinkage chosen before the backtest
/// weeks, the band backtest of profiles fitted before them, and the profiles fitted
/// on all `weeks` that the artifact serves.
pub(crate) fn time_of_day(
    ingested: &cleaning::Ingested,
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
