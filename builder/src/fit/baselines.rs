//! The baselines every forecast is judged against, from the weekly counts of the
//! weeks before the forecast week `t`: the mean of the previous 52 weeks, an
//! exponentially weighted mean, last week's count, and a kernel density of the last
//! year (`fit/kde.rs`) whose bandwidth is chosen on validation weeks.

use h3o::CellIndex;
use hexrisk_engine::forecast::ClassRates;

use super::counts::{CLASSES, WeeklyCounts};
use super::hotspots::{HotspotBoard, STABLE_FRACTION};
use super::kde::{BANDWIDTHS_M, Kde};

/// Floor on baseline rates, so a class never seen in a cell keeps a finite log loss.
pub const BASELINE_FLOOR: f64 = 1e-3;

/// Weight of the latest week in the exponentially weighted baseline.
pub const EWMA_ALPHA: f64 = 0.03;

/// The mean of the previous 52 weeks (fewer at the start of the data), floored.
#[must_use]
pub fn mean52(counts: &WeeklyCounts, cell: usize, t: usize) -> ClassRates {
    let from = t.saturating_sub(52);
    let span = (t - from).max(1) as f64;
    core::array::from_fn(|c| {
        (f64::from(counts.window(cell, c, from, t)) / span).max(BASELINE_FLOOR)
    })
}

/// Bias-corrected exponentially weighted mean of weeks `0..t`, floored.
#[must_use]
pub fn ewma(counts: &WeeklyCounts, cell: usize, t: usize) -> ClassRates {
    let decay = 1.0 - EWMA_ALPHA;
    let mut rates = [0.0; CLASSES];
    let mut weight = 1.0;
    for week in (0..t).rev() {
        let w = EWMA_ALPHA * weight;
        for (c, rate) in rates.iter_mut().enumerate() {
            *rate += w * f64::from(counts.get(week, cell, c));
        }
        weight *= decay;
        if weight < 1e-9 {
            break;
        }
    }
    let norm = 1.0 - weight;
    rates.map(|r| {
        if norm > 0.0 {
            (r / norm).max(BASELINE_FLOOR)
        } else {
            BASELINE_FLOOR
        }
    })
}

/// Every cell's count of all classes in week `t − 1` (none before the data).
#[must_use]
pub fn last_week(counts: &WeeklyCounts, t: usize) -> Vec<f64> {
    (0..counts.cells)
        .map(|cell| match t.checked_sub(1) {
            Some(week) => (0..CLASSES)
                .map(|c| f64::from(counts.get(week, cell, c)))
                .sum(),
            None => 0.0,
        })
        .collect()
}

/// Every cell's mean weekly count of all classes over the previous 52 weeks, unfloored.
#[must_use]
pub fn year_means(counts: &WeeklyCounts, t: usize) -> Vec<f64> {
    let from = t.saturating_sub(52);
    let span = (t - from).max(1) as f64;
    (0..counts.cells)
        .map(|cell| {
            (0..CLASSES)
                .map(|c| f64::from(counts.window(cell, c, from, t)))
                .sum::<f64>()
                / span
        })
        .collect()
}

/// Every cell's observed count of all classes in week `t`.
#[must_use]
pub fn observed_totals(counts: &WeeklyCounts, t: usize) -> Vec<f64> {
    (0..counts.cells)
        .map(|cell| {
            (0..CLASSES)
                .map(|c| f64::from(counts.get(t, cell, c)))
                .sum()
        })
        .collect()
}

/// The kernel density baseline's bandwidth chosen on `validation` weeks: the highest
/// hit rate at 5 % of the area (the smaller bandwidth on a tie), with every
/// bandwidth's hit rate.
#[must_use]
pub fn choose_kde(
    cells: &[CellIndex],
    counts: &WeeklyCounts,
    validation: std::ops::Range<usize>,
) -> (Kde, Vec<(f64, f64)>) {
    // Each validation week's inputs once, for every bandwidth.
    let weeks: Vec<(Vec<f64>, Vec<f64>)> = validation
        .map(|t| (year_means(counts, t), observed_totals(counts, t)))
        .collect();
    let mut tried: Vec<(Kde, f64)> = BANDWIDTHS_M
        .iter()
        .map(|&bandwidth| {
            let kde = Kde::new(cells, bandwidth);
            let mut board = HotspotBoard::default();
            for (means, observed) in &weeks {
                board.add_week(&kde.density(means), observed);
            }
            let hit_rate = board.figures().hit_rate[STABLE_FRACTION];
            (kde, hit_rate)
        })
        .collect();
    let rates = tried.iter().map(|(k, r)| (k.bandwidth_m, *r)).collect();
    let best = (0..tried.len()).fold(
        0,
        |best, i| if tried[i].1 > tried[best].1 { i } else { best },
    );
    (tried.swap_remove(best).0, rates)
}
