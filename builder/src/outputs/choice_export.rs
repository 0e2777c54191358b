//! The exports behind the settings chosen on validation weeks and the hour's
//! ranking, so that those figures of the model card recompute outside the build:
//! - `levels_<code>.csv.gz`: every recent-level setting's factor of each
//!   validation week (`window,prior_sd,week_start,level`);
//! - `run_in_<code>.csv.gz`: the model's uncalibrated forecasts of the unscored
//!   weeks before the backtest, which feed its first weeks' factors
//!   (`week_start,cell,r_*,size_*,quiet`); the backtest's own weeks are in
//!   `backtest_<code>.csv.gz` (`e_* / level`);
//! - `hour_totals_<code>.csv.gz`: each cell's expected incidents over the whole
//!   week and over the nights in the first forecast week (`week_start,cell,week,nights`).
//!
//! Numbers are written in full (Rust's shortest round-trip form): the factors'
//! optimality is checked to a thousandth.

use std::path::Path;

use chrono::{Days, NaiveDate};
use hexrisk_engine::forecast::CRIME_CLASSES;

use crate::fit::city_build::CityBuild;
use crate::outputs::backtest_export::write_gz_csv;
use crate::outputs::hour_totals::{first_forecast_week, hour_totals};

/// The Monday `weeks` weeks after `from`.
fn weeks_after(from: NaiveDate, weeks: usize) -> NaiveDate {
    from + Days::new(7 * weeks as u64)
}

/// The Monday `weeks` weeks before `from`.
fn weeks_before(from: NaiveDate, weeks: usize) -> NaiveDate {
    from - Days::new(7 * weeks as u64)
}

/// A cell position's H3 name.
fn cell_name(build: &CityBuild, cell: usize) -> String {
    h3o::CellIndex::try_from(build.artifact.cells[cell])
        .map_or_else(|_| String::new(), |c| c.to_string())
}

/// Writes the three exports of the module's doc.
///
/// # Errors
/// I/O errors.
pub fn write_choice_csvs(dir: &Path, build: &CityBuild) -> anyhow::Result<()> {
    let code = &build.artifact.city.code;
    let backtest = &build.backtest;
    let first = backtest.weeks.0;
    let choice = &backtest.level_choice;
    write_gz_csv(
        &dir.join(format!("levels_{code}.csv.gz")),
        &["window", "prior_sd", "week_start", "level"].map(str::to_owned),
        &mut choice
            .losses
            .iter()
            .zip(&choice.levels)
            .flat_map(|((setting, _), levels)| {
                choice
                    .validation
                    .clone()
                    .zip(levels)
                    .map(move |(t, level)| {
                        vec![
                            setting.window.to_string(),
                            setting.prior_sd.to_string(),
                            weeks_after(first, t).to_string(),
                            level.to_string(),
                        ]
                    })
            }),
    )?;
    let mut header = vec!["week_start".to_owned(), "cell".to_owned()];
    header.extend(CRIME_CLASSES.iter().map(|c| format!("r_{}", c.code())));
    header.extend(CRIME_CLASSES.iter().map(|c| format!("size_{}", c.code())));
    header.push("quiet".to_owned());
    write_gz_csv(
        &dir.join(format!("run_in_{code}.csv.gz")),
        &header,
        &mut backtest
            .run_in
            .iter()
            .zip((1..=backtest.run_in.len()).rev())
            .flat_map(|(week, before)| {
                let start = weeks_before(first, before).to_string();
                week.rates.iter().zip(&week.quiet).enumerate().map(
                    move |(cell, (rates, &quiet))| {
                        let mut row = vec![start.clone(), cell_name(build, cell)];
                        row.extend(rates.iter().map(ToString::to_string));
                        row.extend(week.dispersion.iter().map(ToString::to_string));
                        row.push(u8::from(quiet).to_string());
                        row
                    },
                )
            }),
    )?;
    let week_start = weeks_after(first, first_forecast_week(build)).to_string();
    write_gz_csv(
        &dir.join(format!("hour_totals_{code}.csv.gz")),
        &["week_start", "cell", "week", "nights"].map(str::to_owned),
        &mut hour_totals(build)
            .into_iter()
            .enumerate()
            .map(|(cell, totals)| {
                vec![
                    week_start.clone(),
                    cell_name(build, cell),
                    totals.week.to_string(),
                    totals.nights.to_string(),
                ]
            }),
    )
}
