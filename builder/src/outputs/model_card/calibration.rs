//! The model card's calibration of `P(NO_CRIME)`, per period of the backtest: the
//! validation weeks that chose the recent level's setting, the held-out weeks that
//! judge it, each calendar (ISO) year and the whole, from the export's rows.

use std::fmt::Write as _;

use chrono::{Datelike, NaiveDate};

use crate::fit::backtest::{
    BacktestRow, CALIBRATION_AIM, CALIBRATION_MIN_CELL_WEEKS, RELIABILITY_BINS, ReliabilityBin,
    largest_gap, reliability_of,
};
use crate::fit::city_build::CityBuild;

/// A named span of backtest weeks and its reliability table.
struct Period {
    name: String,
    bins: [ReliabilityBin; RELIABILITY_BINS],
}

/// The periods of a build's backtest: validation, held-out, each ISO year when the
/// backtest spans more than one, and all weeks.
fn periods(build: &CityBuild) -> Vec<Period> {
    let b = &build.backtest;
    let validation = b.level_choice.validation.len();
    let held_out_from = b.weeks.0 + chrono::Days::new(7 * validation as u64);
    let period = |name: String, keep: &dyn Fn(&BacktestRow) -> bool| Period {
        name,
        bins: reliability_of(build.rows.iter().filter(|r| keep(r))),
    };
    let mut periods = vec![
        period(format!("validation ({validation} weeks)"), &|r| {
            r.week < held_out_from
        }),
        period(
            format!("held out ({} weeks)", b.week_count - validation),
            &|r| r.week >= held_out_from,
        ),
    ];
    let years: Vec<i32> = {
        let mut years: Vec<i32> = build.rows.iter().map(|r| iso_year(r.week)).collect();
        years.dedup();
        years
    };
    if years.len() > 1 {
        for year in years {
            periods.push(period(format!("ISO year {year}"), &|r| {
                iso_year(r.week) == year
            }));
        }
    }
    periods.push(period("all weeks".to_owned(), &|_| true));
    periods
}

fn iso_year(week: NaiveDate) -> i32 {
    week.iso_week().year()
}

fn gap_text(bins: &[ReliabilityBin]) -> String {
    largest_gap(bins).map_or_else(
        || format!("no bin of {CALIBRATION_MIN_CELL_WEEKS} cell-weeks"),
        |gap| format!("{gap:.4}"),
    )
}

/// Appends the subsection.
pub(super) fn section(md: &mut String, build: &CityBuild) {
    let b = &build.backtest;
    let choice = &b.level_choice;
    let validation = choice.validation.len();
    let last_validation = b.weeks.0 + chrono::Days::new(7 * (validation as u64).saturating_sub(1));
    let held_out_from = last_validation + chrono::Days::new(7);
    let chosen = choice.setting;
    let loss = |window: usize| {
        choice
            .losses
            .iter()
            .filter(|(s, _)| s.window == window)
            .map(|&(_, l)| l)
            .fold(f64::INFINITY, f64::min)
    };
    let mut windows: Vec<usize> = choice.losses.iter().map(|(s, _)| s.window).collect();
    windows.dedup();
    let _ = writeln!(
        *md,
        "\n**Calibration on held-out weeks.** The recent level's setting was chosen on the \
         validation weeks {} to {last_validation} ({validation} weeks): window {} weeks, prior \
         standard deviation {}. Mean log loss of `P(NO_CRIME)` there, per window (its best \
         prior): {}. The held-out weeks, {held_out_from} to {}, played no part in the choice.\n",
        b.weeks.0,
        chosen.window,
        chosen.prior_sd,
        windows
            .iter()
            .map(|&w| format!("{w}: {:.5}", loss(w)))
            .collect::<Vec<_>>()
            .join(", "),
        b.weeks.1
    );
    let periods = periods(build);
    md.push_str(
        "Reliability of the model's `P(NO_CRIME)` (cell-weeks, observed − predicted):\n\n| bin |",
    );
    for period in &periods {
        let _ = write!(md, " {} |", period.name);
    }
    md.push_str("\n|---|");
    md.push_str(&"---|".repeat(periods.len()));
    md.push('\n');
    for i in 0..RELIABILITY_BINS {
        let _ = write!(
            md,
            "| {:.1}–{:.1} |",
            i as f64 / RELIABILITY_BINS as f64,
            (i + 1) as f64 / RELIABILITY_BINS as f64
        );
        for period in &periods {
            let bin = period.bins[i];
            if bin.count == 0 {
                md.push_str(" – |");
            } else {
                let _ = write!(md, " {} ({:+.4}) |", bin.count, bin.gap());
            }
        }
        md.push('\n');
    }
    let held_out = &periods[1].bins;
    let verdict = match largest_gap(held_out) {
        Some(gap) if gap <= CALIBRATION_AIM => "met",
        Some(_) => "not met",
        None => "cannot be judged: no bin holds that many held-out cell-weeks",
    };
    let _ = writeln!(
        *md,
        "\nLargest gap in a bin of at least {CALIBRATION_MIN_CELL_WEEKS} cell-weeks: {}; aim on \
         the held-out weeks, at most {CALIBRATION_AIM}: {verdict}.",
        periods
            .iter()
            .map(|p| format!("{} {}", p.name, gap_text(&p.bins)))
            .collect::<Vec<_>>()
            .join("; ")
    );
}
