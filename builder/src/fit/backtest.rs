//! Backtest scoring: proper scores of the outcome distribution, calibration, count
//! error and hot-spot capture (PAI, PEI).

use chrono::NaiveDate;
use hexrisk_engine::CrimeClass;
use hexrisk_engine::forecast::{
    CRIME_CLASSES, ClassRates, Dispersion, OutcomeProbabilities, total_count_quantile, wins_tie,
};

use super::counts::CLASSES;

/// The observed outcome of a cell-week: the class with most incidents (ties by
/// severity, then API order), `NO_CRIME` without incidents.
#[must_use]
pub fn outcome(counts: &[u16; CLASSES]) -> CrimeClass {
    let mut best: Option<usize> = None;
    for (i, &n) in counts.iter().enumerate() {
        if n == 0 {
            continue;
        }
        best = match best {
            None => Some(i),
            Some(b)
                if n > counts[b]
                    || (n == counts[b] && wins_tie(CRIME_CLASSES[i], CRIME_CLASSES[b])) =>
            {
                Some(i)
            }
            keep => keep,
        };
    }
    best.map_or(CrimeClass::NoCrime, |i| CRIME_CLASSES[i])
}

/// One row of the backtest export.
#[derive(Debug, Clone, PartialEq)]
pub struct BacktestRow {
    /// Monday of the week.
    pub week: NaiveDate,
    /// H3 cell.
    pub cell: h3o::CellIndex,
    /// Forecast expected counts, crime class order.
    pub rates: ClassRates,
    /// Forecast probabilities, API class order.
    pub probabilities: OutcomeProbabilities,
    /// Negative binomial sizes of the forecast counts, crime class order.
    pub dispersion: Dispersion,
    /// The recent-level factor already applied to `rates` (`fit/calibration.rs`).
    pub level: f64,
    /// Observed counts, crime class order.
    pub counts: [u16; CLASSES],
    /// The baselines' expected total counts, in [`BASELINES`] order.
    pub baselines: [f64; BASELINES.len()],
    /// The expected counts per class of the baselines the backtest table scores
    /// (the 52-week mean and the EWMA, floored), crime class order.
    pub baseline_rates: [ClassRates; 2],
}

/// The baselines of the hot-spot report, as the export names their expected totals
/// (`total_<name>`): the mean of the previous 52 weeks, the EWMA, last week's count
/// and the kernel density of the last year (`fit/kde.rs`).
pub const BASELINES: [&str; 4] = ["mean52", "ewma", "last_week", "kde"];

/// Bins of the reliability table of `P(NO_CRIME)`.
pub const RELIABILITY_BINS: usize = 10;

/// Hot-spot area fractions for PAI and PEI.
pub const HOTSPOT_FRACTIONS: [f64; 2] = [0.01, 0.05];

/// One bin of the reliability table.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ReliabilityBin {
    /// Cell-weeks in the bin.
    pub count: u64,
    /// Sum of predicted `P(NO_CRIME)`.
    pub predicted: f64,
    /// Cell-weeks observed with no crime.
    pub observed: u64,
}

/// Reliability bins with at least this many cell-weeks are held to [`CALIBRATION_AIM`].
pub const CALIBRATION_MIN_CELL_WEEKS: u64 = 1000;

/// The largest gap allowed between a bin's observed frequency and mean prediction.
pub const CALIBRATION_AIM: f64 = 0.01;

/// Adds one forecast `P(NO_CRIME)` and whether its cell-week was quiet to its bin
/// (`[i/10, (i+1)/10)`, the last closed).
pub fn add_to_reliability(
    bins: &mut [ReliabilityBin; RELIABILITY_BINS],
    p_quiet: f64,
    quiet: bool,
) {
    let bin = ((p_quiet * RELIABILITY_BINS as f64) as usize).min(RELIABILITY_BINS - 1);
    let entry = &mut bins[bin];
    entry.count += 1;
    entry.predicted += p_quiet;
    entry.observed += u64::from(quiet);
}

/// The reliability table of the export rows `rows`.
pub fn reliability_of<'a>(
    rows: impl IntoIterator<Item = &'a BacktestRow>,
) -> [ReliabilityBin; RELIABILITY_BINS] {
    let mut bins = [ReliabilityBin::default(); RELIABILITY_BINS];
    let quiet = CrimeClass::NoCrime.index();
    for row in rows {
        let observed_quiet = outcome(&row.counts) == CrimeClass::NoCrime;
        add_to_reliability(&mut bins, row.probabilities[quiet], observed_quiet);
    }
    bins
}

impl ReliabilityBin {
    /// Observed frequency minus mean predicted probability (0 for an empty bin).
    #[must_use]
    pub fn gap(&self) -> f64 {
        if self.count == 0 {
            return 0.0;
        }
        (self.observed as f64 - self.predicted) / self.count as f64
    }
}

/// The largest absolute [`ReliabilityBin::gap`] over the bins holding at least
/// [`CALIBRATION_MIN_CELL_WEEKS`], if any does.
#[must_use]
pub fn largest_gap(bins: &[ReliabilityBin]) -> Option<f64> {
    bins.iter()
        .filter(|b| b.count >= CALIBRATION_MIN_CELL_WEEKS)
        .map(|b| b.gap().abs())
        .reduce(f64::max)
}

/// The proper scores of outcome forecasts, accumulated: multi-class Brier, log loss
/// of the observed outcome and Brier of `P(NO_CRIME)`.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ProperScores {
    /// Outcomes scored.
    pub n: u64,
    brier: f64,
    log_loss: f64,
    no_crime_brier: f64,
}

/// Mean proper scores.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ProperMeans {
    /// Mean multi-class Brier score (sum over the six classes).
    pub brier: f64,
    /// Mean log loss of the observed outcome.
    pub log_loss: f64,
    /// Mean Brier score of `P(NO_CRIME)`.
    pub no_crime_brier: f64,
}

impl ProperScores {
    /// Scores one forecast against the observed counts; returns the observed outcome.
    pub fn add(&mut self, p: &OutcomeProbabilities, counts: &[u16; CLASSES]) -> CrimeClass {
        let observed = outcome(counts);
        let y = observed.index();
        self.n += 1;
        self.brier += p
            .iter()
            .enumerate()
            .map(|(k, &pk)| (pk - if k == y { 1.0 } else { 0.0 }).powi(2))
            .sum::<f64>();
        self.log_loss -= p[y].max(1e-15).ln();
        let quiet = CrimeClass::NoCrime.index();
        self.no_crime_brier += (p[quiet] - f64::from(u8::from(y == quiet))).powi(2);
        observed
    }

    /// Adds another accumulation's scores.
    pub fn merge(&mut self, other: &Self) {
        self.n += other.n;
        self.brier += other.brier;
        self.log_loss += other.log_loss;
        self.no_crime_brier += other.no_crime_brier;
    }

    /// The means so far.
    #[must_use]
    pub fn means(&self) -> ProperMeans {
        let n = self.n.max(1) as f64;
        ProperMeans {
            brier: self.brier / n,
            log_loss: self.log_loss / n,
            no_crime_brier: self.no_crime_brier / n,
        }
    }
}

/// Accumulates the scores of one forecaster over a backtest.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Scoreboard {
    /// Cell-weeks scored.
    pub n: u64,
    proper: ProperScores,
    abs_error: f64,
    abs_error_median: f64,
    /// Reliability table of `P(NO_CRIME)`.
    pub reliability: [ReliabilityBin; RELIABILITY_BINS],
    hits: [f64; 2],
    best: [f64; 2],
    incidents: f64,
    hotspot_cells: [usize; 2],
    cells: usize,
}

/// Final figures of a scoreboard.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Metrics {
    /// Mean multi-class Brier score (sum over the six classes).
    pub brier: f64,
    /// Mean log loss of the observed outcome.
    pub log_loss: f64,
    /// Mean Brier score of `P(NO_CRIME)`.
    pub no_crime_brier: f64,
    /// Mean absolute error of the weekly total count per cell, forecast by its mean
    /// (the expected count).
    pub mae: f64,
    /// The same with the forecast distribution's median as the point forecast (the
    /// point forecast that absolute error rewards).
    pub mae_median: f64,
    /// Predictive accuracy index at 1% and 5% of the area.
    pub pai: [f64; 2],
    /// Predictive efficiency index at 1% and 5% of the area.
    pub pei: [f64; 2],
}

impl Scoreboard {
    /// Scores one week: per cell, the forecast rates and outcome probabilities, the
    /// count dispersion the forecaster assumes, and the observed counts.
    pub fn add_week(
        &mut self,
        forecasts: &[(ClassRates, OutcomeProbabilities)],
        dispersion: &Dispersion,
        observed: &[[u16; CLASSES]],
    ) {
        let cells = forecasts.len();
        self.cells = cells;
        for ((rates, p), counts) in forecasts.iter().zip(observed) {
            self.n += 1;
            let observed_quiet = self.proper.add(p, counts) == CrimeClass::NoCrime;
            add_to_reliability(
                &mut self.reliability,
                p[CrimeClass::NoCrime.index()],
                observed_quiet,
            );
            let total: f64 = counts.iter().map(|&c| f64::from(c)).sum();
            self.abs_error += (rates.iter().sum::<f64>() - total).abs();
            let median = f64::from(total_count_quantile(rates, dispersion, 0.5));
            self.abs_error_median += (median - total).abs();
        }
        // Hot spots: cells ranked by expected total count.
        let totals: Vec<f64> = observed
            .iter()
            .map(|c| c.iter().map(|&n| f64::from(n)).sum())
            .collect();
        let mut by_forecast: Vec<usize> = (0..cells).collect();
        by_forecast.sort_by(|&a, &b| {
            let (ra, rb): (f64, f64) = (forecasts[a].0.iter().sum(), forecasts[b].0.iter().sum());
            rb.total_cmp(&ra).then(a.cmp(&b))
        });
        let mut by_actual = totals.clone();
        by_actual.sort_by(|a, b| b.total_cmp(a));
        self.incidents += totals.iter().sum::<f64>();
        for (f, fraction) in HOTSPOT_FRACTIONS.iter().enumerate() {
            let k = ((fraction * cells as f64).round() as usize).max(1);
            self.hotspot_cells[f] = k;
            self.hits[f] += by_forecast[..k].iter().map(|&i| totals[i]).sum::<f64>();
            self.best[f] += by_actual[..k].iter().sum::<f64>();
        }
    }

    /// The figures so far.
    #[must_use]
    pub fn metrics(&self) -> Metrics {
        let n = self.n.max(1) as f64;
        let proper = self.proper.means();
        let mut pai = [f64::NAN; 2];
        let mut pei = [f64::NAN; 2];
        for f in 0..2 {
            if self.incidents > 0.0 && self.cells > 0 {
                let area = self.hotspot_cells[f] as f64 / self.cells as f64;
                pai[f] = self.hits[f] / self.incidents / area;
            }
            if self.best[f] > 0.0 {
                pei[f] = self.hits[f] / self.best[f];
            }
        }
        Metrics {
            brier: proper.brier,
            log_loss: proper.log_loss,
            no_crime_brier: proper.no_crime_brier,
            mae: self.abs_error / n,
            mae_median: self.abs_error_median / n,
            pai,
            pei,
        }
    }
}

#[cfg(test)]
mod tests;
