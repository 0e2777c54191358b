//! Recent-level calibration of the weekly forecasts.
//!
//! The regression is fitted once every 13 weeks on two years, so when a city's crime
//! level moves (Toronto's fell in 2020) its forecasts lag behind it, and its
//! `P(NO_CRIME)` comes out too low in every reliability bin. Each week's rates of every
//! class are therefore multiplied by one factor per city: the factor that, applied to
//! the model's own forecasts of the previous [`LEVEL_WINDOW`] weeks, gives their
//! observed quiet cell-weeks (no incident of any class) the highest likelihood. Those
//! forecasts were each made before their week, so the factor uses nothing of the week
//! it corrects. The served forecasts take the factor of the last weeks of data.

use std::collections::VecDeque;

use hexrisk_engine::forecast::{ClassRates, Dispersion};

/// Weeks of the model's own past forecasts the factor is fitted on: a quarter, the
/// interval between refits.
pub const LEVEL_WINDOW: usize = 13;

/// Fewer past weeks than this leave the forecasts as the regression gives them.
pub const LEVEL_MIN_WEEKS: usize = 4;

/// Standard deviation of the normal prior on the factor's logarithm.
pub const LEVEL_PRIOR_SD: f64 = 0.1;

/// Range searched for the factor.
pub const LEVEL_RANGE: (f64, f64) = (0.25, 4.0);

/// One past week: its forecast rates before calibration, their sizes, and which cells
/// were quiet.
struct PastWeek {
    rates: Vec<ClassRates>,
    dispersion: Dispersion,
    quiet: Vec<bool>,
}

/// The model's forecasts of the latest weeks with their outcomes, oldest first.
#[derive(Default)]
pub struct RecentWeeks {
    weeks: VecDeque<PastWeek>,
}

impl RecentWeeks {
    /// Records a week's uncalibrated forecast and whether each cell was quiet,
    /// forgetting the oldest week beyond [`LEVEL_WINDOW`].
    pub fn push(&mut self, rates: Vec<ClassRates>, dispersion: Dispersion, quiet: Vec<bool>) {
        if self.weeks.len() == LEVEL_WINDOW {
            self.weeks.pop_front();
        }
        self.weeks.push_back(PastWeek {
            rates,
            dispersion,
            quiet,
        });
    }

    /// The factor for the next week: 1 until [`LEVEL_MIN_WEEKS`] weeks are recorded.
    #[must_use]
    pub fn level(&self) -> f64 {
        if self.weeks.len() < LEVEL_MIN_WEEKS {
            return 1.0;
        }
        let log_likelihood = |ln_level: f64| {
            let level = ln_level.exp();
            let mut sum = 0.0;
            for week in &self.weeks {
                for (rates, &quiet) in week.rates.iter().zip(&week.quiet) {
                    let p = quiet_probability(rates, &week.dispersion, level);
                    sum += if quiet { p.ln() } else { (-p).ln_1p() }.max(-30.0);
                }
            }
            // A normal prior on the log factor: a small city's few quiet cell-weeks
            // cannot move it far.
            sum - 0.5 * (ln_level / LEVEL_PRIOR_SD).powi(2)
        };
        super::golden::maximise(log_likelihood, (LEVEL_RANGE.0.ln(), LEVEL_RANGE.1.ln()), 40).exp()
    }
}

/// `P(no incident of any class)` with every rate multiplied by `level`: the product of
/// the classes' negative binomial zero probabilities (a non-finite size is Poisson).
#[must_use]
pub fn quiet_probability(rates: &ClassRates, dispersion: &Dispersion, level: f64) -> f64 {
    rates
        .iter()
        .zip(dispersion)
        .map(|(&rate, &size)| {
            let rate = rate * level;
            if size.is_finite() && size > 0.0 {
                (-size * (rate / size).ln_1p()).exp()
            } else {
                (-rate).exp()
            }
        })
        .product()
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
mod tests {
    use super::*;
    use hexrisk_engine::forecast::{POISSON, outcome_distribution_with};

    /// `weeks` weeks of `cells` cells, each with `rate` of one class, quiet in
    /// `quiet_share` of them.
    fn weeks_with(rate: f64, quiet_share: f64, weeks: usize, cells: usize) -> RecentWeeks {
        let mut recent = RecentWeeks::default();
        for _ in 0..weeks {
            push_week(&mut recent, rate, quiet_share, cells);
        }
        recent
    }

    fn push_week(recent: &mut RecentWeeks, rate: f64, quiet_share: f64, cells: usize) {
        let quiet = (0..cells)
            .map(|i| (i as f64) < quiet_share * cells as f64)
            .collect();
        recent.push(vec![[rate, 0.0, 0.0, 0.0, 0.0]; cells], POISSON, quiet);
    }

    // Forecast rate 0.5 (P(quiet) = 0.61) where 70% of cells stay quiet: the level
    // solving exp(-0.5 f) = 0.7 is f = -2 ln 0.7 = 0.713.
    const SOLVES_70_PERCENT: f64 = 0.713_349_887;

    #[test]
    fn the_level_makes_the_quiet_share_come_true() {
        // A big city: the prior hardly moves the factor.
        let level = weeks_with(0.5, 0.7, LEVEL_WINDOW, 100_000).level();
        assert!((level - SOLVES_70_PERCENT).abs() < 1e-3, "{level}");
        // Forecasts that come true need no correction.
        let level = weeks_with(0.5, (-0.5f64).exp(), LEVEL_WINDOW, 100_000).level();
        assert!((level - 1.0).abs() < 2e-3, "{level}");
    }

    #[test]
    fn the_prior_holds_a_small_city_near_one() {
        let small = weeks_with(0.5, 0.7, LEVEL_WINDOW, 20).level();
        assert!(small > SOLVES_70_PERCENT + 0.05 && small < 1.0, "{small}");
    }

    #[test]
    fn too_few_weeks_leave_the_rates_alone() {
        let level = weeks_with(0.5, 0.9, LEVEL_MIN_WEEKS - 1, 100_000).level();
        assert!((level - 1.0).abs() < f64::EPSILON);
        assert!(weeks_with(0.5, 0.9, LEVEL_MIN_WEEKS, 100_000).level() < 0.5);
    }

    #[test]
    fn only_the_latest_window_counts() {
        let mut recent = weeks_with(0.5, 0.9, LEVEL_WINDOW, 100_000);
        for _ in 0..LEVEL_WINDOW {
            push_week(&mut recent, 0.5, 0.7, 100_000);
        }
        assert!((recent.level() - SOLVES_70_PERCENT).abs() < 1e-3);
    }

    #[test]
    fn quiet_probability_is_the_engine_no_crime_probability() {
        let rates = [0.3, 0.8, 0.05, 0.2, 0.0];
        let sizes = [2.0, 15.0, 2.2, f64::INFINITY, 40.0];
        for level in [0.5, 1.0, 1.7] {
            let engine = outcome_distribution_with(&scaled(&rates, level), &sizes);
            let no_crime = engine[engine.len() - 1];
            assert!((quiet_probability(&rates, &sizes, level) - no_crime).abs() < 1e-12);
        }
    }
}
