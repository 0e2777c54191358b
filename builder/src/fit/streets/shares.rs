//! Each way's share of its cell's incidents, learnt from the incidents attributed
//! to the ways (`attribution.rs`) and shrunk towards the share its length
//! alone would give:
//!
//! ```text
//! share_w = (n_w + k · ℓ_w / L_c) / (N_c + k)
//! ```
//!
//! where `n_w` is the way's attributed count over the history, `N_c` the sum of
//! `n_w` over the ways of its cell `c`, `ℓ_w` its length and `L_c` the length of
//! the cell's ways. The shares of a cell's ways sum to 1. `k` (in incidents) is
//! chosen from [`SHRINKAGE_GRID`] on validation weeks only: the
//! [`VALIDATION_WEEKS`] weeks before the first backtest week (at most half of the
//! weeks before it, so that the history is never shorter than the validation),
//! with shares learnt from the weeks before those; the criterion is the
//! within-cell cross-entropy of the validation incidents' ways,
//! `−Σ n_w^val ln share_w / Σ n_w^val` (lower is better).

use std::ops::Range;

use super::attribution::Piece;
use super::network::StreetNetwork;

/// The shrinkage strengths `k` tried, in incidents.
pub const SHRINKAGE_GRID: [f64; 10] = [0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0];

/// Validation weeks before the backtest, when the data has twice as many.
pub const VALIDATION_WEEKS: usize = 52;

/// One group's attributed incident counts per way, week by week.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WayCounts {
    /// Per modelled week: `(way, count)` for each way with a non-zero count, in
    /// way order (a count is a sum of fractions of incidents).
    pub weeks: Vec<Vec<(u32, f64)>>,
}

impl WayCounts {
    /// The counts of `weeks` weeks from the pieces of incidents given with their
    /// week index; pieces of a week outside `0..weeks` are dropped.
    #[must_use]
    pub fn collect<'a>(
        weeks: usize,
        incidents: impl IntoIterator<Item = (usize, &'a [Piece])>,
    ) -> Self {
        let mut raw: Vec<Vec<(u32, f64)>> = vec![Vec::new(); weeks];
        for (week, pieces) in incidents {
            if let Some(list) = raw.get_mut(week) {
                list.extend(pieces.iter().map(|p| (p.way, p.fraction)));
            }
        }
        for list in &mut raw {
            // A stable sort keeps the incidents' order within a way, so the sums
            // below are the same on every run.
            list.sort_by_key(|&(way, _)| way);
            let mut merged: Vec<(u32, f64)> = Vec::with_capacity(list.len());
            for &(way, n) in list.iter() {
                match merged.last_mut() {
                    Some((last, sum)) if *last == way => *sum += n,
                    _ => merged.push((way, n)),
                }
            }
            *list = merged;
        }
        Self { weeks: raw }
    }

    /// The weeks of `weeks` that there are counts for: a range reaching past the
    /// last week stops at it.
    fn weeks_in(&self, weeks: Range<usize>) -> &[Vec<(u32, f64)>] {
        let end = weeks.end.min(self.weeks.len());
        &self.weeks[weeks.start.min(end)..end]
    }

    /// Adds the counts of `weeks` to the per-way totals `into`.
    pub fn add_into(&self, weeks: Range<usize>, into: &mut [f64]) {
        for week in self.weeks_in(weeks) {
            for &(way, n) in week {
                if let Some(total) = into.get_mut(way as usize) {
                    *total += n;
                }
            }
        }
    }

    /// The per-way totals over `weeks`, for `ways` ways.
    #[must_use]
    pub fn totals(&self, weeks: Range<usize>, ways: usize) -> Vec<f64> {
        let mut totals = vec![0.0; ways];
        self.add_into(weeks, &mut totals);
        totals
    }

    /// The total count of `weeks`.
    #[must_use]
    pub fn total(&self, weeks: Range<usize>) -> f64 {
        self.weeks_in(weeks).iter().flatten().map(|&(_, n)| n).sum()
    }
}

/// Every way's share of its cell (0 for a way assigned to no cell), from the
/// history counts `history` (one per way) and the shrinkage `k`.
#[must_use]
pub fn shares(network: &StreetNetwork, history: &[f64], k: f64) -> Vec<f64> {
    let mut cell_count = vec![0.0; network.cell_length_m.len()];
    for (way, cell) in network.assigned() {
        cell_count[cell] += history.get(way).copied().unwrap_or(0.0);
    }
    let mut out = vec![0.0; network.way_count()];
    for (way, cell) in network.assigned() {
        let n = history.get(way).copied().unwrap_or(0.0);
        let prior = network.way_length_m[way] / network.cell_length_m[cell];
        out[way] = (n + k * prior) / (cell_count[cell] + k);
    }
    out
}

/// `−Σ n_w ln share_w / Σ n_w` over the ways with a count in `validation`; `NaN`
/// without any.
#[must_use]
pub fn cross_entropy(shares: &[f64], validation: &[f64]) -> f64 {
    let (mut loss, mut total) = (0.0, 0.0);
    for (&n, &share) in validation.iter().zip(shares) {
        if n > 0.0 {
            loss -= n * share.ln();
            total += n;
        }
    }
    if total > 0.0 { loss / total } else { f64::NAN }
}

/// The shrinkage chosen for one group, with what it was chosen on.
#[derive(Debug, Clone, PartialEq)]
pub struct ShrinkageChoice {
    /// The chosen `k`.
    pub k: f64,
    /// The history weeks the validation shares were learnt from.
    pub history: Range<usize>,
    /// The validation weeks.
    pub validation: Range<usize>,
    /// The attributed incidents of the history weeks.
    pub history_incidents: f64,
    /// The attributed incidents of the validation weeks.
    pub validation_incidents: f64,
    /// The cross-entropy of each `k` of [`SHRINKAGE_GRID`], in its order.
    pub cross_entropy: Vec<f64>,
}

/// The validation weeks before backtest week `start`: the last
/// `min(VALIDATION_WEEKS, start / 2)` weeks before it.
#[must_use]
pub fn validation_weeks(start: usize) -> Range<usize> {
    start - VALIDATION_WEEKS.min(start / 2)..start
}

/// Chooses `k` for a group from its counts, the backtest starting at week `start`:
/// the lowest cross-entropy, the smaller `k` on a tie. Without a validation
/// incident every `k` scores alike and the largest (the length-proportional
/// shares) is taken.
#[must_use]
pub fn choose_shrinkage(
    network: &StreetNetwork,
    counts: &WayCounts,
    start: usize,
) -> ShrinkageChoice {
    let validation = validation_weeks(start);
    let history = 0..validation.start;
    let learnt = counts.totals(history.clone(), network.way_count());
    let observed = counts.totals(validation.clone(), network.way_count());
    let scores: Vec<f64> = SHRINKAGE_GRID
        .iter()
        .map(|&k| cross_entropy(&shares(network, &learnt, k), &observed))
        .collect();
    let mut best: Option<(f64, f64)> = None;
    for (&k, &score) in SHRINKAGE_GRID.iter().zip(&scores) {
        if !score.is_nan() && best.is_none_or(|(_, lowest)| score < lowest) {
            best = Some((k, score));
        }
    }
    ShrinkageChoice {
        k: best.map_or(SHRINKAGE_GRID[SHRINKAGE_GRID.len() - 1], |(k, _)| k),
        history_incidents: counts.total(history.clone()),
        validation_incidents: counts.total(validation.clone()),
        history,
        validation,
        cross_entropy: scores,
    }
}

#[cfg(test)]
mod tests;
