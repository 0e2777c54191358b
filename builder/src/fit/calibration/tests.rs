use super::*;
use hexrisk_engine::forecast::{POISSON, outcome_distribution_with};

/// A week of `cells` cells, each with `rate` of one class, quiet in `quiet_share`
/// of them.
fn week(rate: f64, quiet_share: f64, cells: usize) -> PastWeek {
    PastWeek {
        rates: vec![[rate, 0.0, 0.0, 0.0, 0.0]; cells],
        dispersion: POISSON,
        quiet: (0..cells)
            .map(|i| (i as f64) < quiet_share * cells as f64)
            .collect(),
    }
}

fn weeks_with(rate: f64, quiet_share: f64, weeks: usize, cells: usize) -> Vec<PastWeek> {
    (0..weeks).map(|_| week(rate, quiet_share, cells)).collect()
}

const QUARTER: LevelSetting = LevelSetting {
    window: 13,
    prior_sd: 0.1,
};

fn level_of(weeks: &[PastWeek], setting: LevelSetting) -> f64 {
    setting.level_after(weeks, weeks.len())
}

// Forecast rate 0.5 (P(quiet) = 0.61) where 70% of cells stay quiet: the level
// solving exp(-0.5 f) = 0.7 is f = -2 ln 0.7 = 0.713.
const SOLVES_70_PERCENT: f64 = 0.713_349_887;

#[test]
fn the_level_makes_the_quiet_share_come_true() {
    // A big city: the prior hardly moves the factor.
    let level = level_of(&weeks_with(0.5, 0.7, 13, 100_000), QUARTER);
    assert!((level - SOLVES_70_PERCENT).abs() < 1e-3, "{level}");
    // Forecasts that come true need no correction.
    let level = level_of(&weeks_with(0.5, (-0.5f64).exp(), 13, 100_000), QUARTER);
    assert!((level - 1.0).abs() < 2e-3, "{level}");
}

#[test]
fn the_prior_holds_a_small_city_near_one() {
    let small = level_of(&weeks_with(0.5, 0.7, 13, 20), QUARTER);
    assert!(small > SOLVES_70_PERCENT + 0.05 && small < 1.0, "{small}");
    // A looser prior lets it move further.
    let loose = level_of(
        &weeks_with(0.5, 0.7, 13, 20),
        LevelSetting {
            prior_sd: 0.4,
            ..QUARTER
        },
    );
    assert!(loose < small, "{loose} vs {small}");
}

#[test]
fn too_few_weeks_leave_the_rates_alone() {
    let level = level_of(&weeks_with(0.5, 0.9, LEVEL_MIN_WEEKS - 1, 100_000), QUARTER);
    assert!((level - 1.0).abs() < f64::EPSILON);
    assert!(level_of(&weeks_with(0.5, 0.9, LEVEL_MIN_WEEKS, 100_000), QUARTER) < 0.5);
}

#[test]
fn only_the_latest_window_counts() {
    let mut weeks = weeks_with(0.5, 0.9, 13, 100_000);
    weeks.extend(weeks_with(0.5, 0.7, 13, 100_000));
    assert!((level_of(&weeks, QUARTER) - SOLVES_70_PERCENT).abs() < 1e-3);
    // The level after the first 13 weeks sees only them.
    assert!(QUARTER.level_after(&weeks, 13) < 0.5);
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

/// Weeks whose level drifts: the quiet share moves from 0.9 to 0.6 over `n` weeks.
fn drifting(n: usize, cells: usize) -> Vec<PastWeek> {
    (0..n)
        .map(|t| week(0.3, 0.9 - 0.3 * t as f64 / n as f64, cells))
        .collect()
}

#[test]
fn the_choice_has_the_lowest_validation_log_loss_written_out() {
    let weeks = drifting(60, 500);
    let (first_scored, validation) = (26, 17);
    let choice = choose(&weeks, first_scored, validation);
    assert_eq!(choice.validation, 0..validation);
    assert_eq!(choice.losses.len(), WINDOW_GRID.len() * PRIOR_SD_GRID.len());
    // Each setting's loss, written out: the mean over validation cell-weeks of
    // −ln P(outcome), with the factor from the weeks before each.
    for &(setting, loss) in &choice.losses {
        let mut total = 0.0;
        let mut cell_weeks = 0;
        for t in first_scored..first_scored + validation {
            let level = setting.level_after(&weeks, t);
            for (rates, &quiet) in weeks[t].rates.iter().zip(&weeks[t].quiet) {
                let p = (-rates[0] * level).exp();
                total -= if quiet { p.ln() } else { (1.0 - p).ln() };
                cell_weeks += 1;
            }
        }
        let expected = total / f64::from(cell_weeks);
        assert!(
            (loss - expected).abs() < 1e-9,
            "{setting:?}: {loss} vs {expected}"
        );
    }
    let lowest = choice
        .losses
        .iter()
        .map(|&(_, l)| l)
        .fold(f64::INFINITY, f64::min);
    let first_lowest = choice.losses.iter().find(|&&(_, l)| l == lowest).unwrap();
    assert_eq!(choice.setting, first_lowest.0);
    // A drifting level favours a short window.
    assert!(choice.setting.window < LONGEST_WINDOW, "{choice:?}");
}

#[test]
fn weeks_after_the_validation_weeks_do_not_move_the_choice() {
    let weeks = drifting(60, 500);
    let choice = choose(&weeks, 26, 17);
    let mut altered = weeks.clone();
    for later in &mut altered[26 + 17..] {
        *later = week(2.0, 0.99, 500);
    }
    assert_eq!(choose(&altered, 26, 17), choice);
}

/// Weeks of mixed cells: several classes, negative binomial and Poisson sizes,
/// quiet and busy cells in a pattern that moves from week to week.
fn mixed_weeks(weeks: usize, busy_every: usize) -> Vec<PastWeek> {
    (0..weeks)
        .map(|w| PastWeek {
            rates: (0..400)
                .map(|c| {
                    let x = ((c * 37 + w * 11) % 97) as f64 / 97.0;
                    [0.4 * x, 0.2 * (1.0 - x), 0.05, 0.9 * x * x, 0.0]
                })
                .collect(),
            dispersion: [1.5, 12.0, f64::INFINITY, 3.0, 40.0],
            quiet: (0..400).map(|c| (c * 7 + w) % busy_every != 0).collect(),
        })
        .collect()
}

#[test]
fn newton_finds_the_golden_section_maximum_of_the_posterior() {
    for (busy_every, window, prior_sd) in [(3, 13, 0.1), (2, 4, 0.05), (5, 26, 0.4), (9, 8, 0.2)] {
        let weeks = mixed_weeks(30, busy_every);
        let setting = LevelSetting { window, prior_sd };
        let recent = &weeks[weeks.len() - window..];
        let posterior = |u: f64| {
            recent
                .iter()
                .map(|w| w.log_likelihood(u.exp()))
                .sum::<f64>()
                - 0.5 * (u / prior_sd).powi(2)
        };
        let golden = crate::fit::golden_section::maximise(
            posterior,
            (LEVEL_RANGE.0.ln(), LEVEL_RANGE.1.ln()),
            80,
        );
        let newton = setting.level_after(&weeks, weeks.len()).ln();
        // Golden-section search resolves a smooth top to about the square root of
        // the float precision only: the two agree to that.
        assert!(
            (newton - golden).abs() < 1e-7,
            "{busy_every} {window} {prior_sd}: {newton} against {golden}"
        );
    }
    // A posterior rising to the bound ends at the bound.
    let all_busy = vec![week(0.01, 0.0, 1000); 13];
    let level = QUARTER.level_after(&all_busy, 13);
    assert!((level - LEVEL_RANGE.1).abs() < 1e-6, "{level}");
}

#[test]
fn the_slopes_are_the_log_likelihood_s_derivatives() {
    let weeks = mixed_weeks(1, 3);
    let (h, level) = (1e-5, 0.8_f64);
    let at = |u: f64| weeks[0].log_likelihood(u.exp());
    let u = level.ln();
    let numeric = (at(u + h) - at(u - h)) / (2.0 * h);
    let curvature = (at(u + h) - 2.0 * at(u) + at(u - h)) / (h * h);
    let (slope, second) = weeks[0].slopes(level);
    assert!(
        (slope - numeric).abs() < 1e-5 * numeric.abs().max(1.0),
        "{slope} {numeric}"
    );
    assert!(
        (second - curvature).abs() < 1e-3 * curvature.abs().max(1.0),
        "{second} {curvature}"
    );
}
