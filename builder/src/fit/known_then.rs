//! The backtest as known then: each backtest week forecast only from the incidents
//! reported before it began, as a live forecast would have been, and scored
//! against every incident of the week, however late reported. Beside the
//! backtest as if complete (`forecasting.rs`), the difference is the cost of
//! late reports. Only sources that publish a report time can be judged this way;
//! for a city without any, there is nothing to compute.
//!
//! The model is refitted at the same origins as the backtest, each fit on the
//! incidents known at its origin; each week's features use the incidents known
//! when it began; its rates are scaled by the same recent level as the backtest's
//! week, so that the two runs differ only in the data they saw.

use hexrisk_engine::forecast::{
    ClassRates, Dispersion, OutcomeProbabilities, outcome_distribution_with,
};
use rayon::prelude::*;

use super::backtest::{Metrics, Scoreboard};
use super::calibration;
use super::counts::{CLASSES, WeeklyCounts};
use super::model::{self, FeatureBuilder};
use crate::inputs::cleaning::Ingested;

/// One week of the backtest as known then: each cell's rates and outcome
/// probabilities, the fit's sizes, and each cell's observed counts.
type ScoredWeek = (
    Vec<(ClassRates, OutcomeProbabilities)>,
    Dispersion,
    Vec<[u16; CLASSES]>,
);

/// The model's backtest figures as known then, over weeks `start..`, refitted
/// every `refit_every` weeks with the backtest's recent-level factors `levels`
/// (one per week); `None` when no incident has a report date.
#[must_use]
pub fn known_then(
    ingested: &Ingested,
    neighbours: &[Vec<usize>],
    complete: &WeeklyCounts,
    (start, warmup, refit_every): (usize, usize, usize),
    levels: &[f64],
) -> Option<Metrics> {
    if ingested.incidents.iter().all(|i| i.reported.is_none()) {
        return None;
    }
    let weeks = complete.weeks;
    // Each refit's block of weeks depends on nothing of another's: the blocks run
    // side by side, and their weeks are scored in order after.
    let origins: Vec<usize> = (start..weeks).step_by(refit_every.max(1)).collect();
    let blocks: Vec<Vec<ScoredWeek>> = origins
        .par_iter()
        .map(|&origin| {
            let mut fit = None;
            (origin..(origin + refit_every.max(1)).min(weeks))
                .map(|t| {
                    let known = WeeklyCounts::known_on(ingested, Some(ingested.weeks.start_of(t)));
                    let features = FeatureBuilder::new(&known, neighbours);
                    // Refitted at the backtest's origins, on what was known at each.
                    let fit = fit.get_or_insert_with(|| model::fit(&features, t, warmup));
                    let rates = model::predict_week(&features, fit, t, t);
                    let level = levels.get(t - start).copied().unwrap_or(1.0);
                    let week: Vec<_> = calibration::scaled_week(&rates, level)
                        .into_iter()
                        .map(|r| (r, outcome_distribution_with(&r, &fit.size)))
                        .collect();
                    let observed: Vec<[u16; CLASSES]> = (0..complete.cells)
                        .map(|cell| complete.cell_week(t, cell))
                        .collect();
                    (week, fit.size, observed)
                })
                .collect()
        })
        .collect();
    let mut board = Scoreboard::default();
    for (week, size, observed) in blocks.iter().flatten() {
        board.add_week(week, size, observed);
    }
    Some(board.metrics())
}
