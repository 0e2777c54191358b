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

use hexrisk_engine::forecast::outcome_distribution_with;

use super::backtest::{Metrics, Scoreboard};
use super::calibration;
use super::counts::{CLASSES, WeeklyCounts};
use super::model::{self, FeatureBuilder};
use crate::inputs::ingest::Ingested;

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
    let mut board = Scoreboard::default();
    let mut coefficients = None;
    for t in start..weeks {
        let known = WeeklyCounts::known_on(ingested, Some(ingested.weeks.start_of(t)));
        let features = FeatureBuilder::new(&known, neighbours);
        // Refitted at the backtest's origins, on what was known at each.
        if (t - start) % refit_every == 0 {
            coefficients = Some(model::fit(&features, t, warmup));
        }
        let Some(fit) = &coefficients else {
            continue;
        };
        let rates = model::predict_week(&features, fit, t, t);
        let level = levels.get(t - start).copied().unwrap_or(1.0);
        let week: Vec<_> = calibration::scaled_week(&rates, level)
            .into_iter()
            .map(|r| (r, outcome_distribution_with(&r, &fit.size)))
            .collect();
        let observed: Vec<[u16; CLASSES]> = (0..complete.cells)
            .map(|cell| complete.cell_week(t, cell))
            .collect();
        board.add_week(&week, &fit.size, &observed);
    }
    Some(board.metrics())
}
