//! The weekly rate model: a Poisson regression per crime class on features that use
//! only weeks before the forecast week.
//!
//! For cell `i`, class `c` and target week `t`, with data up to week `s ≤ t`
//! (`s = t` in the backtest, the end of the data for true forecasts), the
//! [`FEATURES`] features of [`FeatureBuilder::row`], named in [`FEATURE_NAMES`] (the
//! model card's feature table, which a test checks against the row), with the
//! [`OFFSET`] `a` of `ln(a + mean)`. `λ = exp(β · x)`, fitted by Newton–Raphson on the
//! Poisson log-likelihood with a [`RIDGE`] penalty, refitted at every rolling origin
//! on at most the [`TRAINING_WEEKS`] weeks before it ([`fit`]).

use h3o::CellIndex;
use hexrisk_engine::forecast::ClassRates;

use super::counts::{CLASSES, WeeklyCounts};

/// Features per row, intercept included.
pub const FEATURES: usize = 14;

/// Weeks of history a fit uses (the most recent before its origin).
pub const TRAINING_WEEKS: usize = 104;

/// Ridge penalty on the non-intercept coefficients.
pub const RIDGE: f64 = 1.0;

/// The `a` of `ln(a + mean)` in the count features.
pub const OFFSET: f64 = 0.003;

/// What each feature of [`FeatureBuilder::row`] is, in its order: the model card's
/// feature table (a test checks each against the row).
pub const FEATURE_NAMES: [&str; FEATURES] = [
    "intercept",
    "`ln(a + m)`, `m` the cell's long-run mean weekly count of the class (every week before)",
    "`ln(a + m)` over the last 4 weeks",
    "`ln(a + m)` over the last 13 weeks",
    "`ln(a + m)` over the last 52 weeks",
    "`ln(a + m)`, `m` the cell's 13-week mean count of all classes together",
    "`ln(a + m)`, `m` the long-run mean over the cell's ring-1 neighbours",
    "`ln(a + m)`, `m` the 13-week mean over the ring-1 neighbours",
    "`ln S`: city-wide seasonality, `Σ_k m(t − 52k − 2 ..= t − 52k + 2) / Σ_k m(t − 52k − 26 ..= t − 52k + 25)` over the earlier years `k`, `m` the class's mean weekly count over those weeks (only weeks before the data's end); 1 without a year of history",
    "`ln T`: city-wide trend, `(m₈ + 1) / (m₅₂ + 1)`, `m₈` and `m₅₂` the class's mean weekly count over its last 8 and 52 weeks",
    "`ln(a + n)`, `n` the cell's count last week (a 1-week lag)",
    "`ln T₂`: short city-wide trend, `(m₂ + 1) / (m₅₂ + 1)` over the last 2 and 52 weeks",
    "`ln(a + e)`, `e` the cell's exponentially weighted mean with α = 0.03 per week",
    "`ln(a + e)`, `e` the same with α = 0.15 per week",
];

/// Ring-1 neighbours of every cell that are themselves in the grid.
#[must_use]
pub fn neighbours(cells: &[CellIndex]) -> Vec<Vec<usize>> {
    cells
        .iter()
        .map(|cell| {
            cell.grid_disk::<Vec<_>>(1)
                .into_iter()
                .filter(|n| n != cell)
                .filter_map(|n| cells.binary_search(&n).ok())
                .collect()
        })
        .collect()
}

/// Decay rates of the exponentially weighted mean features (per week); the last two
/// entries of [`FEATURE_NAMES`] name them.
pub const EWMA_ALPHAS: [f64; 2] = [0.03, 0.15];

/// Computes feature rows from weekly counts.
pub struct FeatureBuilder<'a> {
    counts: &'a WeeklyCounts,
    neighbours: &'a [Vec<usize>],
    /// `ewma[a][(t * cells + cell) * CLASSES + class]`: bias-corrected exponentially
    /// weighted mean of weeks `0..t` with decay `EWMA_ALPHAS[a]`.
    ewma: [Vec<f64>; 2],
}

fn ewma_table(counts: &WeeklyCounts, alpha: f64) -> Vec<f64> {
    let stride = counts.cells * CLASSES;
    let mut table = vec![0.0; (counts.weeks + 1) * stride];
    let mut numerator = vec![0.0; stride];
    let mut denominator = 0.0;
    for t in 0..counts.weeks {
        denominator = (1.0 - alpha) * denominator + alpha;
        for cell in 0..counts.cells {
            for class in 0..CLASSES {
                let k = cell * CLASSES + class;
                numerator[k] =
                    (1.0 - alpha) * numerator[k] + alpha * f64::from(counts.get(t, cell, class));
                table[(t + 1) * stride + k] = numerator[k] / denominator;
            }
        }
    }
    table
}

fn mean(count: u32, weeks: usize) -> f64 {
    if weeks == 0 {
        0.0
    } else {
        f64::from(count) / weeks as f64
    }
}

impl<'a> FeatureBuilder<'a> {
    /// A builder over `counts` with the grid's `neighbours`.
    #[must_use]
    pub fn new(counts: &'a WeeklyCounts, neighbours: &'a [Vec<usize>]) -> Self {
        let ewma = EWMA_ALPHAS.map(|alpha| ewma_table(counts, alpha));
        Self {
            counts,
            neighbours,
            ewma,
        }
    }

    fn ewma(&self, which: usize, cell: usize, class: usize, asof: usize) -> f64 {
        let asof = asof.min(self.counts.weeks);
        self.ewma[which][(asof * self.counts.cells + cell) * CLASSES + class]
    }

    fn cell_mean(&self, cell: usize, class: usize, asof: usize, span: usize) -> f64 {
        let from = asof.saturating_sub(span);
        mean(self.counts.window(cell, class, from, asof), asof - from)
    }

    fn neighbour_mean(&self, cell: usize, class: usize, asof: usize, span: usize) -> f64 {
        let list = &self.neighbours[cell];
        if list.is_empty() {
            return self.cell_mean(cell, class, asof, span);
        }
        list.iter()
            .map(|&n| self.cell_mean(n, class, asof, span))
            .sum::<f64>()
            / list.len() as f64
    }

    /// City-level seasonal factor of `class` for target week `target`, from data before `asof`.
    #[must_use]
    pub fn seasonal(&self, class: usize, target: usize, asof: usize) -> f64 {
        let (mut window, mut baseline) = (0.0, 0.0);
        let mut k = 1;
        while 52 * k <= target {
            let centre = target - 52 * k;
            let (lo, hi) = (centre.saturating_sub(2), (centre + 3).min(asof));
            let (year_lo, year_hi) = (centre.saturating_sub(26), (centre + 26).min(asof));
            if hi > lo && year_hi > year_lo {
                window += mean(self.counts.city_window(class, lo, hi), hi - lo);
                baseline += mean(
                    self.counts.city_window(class, year_lo, year_hi),
                    year_hi - year_lo,
                );
            }
            k += 1;
        }
        if window > 0.0 && baseline > 0.0 {
            window / baseline
        } else {
            1.0
        }
    }

    /// City-level trend of `class`: mean of the last `span` weeks over the last 52, before `asof`.
    #[must_use]
    pub fn trend(&self, class: usize, asof: usize, span: usize) -> f64 {
        let recent = mean(
            self.counts
                .city_window(class, asof.saturating_sub(span), asof),
            asof.min(span),
        );
        let year = mean(
            self.counts
                .city_window(class, asof.saturating_sub(52), asof),
            asof.min(52),
        );
        (recent + 1.0) / (year + 1.0)
    }

    /// The feature row of `cell` and `class` using data before `asof`; the target
    /// week enters through `city` (its seasonal term).
    #[must_use]
    pub fn row(&self, cell: usize, class: usize, asof: usize, city: &CityTerms) -> [f64; FEATURES] {
        let all13: f64 = (0..CLASSES)
            .map(|c| self.cell_mean(cell, c, asof, 13))
            .sum();
        [
            1.0,
            (OFFSET + self.cell_mean(cell, class, asof, asof)).ln(),
            (OFFSET + self.cell_mean(cell, class, asof, 4)).ln(),
            (OFFSET + self.cell_mean(cell, class, asof, 13)).ln(),
            (OFFSET + self.cell_mean(cell, class, asof, 52)).ln(),
            (OFFSET + all13).ln(),
            (OFFSET + self.neighbour_mean(cell, class, asof, asof)).ln(),
            (OFFSET + self.neighbour_mean(cell, class, asof, 13)).ln(),
            city.seasonal[class].ln(),
            city.trend[class].ln(),
            (OFFSET + self.cell_mean(cell, class, asof, 1)).ln(),
            city.short_trend[class].ln(),
            (OFFSET + self.ewma(0, cell, class, asof)).ln(),
            (OFFSET + self.ewma(1, cell, class, asof)).ln(),
        ]
    }

    /// City-level terms for a target week.
    #[must_use]
    pub fn city_terms(&self, target: usize, asof: usize) -> CityTerms {
        let mut terms = CityTerms {
            seasonal: [1.0; CLASSES],
            trend: [1.0; CLASSES],
            short_trend: [1.0; CLASSES],
        };
        for class in 0..CLASSES {
            terms.seasonal[class] = self.seasonal(class, target, asof);
            terms.trend[class] = self.trend(class, asof, 8);
            terms.short_trend[class] = self.trend(class, asof, 2);
        }
        terms
    }
}

/// City-wide terms shared by every cell for one target week.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CityTerms {
    /// Seasonal factor per class.
    pub seasonal: [f64; CLASSES],
    /// Trend factor per class (8 weeks against 52).
    pub trend: [f64; CLASSES],
    /// Short trend factor per class (2 weeks against 52).
    pub short_trend: [f64; CLASSES],
}

/// Fitted coefficients, one vector per class, and the negative binomial size of
/// each class's counts around the fitted rates.
#[derive(Debug, Clone, PartialEq)]
pub struct Coefficients {
    /// Regression coefficients per class.
    pub beta: [[f64; FEATURES]; CLASSES],
    /// Negative binomial size per class (larger is closer to Poisson).
    pub size: [f64; CLASSES],
}

impl Coefficients {
    /// Expected count for a feature row of `class`.
    #[must_use]
    pub fn rate(&self, class: usize, row: &[f64; FEATURES]) -> f64 {
        let eta: f64 = self.beta[class].iter().zip(row).map(|(b, x)| b * x).sum();
        eta.clamp(-30.0, 10.0).exp()
    }
}

/// Range searched for the negative binomial size.
pub const SIZE_RANGE: (f64, f64) = (0.05, 1000.0);

/// Negative binomial log-likelihood of counts `ys` with means `mus` and size `r`
/// (terms constant in `r` dropped).
fn nb_log_likelihood(mus: &[f64], ys: &[f64], r: f64) -> f64 {
    let lgamma_r = libm::lgamma(r);
    mus.iter()
        .zip(ys)
        .map(|(&mu, &y)| {
            libm::lgamma(y + r) - lgamma_r + r * (r / (r + mu)).ln() + y * (mu / (r + mu)).ln()
        })
        .sum()
}

/// The size maximising the negative binomial likelihood, by golden-section search on
/// `ln r` over [`SIZE_RANGE`].
#[must_use]
pub fn fit_size(mus: &[f64], ys: &[f64]) -> f64 {
    let ln_size = super::golden_section::maximise(
        |x| nb_log_likelihood(mus, ys, x.exp()),
        (SIZE_RANGE.0.ln(), SIZE_RANGE.1.ln()),
        40,
    );
    ln_size.exp()
}

/// Solves `A x = b` for a symmetric positive definite `A` by Cholesky decomposition.
/// Returns `None` when `A` is not positive definite.
#[must_use]
#[allow(clippy::many_single_char_names, clippy::needless_range_loop)] // textbook notation
pub fn cholesky_solve(
    a: &[[f64; FEATURES]; FEATURES],
    b: &[f64; FEATURES],
) -> Option<[f64; FEATURES]> {
    let mut l = [[0.0; FEATURES]; FEATURES];
    for i in 0..FEATURES {
        for j in 0..=i {
            let sum: f64 = (0..j).map(|k| l[i][k] * l[j][k]).sum();
            if i == j {
                let d = a[i][i] - sum;
                if d <= 0.0 || !d.is_finite() {
                    return None;
                }
                l[i][j] = d.sqrt();
            } else {
                l[i][j] = (a[i][j] - sum) / l[j][j];
            }
        }
    }
    let mut y = [0.0; FEATURES];
    for i in 0..FEATURES {
        y[i] = (b[i] - (0..i).map(|k| l[i][k] * y[k]).sum::<f64>()) / l[i][i];
    }
    let mut x = [0.0; FEATURES];
    for i in (0..FEATURES).rev() {
        x[i] = (y[i] - (i + 1..FEATURES).map(|k| l[k][i] * x[k]).sum::<f64>()) / l[i][i];
    }
    Some(x)
}

/// Fits one class's Poisson regression on `(row, count)` pairs.
#[must_use]
#[allow(clippy::needless_range_loop)] // symmetric matrix fill reads clearer with indices
pub fn fit_poisson(rows: &[[f64; FEATURES]], counts: &[f64]) -> [f64; FEATURES] {
    let n = rows.len().max(1) as f64;
    let mean = counts.iter().sum::<f64>() / n;
    let mut beta = [0.0; FEATURES];
    beta[0] = (mean.max(1e-6)).ln();
    for _ in 0..25 {
        let mut hessian = [[0.0; FEATURES]; FEATURES];
        let mut gradient = [0.0; FEATURES];
        for (row, &y) in rows.iter().zip(counts) {
            let eta: f64 = beta.iter().zip(row).map(|(b, x)| b * x).sum();
            let mu = eta.clamp(-30.0, 10.0).exp();
            for i in 0..FEATURES {
                gradient[i] += (y - mu) * row[i];
                let w = mu * row[i];
                for j in 0..=i {
                    hessian[i][j] += w * row[j];
                }
            }
        }
        for i in 0..FEATURES {
            for j in 0..i {
                hessian[j][i] = hessian[i][j];
            }
            if i > 0 {
                hessian[i][i] += RIDGE;
                gradient[i] -= RIDGE * beta[i];
            }
        }
        let Some(step) = cholesky_solve(&hessian, &gradient) else {
            break;
        };
        let mut largest: f64 = 0.0;
        for (b, s) in beta.iter_mut().zip(step) {
            *b += s;
            largest = largest.max(s.abs());
        }
        if largest < 1e-8 {
            break;
        }
    }
    beta
}

/// The training targets of a fit at `origin`: weeks `max(origin − TRAINING_WEEKS,
/// warmup) .. origin`.
#[must_use]
pub fn training_weeks(origin: usize, warmup: usize) -> std::ops::Range<usize> {
    origin.saturating_sub(TRAINING_WEEKS).max(warmup)..origin
}

/// Fits all classes at an origin: training targets are the [`training_weeks`], each
/// from its own past.
#[must_use]
pub fn fit(features: &FeatureBuilder<'_>, origin: usize, warmup: usize) -> Coefficients {
    let counts = features.counts;
    let first = training_weeks(origin, warmup).start;
    let city_terms: Vec<CityTerms> = (first..origin).map(|t| features.city_terms(t, t)).collect();
    let classes: Vec<([f64; FEATURES], f64)> = {
        use rayon::prelude::*;
        (0..CLASSES)
            .into_par_iter()
            .map(|class| {
                let mut rows = Vec::with_capacity((origin - first) * counts.cells);
                let mut ys = Vec::with_capacity(rows.capacity());
                for (t, terms) in (first..origin).zip(&city_terms) {
                    for cell in 0..counts.cells {
                        rows.push(features.row(cell, class, t, terms));
                        ys.push(f64::from(counts.get(t, cell, class)));
                    }
                }
                let beta = fit_poisson(&rows, &ys);
                let mus: Vec<f64> = rows
                    .iter()
                    .map(|row| {
                        let eta: f64 = beta.iter().zip(row).map(|(b, x)| b * x).sum();
                        eta.clamp(-30.0, 10.0).exp()
                    })
                    .collect();
                (beta, fit_size(&mus, &ys))
            })
            .collect()
    };
    Coefficients {
        beta: core::array::from_fn(|c| classes[c].0),
        size: core::array::from_fn(|c| classes[c].1),
    }
}

/// Expected counts of every cell for target week `target` with data before `asof`.
#[must_use]
pub fn predict_week(
    features: &FeatureBuilder<'_>,
    coefficients: &Coefficients,
    target: usize,
    asof: usize,
) -> Vec<ClassRates> {
    let terms = features.city_terms(target, asof);
    (0..features.counts.cells)
        .map(|cell| {
            let mut rates = [0.0; CLASSES];
            for (class, rate) in rates.iter_mut().enumerate() {
                *rate = coefficients.rate(class, &features.row(cell, class, asof, &terms));
            }
            rates
        })
        .collect()
}

#[cfg(test)]
mod tests;
