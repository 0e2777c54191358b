//! What the backtest's inputs took from its own weeks, measured: two choices made
//! from all the data rather than from the weeks before the backtest.
//!
//! - **Default hours**: each source's default-hour weights come from its whole hour
//!   histogram (`inputs/default_hours.rs`); [`DefaultHourLeak`] sets them beside the
//!   weights the weeks before the backtest alone give.
//! - **A derived grid**: a city without precinct polygons (Houston) has its grid from
//!   a hull around its busy cells over every incident; [`GridLeak`] counts the cells
//!   a grid from the incidents before the backtest would lack, and the backtest's
//!   incidents in them; [`scores_without`] scores the backtest without them.

use chrono::NaiveDate;

use hexrisk_engine::forecast::{POISSON, outcome_distribution};

use crate::fit::backtest::{BacktestRow, Metrics, Scoreboard};
use crate::inputs::boundary::grid_from_incidents;
use crate::inputs::cleaning::{Incident, SourceReport};
use crate::inputs::default_hours::{default_hour_weights, histogram};

/// One source's default-hour weights from all its rows and from those before the
/// backtest.
#[derive(Debug, Clone, PartialEq)]
pub struct DefaultHourLeak {
    /// The source.
    pub source: String,
    /// Per hour whose weight is below 1 either way: the hour, its weight from all
    /// rows and from the rows before the backtest.
    pub hours: Vec<(u8, f64, f64)>,
    /// The rows before the backtest with an hour, weighted by the weights from
    /// them alone: what the profiles fitted before the backtest should learn from.
    pub weight_before: f64,
    /// How much of that weight the weights from all rows move (the sum over those
    /// rows of the two weights' difference).
    pub moved_before: f64,
}

impl DefaultHourLeak {
    /// The largest difference between the two weights of an hour (0 without default
    /// hours).
    #[must_use]
    pub fn largest_difference(&self) -> f64 {
        self.hours
            .iter()
            .map(|&(_, all, before)| (all - before).abs())
            .fold(0.0, f64::max)
    }
}

/// Each source's default-hour weights from all its rows and from those dated before
/// `start`.
#[must_use]
pub fn default_hours<'a>(
    sources: impl IntoIterator<Item = (&'a String, &'a SourceReport)>,
    start: NaiveDate,
) -> Vec<DefaultHourLeak> {
    sources
        .into_iter()
        .map(|(source, report)| {
            let all = default_hour_weights(&report.hours);
            let counts_before = histogram(
                report
                    .dated_hours
                    .iter()
                    .filter(|&&(date, _)| date < start)
                    .map(|&(_, hour)| Some(hour)),
            );
            let before = default_hour_weights(&counts_before);
            let weighted = |f: &dyn Fn(usize) -> f64| -> f64 {
                (0..24).map(|h| counts_before[h] as f64 * f(h)).sum()
            };
            let hours = (0..24_u8)
                .zip(all.iter().zip(&before))
                .filter(|&(_, (&a, &b))| a < 1.0 || b < 1.0)
                .map(|(hour, (&a, &b))| (hour, a, b))
                .collect();
            DefaultHourLeak {
                source: source.clone(),
                hours,
                weight_before: weighted(&|h| before[h]),
                moved_before: weighted(&|h| (all[h] - before[h]).abs()),
            }
        })
        .collect()
}

/// What a derived grid took from the backtest's weeks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GridLeak {
    /// The grid's cells.
    pub cells: usize,
    /// Its cells that a grid derived from the kept incidents before the backtest
    /// would lack.
    pub missing: usize,
    /// The backtest's incidents.
    pub backtest_incidents: usize,
    /// Those in the missing cells.
    pub in_missing: usize,
    /// Per grid position, whether the grid before the backtest lacks the cell.
    pub missing_cells: Vec<bool>,
}

/// The backtest's figures of the model and of the 52-week mean (`rows` week by
/// week, each week's cells in grid order) over the cells not `missing`.
#[must_use]
pub fn scores_without(rows: &[BacktestRow], missing: &[bool]) -> [Metrics; 2] {
    let (mut model, mut mean52) = (Scoreboard::default(), Scoreboard::default());
    for week in rows.chunks(missing.len().max(1)) {
        let kept: Vec<&BacktestRow> = week
            .iter()
            .zip(missing)
            .filter(|(_, m)| !**m)
            .map(|(r, _)| r)
            .collect();
        let observed: Vec<_> = kept.iter().map(|r| r.counts).collect();
        let Some(first) = kept.first() else {
            continue;
        };
        let forecasts: Vec<_> = kept.iter().map(|r| (r.rates, r.probabilities)).collect();
        model.add_week(&forecasts, &first.dispersion, &observed);
        let baseline: Vec<_> = kept
            .iter()
            .map(|r| {
                (
                    r.baseline_rates[0],
                    outcome_distribution(&r.baseline_rates[0]),
                )
            })
            .collect();
        mean52.add_week(&baseline, &POISSON, &observed);
    }
    [model.metrics(), mean52.metrics()]
}

/// The leak of a grid derived from incidents: `cells` (sorted) against the grid the
/// kept `incidents` dated before `start` give; `None` when they give none.
#[must_use]
pub fn derived_grid(
    cells: &[h3o::CellIndex],
    incidents: &[Incident],
    start: NaiveDate,
) -> Option<GridLeak> {
    let before = grid_from_incidents(
        incidents
            .iter()
            .filter(|i| i.date < start)
            .map(|i| (i.lat, i.lng)),
    )
    .ok()?;
    let missing: Vec<bool> = cells
        .iter()
        .map(|c| before.cells.binary_search(c).is_err())
        .collect();
    let backtest: Vec<&Incident> = incidents.iter().filter(|i| i.date >= start).collect();
    Some(GridLeak {
        cells: cells.len(),
        missing: missing.iter().filter(|&&m| m).count(),
        backtest_incidents: backtest.len(),
        in_missing: backtest.iter().filter(|i| missing[i.cell]).count(),
        missing_cells: missing,
    })
}

#[cfg(test)]
mod tests;
