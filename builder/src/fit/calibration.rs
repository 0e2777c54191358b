//! Recent-level calibration of the weekly forecasts, and the choice of its setting
//! on validation weeks.
//!
//! The regression is fitted once every 13 weeks on two years, so when a city's crime
//! level moves (Toronto's fell in 2020) its forecasts lag behind it, and its
//! `P(NO_CRIME)` comes out too low in every reliability bin. Each week's rates of every
//! class are therefore multiplied by one factor per city: the factor that, applied to
//! the model's own forecasts of the previous weeks (a [`LevelSetting::window`]), gives
//! their observed quiet cell-weeks (no incident of any class) the highest likelihood
//! under a normal prior on its logarithm. Those forecasts were each made before their
//! week, so the factor uses nothing of the week it corrects.
//!
//! The window and the prior are chosen per city ([`choose`]) from [`WINDOW_GRID`] ×
//! [`PRIOR_SD_GRID`] on validation weeks, the first half of the backtest, by the log
//! loss of `P(NO_CRIME)` there; the other half is held out and judges the choice.

use std::ops::Range;

use hexrisk_engine::forecast::{ClassRates, Dispersion};
use rayon::prelude::*;

/// Windows tried, in weeks of the model's own past forecasts.
pub const WINDOW_GRID: [usize; 5] = [4, 6, 8, 13, 26];

/// Standard deviations of the normal prior on the factor's logarithm tried.
pub const PRIOR_SD_GRID: [f64; 4] = [0.05, 0.1, 0.2, 0.4];

/// The longest window of [`WINDOW_GRID`]: the weeks before the backtest forecast
/// (unscored) so that its first week has a full window under every setting.
pub const LONGEST_WINDOW: usize = 26;

/// Fewer past weeks than this leave the forecasts as the regression gives them.
pub const LEVEL_MIN_WEEKS: usize = 4;

/// Range searched for the factor.
pub const LEVEL_RANGE: (f64, f64) = (0.25, 4.0);

/// A log-probability is floored here, so that one impossible outcome cannot swamp a
/// likelihood or a log loss.
const LOG_FLOOR: f64 = -30.0;

/// A setting of the recent level.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LevelSetting {
    /// Past weeks the factor is fitted on.
    pub window: usize,
    /// Standard deviation of the normal prior on the factor's logarithm.
    pub prior_sd: f64,
}

impl LevelSetting {
    /// Every setting tried, windows in order, each with every prior in order.
    pub fn grid() -> impl Iterator<Item = Self> {
        WINDOW_GRID.into_iter().flat_map(|window| {
            PRIOR_SD_GRID
                .into_iter()
                .map(move |prior_sd| Self { window, prior_sd })
        })
    }

    /// The factor for the week after `weeks[..end]`, from the last [`Self::window`]
    /// of them: 1 with fewer than [`LEVEL_MIN_WEEKS`].
    ///
    /// It maximises the posterior of the factor's logarithm `u` by Newton's method
    /// on its slope, kept inside a bracket that each slope's sign narrows (a step
    /// leaving the bracket, or where the curvature is not negative, bisects it):
    /// about six evaluations of the weeks' slopes where a golden-section search took
    /// forty of their likelihood.
    #[must_use]
    pub fn level_after(&self, weeks: &[PastWeek], end: usize) -> f64 {
        let recent = &weeks[end.saturating_sub(self.window)..end];
        if recent.len() < LEVEL_MIN_WEEKS {
            return 1.0;
        }
        let precision = (self.prior_sd * self.prior_sd).recip();
        let (mut lo, mut hi) = (LEVEL_RANGE.0.ln(), LEVEL_RANGE.1.ln());
        let mut u = 0.0_f64.clamp(lo, hi);
        for _ in 0..MAX_LEVEL_STEPS {
            let level = u.exp();
            let (mut slope, mut curvature) = recent.iter().fold((0.0, 0.0), |(d1, d2), week| {
                let (s, c) = week.slopes(level);
                (d1 + s, d2 + c)
            });
            // A normal prior on the log factor: a small city's few quiet cell-weeks
            // cannot move it far.
            slope -= u * precision;
            curvature -= precision;
            if slope > 0.0 {
                lo = u;
            } else {
                hi = u;
            }
            let newton = u - slope / curvature;
            let next = if curvature < 0.0 && newton > lo && newton < hi {
                newton
            } else {
                f64::midpoint(lo, hi)
            };
            let step = next - u;
            u = next;
            if step.abs() < LEVEL_TOLERANCE {
                break;
            }
        }
        u.exp()
    }
}

/// The most Newton steps of [`LevelSetting::level_after`]: the bisections alone
/// narrow the bracket below [`LEVEL_TOLERANCE`] well within them.
const MAX_LEVEL_STEPS: usize = 80;

/// The step in the factor's logarithm below which [`LevelSetting::level_after`] stops.
const LEVEL_TOLERANCE: f64 = 1e-10;

/// One past week: its forecast rates before calibration, their sizes, and which cells
/// were quiet.
#[derive(Debug, Clone, PartialEq)]
pub struct PastWeek {
    /// Every cell's uncalibrated rates.
    pub rates: Vec<ClassRates>,
    /// The negative binomial sizes of the week's fit.
    pub dispersion: Dispersion,
    /// Whether each cell had no incident.
    pub quiet: Vec<bool>,
}

impl PastWeek {
    /// The log-likelihood of the week's quiet and busy cells with every rate
    /// multiplied by `level`.
    #[must_use]
    pub fn log_likelihood(&self, level: f64) -> f64 {
        self.rates
            .iter()
            .zip(&self.quiet)
            .map(|(rates, &quiet)| {
                // In logs: one ln_1p a class, and no exp unless the cell was busy.
                let ln_p = ln_quiet_probability(rates, &self.dispersion, level);
                if quiet { ln_p } else { (-ln_p.exp_m1()).ln() }.max(LOG_FLOOR)
            })
            .sum()
    }

    /// The first and second derivatives of [`Self::log_likelihood`] in the logarithm
    /// of `level`: what Newton's method needs. A cell the likelihood's floor holds is
    /// flat. With `g` a cell's log quiet probability and `g'`, `g''` its derivatives,
    /// a quiet cell adds `g'` and `g''`; a busy one, whose term is `ln(1 − e^g)`, adds
    /// `−q g' / (1 − q)` and `−q (g'' (1 − q) + g'²) / (1 − q)²` with `q = e^g`.
    #[must_use]
    pub fn slopes(&self, level: f64) -> (f64, f64) {
        let (mut slope, mut curvature) = (0.0, 0.0);
        for (rates, &quiet) in self.rates.iter().zip(&self.quiet) {
            let (mut g, mut g1, mut g2) = (0.0, 0.0, 0.0);
            for (&rate, &size) in rates.iter().zip(&self.dispersion) {
                let x = rate * level;
                if size.is_finite() && size > 0.0 {
                    let ratio = x / size;
                    g -= size * ratio.ln_1p();
                    let shrink = (1.0 + ratio).recip();
                    g1 -= x * shrink;
                    g2 -= x * shrink * shrink;
                } else {
                    g -= x;
                    g1 -= x;
                    g2 -= x;
                }
            }
            if quiet {
                if g > LOG_FLOOR {
                    slope += g1;
                    curvature += g2;
                }
            } else {
                let q = g.exp();
                let busy = -g.exp_m1();
                if busy.ln() > LOG_FLOOR {
                    slope -= q * g1 / busy;
                    curvature -= q * (g2 * busy + g1 * g1) / (busy * busy);
                }
            }
        }
        (slope, curvature)
    }
}

/// The setting chosen on validation weeks, and what every setting scored there.
#[derive(Debug, Clone, PartialEq)]
pub struct LevelChoice {
    /// The setting with the lowest validation log loss (the first in
    /// [`LevelSetting::grid`] order on a tie).
    pub setting: LevelSetting,
    /// The validation weeks, as indexes of the backtest's weeks.
    pub validation: Range<usize>,
    /// Every setting's mean log loss of `P(NO_CRIME)` per validation cell-week.
    pub losses: Vec<(LevelSetting, f64)>,
    /// Every setting's factor of each validation week, in [`Self::losses`]' order
    /// (exported, so that the losses recompute outside the build).
    pub levels: Vec<Vec<f64>>,
}

impl LevelChoice {
    /// The factor of each of the `count` weeks from `first_scored` under the chosen
    /// setting: the validation weeks' as [`choose`] found them, the others worked
    /// out in parallel (each week's factor depends only on the weeks before it).
    #[must_use]
    pub fn levels_from(&self, weeks: &[PastWeek], first_scored: usize, count: usize) -> Vec<f64> {
        let chosen = self
            .losses
            .iter()
            .position(|(setting, _)| *setting == self.setting)
            .and_then(|i| self.levels.get(i))
            .map_or(&[][..], Vec::as_slice);
        (0..count)
            .into_par_iter()
            .map(|i| match chosen.get(i) {
                Some(&level) => level,
                None => self.setting.level_after(weeks, first_scored + i),
            })
            .collect()
    }
}

/// Chooses the setting on the first `validation` of the backtest's weeks: `weeks`
/// are the model's forecasts in order, the backtest's from `first_scored` (those
/// before it only feed the factor).
///
/// # Panics
/// If `first_scored + validation` exceeds the weeks given.
#[must_use]
pub fn choose(weeks: &[PastWeek], first_scored: usize, validation: usize) -> LevelChoice {
    let scored = first_scored..first_scored + validation;
    assert!(
        scored.end <= weeks.len(),
        "validation weeks beyond the forecasts"
    );
    let (losses, levels): (Vec<(LevelSetting, f64)>, Vec<Vec<f64>>) = LevelSetting::grid()
        .collect::<Vec<_>>()
        .into_par_iter()
        .map(|setting| {
            let levels: Vec<f64> = scored
                .clone()
                .map(|t| setting.level_after(weeks, t))
                .collect();
            let (loss, cell_weeks) =
                scored
                    .clone()
                    .zip(&levels)
                    .fold((0.0, 0), |(loss, n), (t, &level)| {
                        let week = &weeks[t];
                        (loss - week.log_likelihood(level), n + week.quiet.len())
                    });
            ((setting, loss / cell_weeks.max(1) as f64), levels)
        })
        .unzip();
    let setting = losses
        .iter()
        .fold(None::<(LevelSetting, f64)>, |best, &(s, loss)| match best {
            Some((_, lowest)) if lowest <= loss => best,
            _ => Some((s, loss)),
        })
        .map(|(s, _)| s)
        .expect("the grid is not empty");
    LevelChoice {
        setting,
        validation: 0..validation,
        losses,
        levels,
    }
}

/// `P(no incident of any class)` with every rate multiplied by `level`: the product of
/// the classes' negative binomial zero probabilities (a non-finite size is Poisson).
#[must_use]
pub fn quiet_probability(rates: &ClassRates, dispersion: &Dispersion, level: f64) -> f64 {
    ln_quiet_probability(rates, dispersion, level).exp()
}

/// The logarithm of [`quiet_probability`], summed over the classes' log zero
/// probabilities: the calibration's likelihood needs only the logarithm, and
/// summing logs spares an `exp` and an `ln` a class.
#[must_use]
pub fn ln_quiet_probability(rates: &ClassRates, dispersion: &Dispersion, level: f64) -> f64 {
    rates
        .iter()
        .zip(dispersion)
        .map(|(&rate, &size)| {
            let rate = rate * level;
            if size.is_finite() && size > 0.0 {
                -size * (rate / size).ln_1p()
            } else {
                -rate
            }
        })
        .sum()
}

/// `rates` multiplied by `level`.
#[must_use]
pub fn scaled(rates: &ClassRates, level: f64) -> ClassRates {
    rates.map(|r| r * level)
}

/// A week's rates, every cell's multiplied by `level`.
#[must_use]
pub fn scaled_week(week: &[ClassRates], level: f64) -> Vec<ClassRates> {
    week.iter().map(|r| scaled(r, level)).collect()
}

#[cfg(test)]
mod tests;
